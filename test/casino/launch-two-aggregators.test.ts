/**
 * One deployment, two aggregators (CASINO_GATEWAY=playfiver,hub88): both catalogues synced over real HTTP from the
 * fakes (PlayFiver's and Hub88's, one port, told apart by path) into real PostgreSQL, listed side by side; the
 * studio both offer (PG Soft) served by one, the other's game a 422; the operator's switch moves it; launches routed
 * to their game's aggregator with platform and country; /status showing each aggregator.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { ValidationFailed } from "../../src/client/PartnerClient.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import { givenPartner, givenSyncedCatalog, request, validationErrors } from "../support/TestApp.ts"
import { TwoAggregatorsApp } from "../support/TwoAggregators.ts"

const gameUrlPath = "/operator/generic/v2/game/url"

const givenClient = Effect.flatMap(
  givenPartner(),
  (given) => Effect.map(partnerClient(given.token), (client) => ({ ...given, client }))
)

const launch = (fields: { readonly provider: string; readonly game_code: string } & Record<string, unknown>) => ({
  external_player_id: "two-player",
  player_balance: "80.00",
  ...fields
})

/** A launch over the wire as sent, unchecked by the typed client: its 422's failing fields. */
const refusedFields = (token: string, body: unknown) =>
  Effect.map(
    request("POST", "/api/partner/v1/launch", { headers: { authorization: `Bearer ${token}` }, json: body }),
    (response) => {
      assert.strictEqual(response.status, 422)
      return Object.keys(validationErrors(response))
    }
  )

/** The 422's errors of a launch. */
const refusal = (call: Effect.Effect<unknown, unknown>) =>
  Effect.map(failsWith(ValidationFailed)(call), (failed) => failed.errors)

const serveBy = (aggregator: string) => CasinoCatalog.use((catalog) => catalog.setStudioServer("pgsoft", aggregator))

