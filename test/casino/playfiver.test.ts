import { knownCurrency } from "../../src/domain/Currency.ts"
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { CasinoGateway, type CasinoGatewayError, type GameLaunch } from "../../src/casino/CasinoGateway.ts"
import * as PlayFiverGateway from "../../src/integrations/playfiver/PlayFiverGateway.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { healthyAggregator } from "../support/PlayFiverScripts.ts"
import { testCasinoConfig } from "../support/TestApp.ts"
import { live } from "../support/live.ts"

const agentToken = "agent-token-123"
const secretKey = "secret-key-456"

/** The real adapter, over real HTTP, against the fake aggregator. */
const PlayFiverAgainstFake = (options: { readonly credentials?: boolean; readonly timeout?: Duration.Input } = {}) =>
  PlayFiverGateway.layer.pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Layer.effect(
      CasinoConfig,
      Effect.map(Effect.service(FakeUpstream), (fake) =>
        testCasinoConfig({
          gateways: ["playfiver"],
          timeout: Duration.fromInputUnsafe(options.timeout ?? "300 millis"),
          playfiver: {
            baseUrl: fake.url,
            agentToken: options.credentials === false ? Option.none() : Option.some(Redacted.make(agentToken)),
            secretKey: options.credentials === false ? Option.none() : Option.some(Redacted.make(secretKey)),
            currency: "BRL"
          }
        }))
    )),
    Layer.provideMerge(FakeUpstream.layer(healthyAggregator))
  )

const launchRequest: GameLaunch = {
  userCode: 100042,
  gameCode: "126",
  providerCode: "PG Soft",
  balance: 15050n,
  currency: knownCurrency("BRL")!,
  original: true,
  lang: "pt",
  rtp: 0,
  playerName: "Ana",
  platform: "desktop",
  country: undefined
}

const gatewayError = <A>(effect: Effect.Effect<A, CasinoGatewayError>) => Effect.flip(effect)

