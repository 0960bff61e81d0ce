/**
 * A test token reaches only the sandboxes, whatever CASINO_GATEWAY and SPORTS_PROVIDER say: the whole
 * service configured with the real adapters (PlayFiver and BetsAPI) pointed at fake servers that count
 * their calls. Every partner endpoint called with a test token answers from the sandbox aggregator and
 * the sandbox's sports data, and the fakes count no call; the same partner's live token reaches them.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { NotFound } from "../../src/client/PartnerClient.ts"
import { serveRoutes } from "../../src/platform/HttpServe.ts"
import { MaxBodySizeLive } from "../../src/platform/RequestBody.ts"
import { RoutesLive } from "../../src/routes.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { betsApiToken, healthyBetsApi } from "../support/BetsApiScripts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { healthyAggregator } from "../support/PlayFiverScripts.ts"
import {
  givenPartner,
  givenSyncedCatalog,
  request,
  testCasinoConfig,
  testCatalogConfig,
  TestServicesWith,
  testSportsConfig
} from "../support/TestApp.ts"
import { SportsCatalogConfig } from "../../src/sports/catalog/SportsCatalogConfig.ts"

class FakeAggregator extends Context.Service<FakeAggregator, FakeUpstream["Service"]>()("test/FakeAggregator") {}
class FakeBetsApi extends Context.Service<FakeBetsApi, FakeUpstream["Service"]>()("test/FakeBetsApi") {}

const Fakes = Layer.merge(
  Layer.effect(FakeAggregator, Effect.service(FakeUpstream)).pipe(Layer.provide(FakeUpstream.layer(healthyAggregator))),
  Layer.effect(FakeBetsApi, Effect.service(FakeUpstream)).pipe(Layer.provide(FakeUpstream.layer(healthyBetsApi)))
)

/** CASINO_GATEWAY=playfiver and SPORTS_PROVIDER=betsapi, each at its fake. */
const RealAdapters = Layer.mergeAll(
  Layer.effect(
    CasinoConfig,
    Effect.map(Effect.service(FakeAggregator), (fake) =>
      testCasinoConfig({
        gateways: ["playfiver"],
        timeout: Duration.seconds(1),
        playfiver: {
          baseUrl: fake.url,
          agentToken: Option.some(Redacted.make("agent-1")),
          secretKey: Option.some(Redacted.make("secret-1")),
          currency: "BRL"
        }
      }))
  ),
  Layer.effect(
    SportsConfig,
    Effect.map(Effect.service(FakeBetsApi), (fake) =>
      testSportsConfig({
        provider: "betsapi",
        betsapi: { baseUrl: fake.url, token: Option.some(Redacted.make(betsApiToken)) }
      }))
  ),
  // The test catalog's own refreshes run in this process: none during the test.
  Layer.succeed(
    SportsCatalogConfig,
    testCatalogConfig({ refreshInterval: Duration.hours(1), liveRefreshInterval: Duration.hours(1) })
  )
)

const App = serveRoutes(RoutesLive, { disableListenLog: true }).pipe(
  Layer.provide(MaxBodySizeLive),
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provideMerge(TestServicesWith(RealAdapters)),
  Layer.provideMerge(Fakes)
)

/** Every call either fake received, by path. */
const upstreamCalls = Effect.gen(function*() {
  const aggregator = yield* FakeAggregator
  const betsApi = yield* FakeBetsApi
  return [...aggregator.calls, ...betsApi.calls].map((call) => call.path)
})

const resetFakes = Effect.gen(function*() {
  ;(yield* FakeAggregator).reset()
  ;(yield* FakeBetsApi).reset()
})