layer(TwoAggregatorsApp(), live)("CASINO_GATEWAY=playfiver,hub88", (it) => {
  it.effect("lists both catalogues side by side; PG Soft, offered by both, once: the first listed serves it", () =>
    Effect.gen(function*() {
      yield* serveBy("playfiver")
      yield* givenSyncedCatalog
      const { client } = yield* givenClient
      const providers = yield* client.casino.providers()
      assert.deepStrictEqual(providers.data.list.map((p) => p.provider), [
        "crazy-tooth-studio",
        "pg-soft",
        "pragmatic-play"
      ])
      const pg = yield* client.casino.games({ query: { provider: "pg-soft" } })
      assert.deepStrictEqual(pg.data.games.map((g) => g.game_code).sort(), ["126", "1543462", "98"])
      const all = yield* client.casino.games({ query: { per_page: 100 } })
      assert.notInclude(all.data.games.map((g) => g.game_code), "pgs_fortunetiger", "Hub88's PG Soft is not listed")
      assert.include(all.data.games.map((g) => g.game_code), "clt_dragonrising")
    }))

  it.effect("a launch goes to its game's aggregator; the other's game of a shared studio is a 422 naming game_code", () =>
    Effect.gen(function*() {
      yield* serveBy("playfiver")
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      fake.reset()
      const { client } = yield* givenClient
      const pf = yield* client.casino.launch({ payload: launch({ provider: "pg-soft", game_code: "126" }) })
      assert.include(pf.data.launch.url, "https://games.example/launch")
      const hub = yield* client.casino.launch({
        payload: launch({ provider: "crazy-tooth-studio", game_code: "clt_dragonrising" })
      })
      assert.include(hub.data.launch.url, "https://games.hub88.example/launch/clt_dragonrising")
      const sent = fake.calls.find((call) => call.path === gameUrlPath)!.body as Record<string, unknown>
      assert.deepInclude(sent, { platform: "GPL_DESKTOP", currency: "BRL", game_code: "clt_dragonrising" })
      assert.notProperty(sent, "country")

      const errors = yield* refusal(
        client.casino.launch({ payload: launch({ provider: "pg-soft", game_code: "pgs_fortunetiger" }) })
      )
      assert.deepStrictEqual(Object.keys(errors ?? {}), ["game_code"])
    }))

  it.effect("the operator's switch moves the shared studio: Hub88 serves PG Soft, PlayFiver's game is the 422", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      yield* serveBy("hub88")
      const fake = yield* FakeUpstream
      fake.reset()
      const { client } = yield* givenClient
      const pg = yield* client.casino.games({ query: { provider: "pg-soft" } })
      assert.deepStrictEqual(pg.data.games.map((g) => g.game_code), ["pgs_fortunetiger"])
      const hub = yield* client.casino.launch({
        payload: launch({ provider: "pg-soft", game_code: "pgs_fortunetiger" })
      })
      assert.include(hub.data.launch.url, "pgs_fortunetiger")
      const errors = yield* refusal(
        client.casino.launch({ payload: launch({ provider: "pg-soft", game_code: "126" }) })
      )
      assert.deepStrictEqual(Object.keys(errors ?? {}), ["game_code"])
      yield* serveBy("playfiver")
    }))

  it.effect("platform and country pass through to Hub88 in its names; bad values are 422s naming the field", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const fake = yield* FakeUpstream
      fake.reset()
      const { client, token } = yield* givenClient
      const dragon = { provider: "crazy-tooth-studio", game_code: "clt_dragonrising" }
      yield* client.casino.launch({ payload: launch({ ...dragon, platform: "mobile", country: "BR" }) })
      const sent = fake.calls.find((call) => call.path === gameUrlPath)!.body as Record<string, unknown>
      assert.deepInclude(sent, { platform: "GPL_MOBILE", country: "BR" })

      // PlayFiver's protocol takes neither: they are not sent to it.
      fake.reset()
      yield* client.casino.launch({
        payload: launch({ provider: "pragmatic-play", game_code: "vs20fruitsw", platform: "mobile", country: "PT" })
      }).pipe(Effect.ignore)
      const pfCall = fake.calls.find((call) => call.path === "/api/v2/game_launch")
      if (pfCall !== undefined) {
        assert.notProperty(pfCall.body, "platform")
        assert.notProperty(pfCall.body, "country")
      }

      assert.deepStrictEqual(yield* refusedFields(token, launch({ ...dragon, platform: "tv" })), ["platform"])
      assert.deepStrictEqual(yield* refusedFields(token, launch({ ...dragon, country: "XX" })), ["country"])
      assert.deepStrictEqual(yield* refusedFields(token, launch({ ...dragon, country: "BRA" })), ["country"])
      assert.deepStrictEqual(yield* refusedFields(token, launch({ ...dragon, platform: 7 })), ["platform"])
    }))

  it.effect("/status shows each aggregator: configured, its last catalogue sync, the partner's wallet calls", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { client } = yield* givenClient
      const status = yield* client.account.status()
      assert.deepStrictEqual(status.data.aggregators.map((a) => [a.name, a.configured, a.wallet_calls]), [
        ["playfiver", true, 0],
        ["hub88", true, 0]
      ])
      for (const aggregator of status.data.aggregators) assert.isNotNull(aggregator.last_catalog_sync)
      assert.isTrue(status.data.aggregator_configured)
    }))

  it.effect("a test token reaches only the sandbox aggregator: its catalogue, its launch; neither fake is called", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { test } = yield* givenPartner()
      const fake = yield* FakeUpstream
      fake.reset()
      const client = yield* partnerClient(test.token)
      const providers = yield* client.casino.providers()
      assert.strictEqual(providers.partner.environment, "test")
      assert.notInclude(providers.data.list.map((p) => p.provider), "crazy-tooth-studio", "no Hub88 studio")
      const games = yield* client.casino.games({ query: { per_page: 100 } })
      assert.notInclude(games.data.games.map((g) => g.game_code), "clt_dragonrising")
      const refused = yield* refusal(
        client.casino.launch({ payload: launch({ provider: "crazy-tooth-studio", game_code: "clt_dragonrising" }) })
      )
      assert.includeMembers(Object.keys(refused ?? {}), ["provider"])
      const game = games.data.games[0]
      const launched = yield* client.casino.launch({
        payload: launch({ provider: game.provider, game_code: game.game_code })
      })
      assert.match(launched.data.launch.url, /\/sandbox\/casino\/play\/test\./)
      assert.deepStrictEqual(fake.calls.map((call) => call.path), [], "no call reached PlayFiver or Hub88")
    }))
})