layer(PlayFiverAgainstFake(), live)("PlayFiver adapter", (it) => {
  it.effect("lists providers, decoding the protocol's type variants; credentials go in query and headers", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      const gateway = yield* CasinoGateway
      assert.strictEqual(gateway.name, "playfiver")
      assert.isTrue(gateway.configured)
      const providers = yield* gateway.providers
      assert.deepStrictEqual(providers, [
        { code: "PG Soft", name: "PG Soft", enabled: true, imageUrl: "https://img.example/pg.png" },
        { code: "Pragmatic Play", name: "Pragmatic Play", enabled: true, imageUrl: null },
        { code: "Old Studio", name: "Old Studio", enabled: false, imageUrl: null }
      ])
      const call = fake.calls[0]
      assert.strictEqual(call.query.agentToken, agentToken)
      assert.strictEqual(call.query.secretKey, secretKey)
      assert.strictEqual(call.headers.agenttoken, agentToken)
      assert.strictEqual(call.headers.secretkey, secretKey)
    }))

  it.effect("lists a provider's games: numeric codes become strings, 0/'0' mean disabled or not original", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      const gateway = yield* CasinoGateway
      const games = yield* gateway.games({ code: "PG Soft", name: "PG Soft", enabled: true, imageUrl: null })
      assert.deepStrictEqual(games.map((g) => [g.code, g.name, g.enabled, g.original]), [
        ["126", "Fortune Tiger", true, true],
        ["98", "Fortune Ox", true, true],
        ["1543462", "Fortune Rabbit", false, false]
      ])
      assert.strictEqual(fake.calls[0].query.provider, "PG Soft")
    }))

  it.effect("launches: sends the protocol's body (RTP clamped into 1..100) and returns the launch URL", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      const gateway = yield* CasinoGateway
      const launched = yield* gateway.launch(launchRequest)
      assert.strictEqual(launched.url, "https://games.example/launch?user=100042&game=126")
      const call = fake.calls[0]
      assert.strictEqual(call.method, "POST")
      assert.strictEqual(call.path, "/api/v2/game_launch")
      assert.deepInclude(call.body, {
        agentToken,
        secretKey,
        user_code: "100042",
        game_code: "126",
        provider: "PG Soft",
        game_original: true,
        user_balance: 150.5,
        user_rtp: 1,
        lang: "pt"
      })
      // The upstream's answer is kept, without our credentials.
      assert.notInclude(JSON.stringify(launched.response), secretKey)
    }))

  it.effect("leaves user_rtp out when the partner sent none", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      yield* (yield* CasinoGateway).launch({ ...launchRequest, rtp: undefined })
      assert.notProperty(fake.calls[0].body, "user_rtp")
    }))

  it.effect("accepts the answer variants: status true, 1, \"success\", or absent with a URL", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const gateway = yield* CasinoGateway
      for (const status of [true, 1, "success", undefined]) {
        fake.script(() => ({ kind: "json", body: { status, launch_url: "https://games.example/x" } }))
        assert.strictEqual((yield* gateway.launch(launchRequest)).url, "https://games.example/x")
      }
      fake.reset()
    }))

  describe("failures", () => {
    it.effect("a refusal (status false) is Rejected, with the aggregator's answer and never our secret", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        fake.script(() => ({
          kind: "json",
          body: { status: false, msg: `INVALID_AGENT ${secretKey}`, launch_url: null }
        }))
        const error = yield* gatewayError((yield* CasinoGateway).launch(launchRequest))
        assert.strictEqual(error.reason, "Rejected")
        assert.include(error.message, "INVALID_AGENT")
        assert.deepStrictEqual(error.providerResponse, {
          status: false,
          msg: "INVALID_AGENT [redacted]",
          launch_url: null
        })
        assert.notInclude(error.message, secretKey)
        fake.reset()
      }))

    it.effect("an HTTP error answer: 5xx is Unavailable, 4xx Rejected; the launch is not repeated", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const gateway = yield* CasinoGateway
        fake.reset()
        fake.script(() => ({ kind: "json", status: 503, body: { status: false, msg: "UNDER_MAINTENANCE" } }))
        const unavailable = yield* gatewayError(gateway.launch(launchRequest))
        assert.strictEqual(unavailable.reason, "Unavailable")
        assert.deepStrictEqual(unavailable.providerResponse, { status: false, msg: "UNDER_MAINTENANCE" })
        assert.strictEqual(fake.calls.length, 1, "a launch is never retried")
        fake.script(() => ({ kind: "json", status: 401, body: { status: false, msg: "AUTHORIZE_FAILED" } }))
        assert.strictEqual((yield* gatewayError(gateway.launch(launchRequest))).reason, "Rejected")
        fake.reset()
      }))

    it.effect("catalog reads are retried with backoff on unavailability, and succeed once it recovers", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        fake.reset()
        let failures = 2
        fake.script((call) =>
          failures-- > 0 ? { kind: "json", status: 502, body: { status: false } } : healthyAggregator(call)
        )
        const providers = yield* (yield* CasinoGateway).providers
        assert.strictEqual(providers.length, 3)
        assert.strictEqual(fake.calls.length, 3)
        fake.reset()
      }))

    it.effect("garbage (not JSON) is InvalidResponse, with the start of what came back", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        fake.script(() => ({ kind: "text", status: 200, body: "<html>Bad Gateway</html>" }))
        const error = yield* gatewayError((yield* CasinoGateway).launch(launchRequest))
        assert.strictEqual(error.reason, "InvalidResponse")
        assert.deepStrictEqual(error.providerResponse, { status: 200, body: "<html>Bad Gateway</html>" })
        fake.reset()
      }))

    it.effect("JSON of an unexpected shape is InvalidResponse", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        fake.script(() => ({ kind: "json", body: { data: "not a list" } }))
        const error = yield* gatewayError((yield* CasinoGateway).providers)
        assert.strictEqual(error.reason, "InvalidResponse")
        assert.deepStrictEqual(error.providerResponse, { data: "not a list" })
        fake.reset()
      }))

    it.effect("a hang hits the time-out: a launch once, a catalog read after its retries", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const gateway = yield* CasinoGateway
        fake.reset()
        fake.script(() => ({ kind: "hang" }))
        const started = Date.now()
        const launchError = yield* gatewayError(gateway.launch(launchRequest))
        assert.strictEqual(launchError.reason, "Timeout")
        // The time-out (300 ms here) ended it, not the hang: far below the test's own limit, whatever the machine's load.
        assert.isBelow(Date.now() - started, 10_000)
        assert.strictEqual(fake.calls.length, 1)
        fake.calls.length = 0
        const readError = yield* gatewayError(gateway.providers)
        assert.strictEqual(readError.reason, "Timeout")
        assert.strictEqual(fake.calls.length, 4, "first try and three retries")
        fake.reset()
      }))

    it.effect("a dropped connection is Unavailable; a launch is sent once, a catalog read tried again", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const gateway = yield* CasinoGateway
        fake.reset()
        fake.script(() => ({ kind: "close" }))
        assert.strictEqual((yield* gatewayError(gateway.launch(launchRequest))).reason, "Unavailable")
        assert.strictEqual(fake.calls.length, 1, "a launch is never retried")
        let drops = 1
        fake.script((call) => drops-- > 0 ? { kind: "close" } : healthyAggregator(call))
        fake.calls.length = 0
        assert.strictEqual((yield* gateway.providers).length, 3)
        assert.strictEqual(fake.calls.length, 2)
        fake.reset()
      }))
  })
})

layer(PlayFiverAgainstFake({ credentials: false }), live)("PlayFiver adapter without credentials", (it) => {
  it.effect("is not configured, and calls nothing", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const gateway = yield* CasinoGateway
      assert.isFalse(gateway.configured)
      const error = yield* gatewayError(gateway.launch(launchRequest))
      assert.strictEqual(error.reason, "NotConfigured")
      assert.strictEqual(fake.calls.length, 0)
    }))
})
