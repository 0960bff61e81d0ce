import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { healthyAggregator } from "../support/PlayFiverScripts.ts"
import { live } from "../support/live.ts"
import { makeLogCapture } from "../support/LogCapture.ts"
import { InternalError } from "../../src/client/PartnerClient.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import { givenPartner, givenSyncedCatalog, TestAppWith, testCasinoConfig } from "../support/TestApp.ts"

const logs = makeLogCapture()

/** The whole service with CASINO_GATEWAY=playfiver, talking HTTP to a fake aggregator. */
const PlayFiverApp = TestAppWith(
  Layer.effect(
    CasinoConfig,
    Effect.map(Effect.service(FakeUpstream), (fake) =>
      testCasinoConfig({
        gateways: ["playfiver"],
        timeout: Duration.millis(500),
        playfiver: {
          baseUrl: fake.url,
          agentToken: Option.some(Redacted.make("agent-1")),
          secretKey: Option.some(Redacted.make("secret-1")),
          currency: "BRL"
        }
      }))
  )
).pipe(Layer.provideMerge(FakeUpstream.layer(healthyAggregator)), Layer.provide(logs.layer))

/** The log lines of failed launches since `from`, as text. */
const launchFailureLogs = (from: number) =>
  logs.entries.slice(from).filter((entry) => JSON.stringify(entry.message).includes("Game launch failed")).map((
    entry
  ) => JSON.stringify(entry.annotations))

/** The balance in cents, as the typed client takes it (80.00). */
const launchBody = {
  external_player_id: "pf-player",
  player_balance: "80.00",
  provider: "pg-soft",
  game_code: "126"
}

const givenClient = Effect.flatMap(
  givenPartner(),
  (given) => Effect.map(partnerClient(given.token), (client) => ({ ...given, client }))
)

layer(PlayFiverApp, live)("POST /launch through PlayFiver", (it) => {
  it.effect("syncs the aggregator's catalog: enabled providers listed, disabled games flagged", () =>
    Effect.gen(function*() {
      const report = yield* givenSyncedCatalog
      assert.deepStrictEqual(report.providers.added + report.providers.changed, report.providers.added)
      const { client } = yield* givenClient
      const providers = yield* client.casino.providers()
      assert.deepStrictEqual(providers.data.list.map((p) => p.provider), ["pg-soft", "pragmatic-play"])
      const games = yield* client.casino.games({ query: { provider: "pg-soft" } })
      assert.deepStrictEqual(
        games.data.games.map((g) => [g.game_code, g.enabled]),
        [["98", true], ["1543462", false], ["126", true]] // by name: Ox, Rabbit, Tiger
      )
    }))

  it.effect("answers the aggregator's launch URL; the user code sent is the player's internal_user_id", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      fake.reset()
      const { client } = yield* givenClient
      const response = yield* client.casino.launch({ payload: launchBody })
      const player = response.data.partner_player
      assert.strictEqual(
        response.data.launch.url,
        `https://games.example/launch?user=${player.internal_user_id}&game=126`
      )
      const sent = fake.calls.find((call) => call.path === "/api/v2/game_launch")!
      assert.deepInclude(sent.body, {
        user_code: String(player.internal_user_id),
        game_code: "126",
        provider: "PG Soft",
        user_balance: 80,
        lang: "pt",
        game_original: true
      })
    }))

  it.effect("a launch in a currency the agent does not play in (PLAYFIVER_CURRENCY BRL) is a 422 naming currency, unasked", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      fake.reset()
      const { client } = yield* givenClient
      const refused = yield* Effect.flip(client.casino.launch({ payload: { ...launchBody, currency: "JPY" } }))
      assert.deepStrictEqual((refused as { readonly errors?: unknown }).errors, {
        currency: [
          "The currency field names \"JPY\", which this game's aggregator does not serve: send another currency, or " +
          "launch a game whose aggregator serves it."
        ]
      })
      assert.isFalse(fake.calls.some((call) => call.path === "/api/v2/game_launch"), "the aggregator is not asked")
    }))

  it.effect("an upstream refusal is a 500 envelope with a plain message; the aggregator's answer goes to the log; the player row stays valid", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      const { client, partner } = yield* givenClient
      fake.script((call) =>
        call.path === "/api/v2/game_launch"
          ? { kind: "json", body: { status: false, msg: "INSUFFICIENT_AGENT_BALANCE" } }
          : healthyAggregator(call)
      )
      const logged = logs.entries.length
      const refused = yield* failsWith(InternalError)(
        client.casino.launch({ payload: { ...launchBody, player_balance: "42.50" } })
      ) // a 500
      fake.reset()
      const { message, provider, provider_response, success } = refused
      assert.deepStrictEqual({ success, message, provider, provider_response }, {
        success: false,
        message: "The game could not be launched: the casino aggregator refused it.",
        provider: "playfiver",
        provider_response: undefined
      })
      const [line] = launchFailureLogs(logged)
      assert.include(line, "INSUFFICIENT_AGENT_BALANCE")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ balance: string; currency: string }>`
        SELECT balance::text, currency FROM partner_players
        WHERE partner_id = ${partner.id} AND external_player_id = 'pf-player'
      `
      // 42.50 BRL, in BRL's minor units (the only currency PlayFiver's gateway serves).
      assert.deepStrictEqual(rows.map((row) => [row.balance, row.currency]), [["4250", "BRL"]])
    }))

  it.effect("an aggregator's error page or a dropped connection: the partner learns neither the page nor the aggregator's address; the log has both", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      const { client } = yield* givenClient
      const page = `<html><title>502 Bad Gateway</title><body>nginx/1.25.3 upstream ${"x".repeat(2_000)}</body></html>`
      const cases = [
        [
          { kind: "text", status: 502, body: page },
          "The game could not be launched: the casino aggregator is unavailable.",
          "nginx/1.25.3"
        ],
        [
          { kind: "text", status: 200, body: page },
          "The game could not be launched: the casino aggregator's answer could not be used.",
          "nginx/1.25.3"
        ],
        [{ kind: "close" }, "The game could not be launched: the casino aggregator is unavailable.", fake.url]
      ] as const
      for (const [answer, expected, inLog] of cases) {
        fake.script((call) => call.path === "/api/v2/game_launch" ? answer : healthyAggregator(call))
        const logged = logs.entries.length
        const refused = yield* failsWith(InternalError)(client.casino.launch({ payload: launchBody }))
        fake.reset()
        assert.strictEqual(refused.message, expected, answer.kind)
        assert.strictEqual(refused.provider_response, undefined, answer.kind)
        const wire = JSON.stringify(refused)
        for (const secret of ["nginx", "xxxx", fake.url, new URL(fake.url).host]) {
          assert.notInclude(wire, secret, answer.kind)
        }
        const [line] = launchFailureLogs(logged)
        assert.include(line, inLog, answer.kind)
      }
    }))

  it.effect("an aggregator that hangs is a 500 naming the time-out, within it", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      const { client } = yield* givenClient
      fake.script((call) => call.path === "/api/v2/game_launch" ? { kind: "hang" } : healthyAggregator(call))
      const started = Date.now()
      const refused = yield* failsWith(InternalError)(client.casino.launch({ payload: launchBody })) // a 500
      fake.reset()
      assert.strictEqual(
        refused.message,
        "The game could not be launched: the casino aggregator did not answer in time."
      )
      // The time-out ended it, not the hang: far below the test's own limit, whatever the machine's load.
      assert.isBelow(Date.now() - started, 10_000)
    }))
})
