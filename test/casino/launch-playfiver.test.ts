import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { healthyAggregator } from "../support/PlayFiverScripts.ts"
import { live } from "../support/live.ts"
import {
  bearer,
  givenPartner,
  givenSyncedCatalog,
  request,
  TestAppWith,
  testCasinoConfig
} from "../support/TestApp.ts"

/** The whole service with CASINO_GATEWAY=playfiver, talking HTTP to a fake aggregator. */
const PlayFiverApp = TestAppWith(
  Layer.effect(
    CasinoConfig,
    Effect.map(Effect.service(FakeUpstream), (fake) =>
      testCasinoConfig({
        gateway: "playfiver",
        timeout: Duration.millis(500),
        playfiver: {
          baseUrl: fake.url,
          agentToken: Option.some(Redacted.make("agent-1")),
          secretKey: Option.some(Redacted.make("secret-1"))
        }
      }))
  )
).pipe(Layer.provideMerge(FakeUpstream.layer(healthyAggregator)))

const launchBody = {
  external_player_id: "pf-player",
  player_balance: 80,
  provider: "pg-soft",
  game_code: "126"
}

layer(PlayFiverApp, live)("POST /launch through PlayFiver", (it) => {
  it.effect("syncs the aggregator's catalog: enabled providers listed, disabled games flagged", () =>
    Effect.gen(function*() {
      const report = yield* givenSyncedCatalog
      assert.deepStrictEqual(report.providers.added + report.providers.changed, report.providers.added)
      const { token } = yield* givenPartner()
      const providers = yield* request("GET", "/api/partner/v1/providers", { headers: bearer(token) })
      assert.deepStrictEqual(
        providers.body.data.list.map((p: { provider: string }) => p.provider),
        ["pg-soft", "pragmatic-play"]
      )
      const games = yield* request("GET", "/api/partner/v1/games?provider=pg-soft", { headers: bearer(token) })
      assert.deepStrictEqual(
        games.body.data.games.map((g: { game_code: string; enabled: boolean }) => [g.game_code, g.enabled]),
        [["98", true], ["1543462", false], ["126", true]] // by name: Ox, Rabbit, Tiger
      )
    }))

  it.effect("answers the aggregator's launch URL; the user code sent is the player's internal_user_id", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      fake.reset()
      const { token } = yield* givenPartner()
      const response = yield* request("POST", "/api/partner/v1/launch", { headers: bearer(token), json: launchBody })
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      const player = response.body.data.partner_player
      assert.strictEqual(response.body.data.launch.url, `https://games.example/launch?user=${player.internal_user_id}&game=126`)
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

  it.effect("an upstream refusal is a 500 envelope with the aggregator's answer; the player row stays valid", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      const { partner, token } = yield* givenPartner()
      fake.script((call) =>
        call.path === "/api/v2/game_launch"
          ? { kind: "json", body: { status: false, msg: "INSUFFICIENT_AGENT_BALANCE" } }
          : healthyAggregator(call)
      )
      const response = yield* request("POST", "/api/partner/v1/launch", {
        headers: bearer(token),
        json: { ...launchBody, player_balance: 42.5 }
      })
      fake.reset()
      assert.strictEqual(response.status, 500)
      assert.deepStrictEqual(response.body, {
        success: false,
        message: "The game could not be launched: The casino aggregator refused the launch: INSUFFICIENT_AGENT_BALANCE",
        provider: "playfiver",
        provider_response: { status: false, msg: "INSUFFICIENT_AGENT_BALANCE" }
      })
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ balance: string }>`
        SELECT balance::text FROM partner_players WHERE partner_id = ${partner.id} AND external_player_id = 'pf-player'
      `
      assert.deepStrictEqual(rows.map((row) => row.balance), ["42.50"])
    }))

  it.effect("an aggregator that hangs is a 500 naming the time-out, within it", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      const { token } = yield* givenPartner()
      fake.script((call) => call.path === "/api/v2/game_launch" ? { kind: "hang" } : healthyAggregator(call))
      const started = Date.now()
      const response = yield* request("POST", "/api/partner/v1/launch", { headers: bearer(token), json: launchBody })
      fake.reset()
      assert.strictEqual(response.status, 500)
      assert.match(response.body.message, /did not answer the game launch within 500ms/)
      assert.isBelow(Date.now() - started, 3_000)
    }))
})