layer(App, live)("a test token on a service configured with the real upstreams", (it) => {
  it.effect("every partner endpoint answers from the sandboxes, and no call reaches the aggregator or BetsAPI", () =>
    Effect.gen(function*() {
      // The partner's test wallet: the sandbox partner wallet of this very service, named as its test callback URL.
      const origin = `http://127.0.0.1:${((yield* HttpServer.HttpServer).address as { readonly port: number }).port}`
      const { token, test } = yield* givenPartner({
        name: "Sandbox Integrator",
        testCallbackUrl: `${origin}${sandboxPartnerWalletPath}?environment=test`
      })
      yield* resetFakes
      assert.match(test.token, /^pak_test_/)
      const client = yield* partnerClient(test.token)

      const status = yield* client.account.status()
      assert.strictEqual(status.data.partner.environment, "test")
      assert.deepStrictEqual(status.data.sports_gateway, { configured: true, provider: "sandbox" })
      assert.isTrue(status.data.aggregator_configured)

      // The casino: the sandbox aggregator's catalog, and a launch on its game page.
      const providers = yield* client.casino.providers()
      assert.strictEqual(providers.partner.environment, "test")
      assert.strictEqual(providers.data.list.length, 12)
      const games = yield* client.casino.games({ query: { enabled: "true", per_page: 5 } })
      const game = games.data.games[0]
      assert.isAbove(games.data.meta.total, 300)
      const launched = yield* client.casino.launch({
        payload: {
          external_player_id: "sbx-1",
          player_balance: "50.00",
          provider: game.provider,
          game_code: game.game_code
        }
      })
      assert.match(launched.data.launch.url, /\/sandbox\/casino\/play\/test\.[A-Za-z0-9_-]+$/)
      // Play on the sandbox's game page: the spin's wallet calls reach the partner's test wallet, and the
      // reconciliation lookups of the test token show it; the live token's show nothing of it.
      const spin = yield* request("POST", `${new URL(launched.data.launch.url).pathname}/spin`, { json: { bet: 2 } })
      assert.strictEqual(spin.status, 200, JSON.stringify(spin.body))
      const testLedger = yield* client.wallet.transactions({ query: { external_player_id: "sbx-1" } })
      assert.strictEqual(testLedger.data.meta.total, 1, JSON.stringify(testLedger.data))
      assert.strictEqual(testLedger.data.transactions[0].answer?.msg, "")
      const liveLedger = yield* (yield* partnerClient(token)).wallet.transactions({
        query: { external_player_id: "sbx-1" }
      })
      assert.strictEqual(liveLedger.data.meta.total, 0)

      // The provider endpoints: the sandbox's sports data.
      assert.strictEqual((yield* client.sports.status()).data.provider, "sandbox")
      assert.strictEqual((yield* client.sports.leagues({ query: { sport_id: 1 } })).data.provider, "sandbox")
      const upcoming = yield* client.sports.upcoming({ query: { sport_id: 1 } })
      assert.isAbove(upcoming.data.results.length, 0)
      const inPlay = yield* client.sports.live({ query: { sport_id: 1 } })
      yield* client.sports.ended({ query: { sport_id: 1 } })

      // The catalog and feeds: the sandbox's, so their event ids work on the provider endpoints.
      yield* client.catalog.refresh({ payload: null })
      assert.isAbove((yield* client.catalog.overview()).data.events_total, 0)
      for (
        const list of [client.catalog.sports, client.catalog.countries, client.catalog.leagues, client.catalog.teams]
      ) {
        assert.isAbove((yield* list({ query: {} })).data.results.length, 0)
      }
      assert.isAbove((yield* client.catalog.filters({ query: {} })).data.leagues.length, 0)
      const prematch = yield* client.catalog.prematch({ query: { per_page: 20 } })
      assert.isAbove(prematch.data.results.length, 0)
      for (const entry of prematch.data.results.slice(0, 5)) {
        const eventId = entry.event_id
        assert.strictEqual((yield* client.sports.odds({ params: { eventId }, query: {} })).data.event_id, eventId)
        // Known to the test provider: its line-up, or the sandbox's word that it has none yet (not an unknown event).
        const lineup = yield* client.sports.lineup({ params: { eventId }, query: {} }).pipe(
          Effect.map((answer) => answer.data.event_id),
          Effect.catch((error) => error instanceof NotFound ? Effect.succeed(error.message) : Effect.fail(error))
        )
        assert.match(lineup, new RegExp(`^(${eventId}|No line-up is available for event ${eventId}\\.)$`))
      }
      const liveFeed = yield* client.catalog.live({ query: { per_page: 5 } })
      for (const entry of liveFeed.data.results) {
        const eventId = entry.event_id
        assert.strictEqual((yield* client.sports.liveEvent({ params: { eventId }, query: {} })).data.event_id, eventId)
        assert.strictEqual((yield* client.sports.liveOdds({ params: { eventId }, query: {} })).data.event_id, eventId)
        // Known to the test provider: its statistics, or the sandbox's word that it has none yet (a match just begun).
        const stats = yield* client.sports.statsTrend({ params: { eventId }, query: {} }).pipe(
          Effect.map((answer) => answer.data.event_id),
          Effect.catch((error) => error instanceof NotFound ? Effect.succeed(error.message) : Effect.fail(error))
        )
        assert.match(stats, new RegExp(`^(${eventId}|No statistics are available for event ${eventId}\\.)$`))
      }
      for (const event of inPlay.data.results.slice(0, 2)) {
        assert.strictEqual(
          (yield* client.sports.liveEvent({ params: { eventId: event.event_id }, query: {} })).data.event_id,
          event.event_id
        )
      }

      assert.deepStrictEqual(yield* upstreamCalls, [])
    }))

  it.effect("the same partner's live token reaches the aggregator and BetsAPI", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Live Operator" })
      yield* givenSyncedCatalog
      yield* resetFakes
      const client = yield* partnerClient(token)

      const status = yield* client.account.status()
      assert.strictEqual(status.data.partner.environment, "live")
      assert.deepStrictEqual(status.data.sports_gateway, { configured: true, provider: "betsapi" })

      const providers = yield* client.casino.providers()
      assert.deepStrictEqual(providers.data.list.map((p) => p.provider), ["pg-soft", "pragmatic-play"])
      const launched = yield* client.casino.launch({
        payload: { external_player_id: "live-1", player_balance: "50.00", provider: "pg-soft", game_code: "126" }
      })
      assert.match(launched.data.launch.url, /^https:\/\/games\.example\/launch/)

      assert.strictEqual((yield* client.sports.status()).data.provider, "betsapi")
      assert.strictEqual((yield* client.sports.leagues({ query: { sport_id: 1 } })).data.provider, "betsapi")
      yield* client.catalog.refresh({ payload: null })
      const prematch = yield* client.catalog.prematch({ query: {} })
      assert.deepStrictEqual(prematch.data.results.map((entry) => entry.event_id), ["1002"])

      const calls = yield* upstreamCalls
      assert.include(calls, "/api/v2/game_launch")
      assert.include(calls, "/v1/league")
      assert.include(calls, "/v3/events/upcoming")
    }))
})
