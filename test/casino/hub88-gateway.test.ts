import { assert, describe, it, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { CasinoGateway, type CasinoGatewayError, type GameLaunch } from "../../src/casino/CasinoGateway.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { Hub88Config } from "../../src/integrations/hub88/Hub88Config.ts"
import * as Hub88Gateway from "../../src/integrations/hub88/Hub88Gateway.ts"
import { Hub88LaunchTokens } from "../../src/integrations/hub88/Hub88LaunchTokens.ts"
import { signatureHeaderKey, verifyBody } from "../../src/integrations/hub88/Hub88Signature.ts"
import { healthyHub88, hub88Keys, makeKeyPair, operatorId, operatorKeys } from "../support/FakeHub88.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { testCasinoConfig } from "../support/TestApp.ts"
import { live } from "../support/live.ts"

const currency = (code: string) => knownCurrency(code)!

/** The real adapter, over real HTTP, against the fake Hub88; `signingKey` is the operator key it signs with. */
const Hub88AgainstFake = (options: { readonly signingKey?: typeof operatorKeys } = {}) =>
  Hub88Gateway.layerNoDeps.pipe(
    // Hub88Gateway.layer, with its launch tokens kept in reach of the tests, which check them.
    Layer.provideMerge(Hub88LaunchTokens.layer),
    Layer.provideMerge(Layer.effect(
      Hub88Config,
      Effect.map(Effect.service(FakeUpstream), (fake) =>
        Hub88Config.of({
          baseUrl: fake.url,
          operatorId,
          subPartnerId: Option.some("brand-7"),
          privateKey: Redacted.make((options.signingKey ?? operatorKeys).privateKey),
          publicKey: hub88Keys.publicKey,
          currencies: [currency("BRL"), currency("JPY"), currency("KWD")],
          tokenTtl: Duration.hours(24)
        }))
    )),
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Layer.succeed(CasinoConfig, testCasinoConfig({ timeout: Duration.millis(500) }))),
    Layer.provideMerge(FakeUpstream.layer(healthyHub88))
  )

const launchRequest: GameLaunch = {
  userCode: 100042,
  gameCode: "clt_dragonrising",
  providerCode: "Crazy Tooth Studio",
  balance: 15050n,
  currency: currency("BRL"),
  original: true,
  lang: "pt",
  rtp: undefined,
  playerName: "Ana",
  platform: "desktop",
  country: undefined
}

const gatewayError = <A>(effect: Effect.Effect<A, CasinoGatewayError>) => Effect.flip(effect)

layer(Hub88AgainstFake(), live)("Hub88 adapter", (it) => {
  it.effect("lists the providers as the distinct products, and each one's games, from one signed call", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      const gateway = yield* CasinoGateway
      assert.strictEqual(gateway.name, "hub88")
      assert.isTrue(gateway.configured)
      const providers = yield* gateway.providers
      assert.deepStrictEqual(providers, [
        { code: "Crazy Tooth Studio", name: "Crazy Tooth Studio", enabled: true, imageUrl: null },
        { code: "PG Soft", name: "PG Soft", enabled: true, imageUrl: null },
        { code: "Gone Studio", name: "Gone Studio", enabled: false, imageUrl: null }
      ])
      const games = yield* Effect.forEach(providers, gateway.games)
      assert.deepStrictEqual(games[0], [
        {
          code: "clt_dragonrising",
          name: "Dragon Rising",
          providerCode: "Crazy Tooth Studio",
          enabled: true,
          original: true,
          imageUrl: "https://cdn.example/dragon.png"
        },
        {
          code: "clt_oldgame",
          name: "Old Game",
          providerCode: "Crazy Tooth Studio",
          enabled: false,
          original: true,
          imageUrl: null
        }
      ])
      assert.deepStrictEqual(games[1].map((game) => game.code), ["pgs_fortunetiger"])
      // One call for the whole sync: the providers and every provider's games read one answer.
      assert.strictEqual(fake.calls.length, 1)
      const call = fake.calls[0]
      assert.strictEqual(call.method, "POST")
      assert.strictEqual(call.path, "/operator/generic/v2/game/list")
      assert.strictEqual(call.raw, `{"operator_id":${operatorId}}`)
      assert.strictEqual(call.headers["content-type"], "application/json")
    }))

  it.effect("launches: a signed body the fake verifies, a token bound to user, game and currency; the URL back", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      const launched = yield* (yield* CasinoGateway).launch(launchRequest)
      assert.strictEqual(launched.url, "https://games.hub88.example/launch/clt_dragonrising?session=s-100042")
      const call = fake.calls[0]
      assert.strictEqual(call.path, "/operator/generic/v2/game/url")
      const signature = call.headers[signatureHeaderKey] as string
      assert.isTrue(verifyBody(call.raw, signature, operatorKeys.publicKey), "signed over the bytes sent")
      assert.isFalse(verifyBody(call.raw, signature, hub88Keys.publicKey), "with the operator's key, not Hub88's")
      const { token, ...rest } = call.body
      assert.deepStrictEqual(rest, {
        user: "100042",
        platform: "GPL_DESKTOP",
        operator_id: operatorId,
        lang: "pt",
        game_code: "clt_dragonrising",
        currency: "BRL",
        sub_partner_id: "brand-7"
      })
      assert.isAtLeast(token.length, 10)
      assert.isAtMost(token.length, 255)
      const tokens = yield* Hub88LaunchTokens
      const claims = { user: "100042", gameCode: "clt_dragonrising", currency: "BRL" }
      assert.strictEqual(yield* tokens.check(token, claims), "Valid")
      assert.strictEqual(yield* tokens.check(token, { ...claims, currency: "JPY" }), "Invalid")
      assert.strictEqual(yield* tokens.check(token, { ...claims, user: "100043" }), "Invalid")
      assert.strictEqual(yield* tokens.check(token, { ...claims, gameCode: "pgs_fortunetiger" }), "Invalid")
      // A second launch mints a token of its own.
      yield* (yield* CasinoGateway).launch(launchRequest)
      assert.notStrictEqual(fake.calls[1].body.token, token)
    }))

  it.effect("serves the account's currencies only; a launch in another is refused before Hub88 is asked", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      const gateway = yield* CasinoGateway
      assert.deepStrictEqual(["BRL", "JPY", "KWD", "EUR"].map((code) => gateway.serves(currency(code))), [
        true,
        true,
        true,
        false
      ])
      const error = yield* gatewayError(gateway.launch({ ...launchRequest, currency: currency("EUR") }))
      assert.strictEqual(error.reason, "Rejected")
      assert.include(error.message, "EUR")
      assert.strictEqual(fake.calls.length, 0)
    }))

  describe("failures", () => {
    it.effect("an unknown game: Hub88's 404 {error} is Rejected, with its words; the launch is not repeated", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        fake.reset()
        const error = yield* gatewayError((yield* CasinoGateway).launch({ ...launchRequest, gameCode: "nope" }))
        assert.strictEqual(error.reason, "Rejected")
        assert.include(error.message, "HTTP 404")
        assert.include(error.message, "Game not found")
        assert.deepStrictEqual(error.providerResponse, { error: "Game not found" })
        assert.strictEqual(fake.calls.length, 1)
      }))

    it.effect("5xx is Unavailable; a hang is a Timeout; a launch goes once, the list after its retries", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const gateway = yield* CasinoGateway
        fake.reset()
        fake.script(() => ({ kind: "json", status: 503, body: { error: "maintenance" } }))
        assert.strictEqual((yield* gatewayError(gateway.launch(launchRequest))).reason, "Unavailable")
        assert.strictEqual(fake.calls.length, 1)
        fake.calls.length = 0
        fake.script(() => ({ kind: "hang" }))
        assert.strictEqual((yield* gatewayError(gateway.launch(launchRequest))).reason, "Timeout")
        assert.strictEqual(fake.calls.length, 1)
        fake.reset()
      }))

    it.effect("an answer of another shape, or not JSON, is InvalidResponse", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const gateway = yield* CasinoGateway
        fake.reset()
        fake.script(() => ({ kind: "json", body: { url: 42 } }))
        const shape = yield* gatewayError(gateway.launch(launchRequest))
        assert.strictEqual(shape.reason, "InvalidResponse")
        assert.deepStrictEqual(shape.providerResponse, { url: 42 })
        fake.script(() => ({ kind: "text", body: "<html>oops</html>" }))
        assert.strictEqual((yield* gatewayError(gateway.launch(launchRequest))).reason, "InvalidResponse")
        fake.reset()
      }))
  })
})

layer(Hub88AgainstFake({ signingKey: makeKeyPair() }), live)("Hub88 adapter signing with a key Hub88 lacks", (it) => {
  it.effect("is refused by Hub88 (the fake checks every signature): Rejected, and no key material in the error", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const gateway = yield* CasinoGateway
      const error = yield* gatewayError(gateway.launch(launchRequest))
      assert.strictEqual(error.reason, "Rejected")
      assert.include(error.message, "HTTP 401")
      assert.include(error.message, "Invalid signature")
      assert.strictEqual((yield* gatewayError(gateway.providers)).reason, "Rejected")
      assert.strictEqual(fake.calls.length, 2, "a 401 is not retried")
      const shown = JSON.stringify(error) + String(error)
      assert.notInclude(shown, "PRIVATE KEY")
      assert.notInclude(shown, operatorKeys.privatePem.split("\n")[1])
    }))
})

describe("Hub88 launch body", () => {
  it("passes the launch's options through in Hub88's names: mobile, country, IP, lobby and deposit URLs, meta", () => {
    const body = Hub88Gateway.launchBody({
      request: { ...launchRequest, currency: currency("KWD"), lang: "en" },
      token: "v1.token",
      operatorId,
      subPartnerId: Option.none(),
      options: {
        platform: "mobile",
        country: "BR",
        ip: "203.0.113.7",
        lobbyUrl: "https://casino.example/lobby",
        depositUrl: "https://casino.example/deposit",
        meta: { partner: "acme" }
      }
    })
    assert.deepStrictEqual(body, {
      user: "100042",
      token: "v1.token",
      platform: "GPL_MOBILE",
      operator_id: operatorId,
      lang: "en",
      game_code: "clt_dragonrising",
      currency: "KWD",
      country: "BR",
      lobby_url: "https://casino.example/lobby",
      deposit_url: "https://casino.example/deposit",
      ip: "203.0.113.7",
      meta: { partner: "acme" }
    })
  })
})
