import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Scope } from "effect"
import { makeWorkerUtils } from "graphile-worker"
import { Client } from "pg"
import { SqlClient } from "effect/sql"
import { CatalogSchedule } from "../../../src/sports/catalog/CatalogSchedule.ts"
import { CatalogApp, type ProviderData } from "../../support/CatalogApp.ts"
import { catalogProvider, providerEvents } from "../../support/CatalogScripts.ts"
import { FleetInstance } from "../../support/FleetApp.ts"
import { TestDatabaseUrl, TestDatabaseUrlLive } from "../../support/TestDatabase.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { eventually, live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { givenPartner } from "../../support/TestApp.ts"

const providerData: ProviderData = { events: providerEvents() }

layer(
  CatalogSchedule.pipe(
    Layer.provideMerge(
      CatalogApp(providerData, {
        catalog: { refreshInterval: Duration.millis(600), liveRefreshInterval: Duration.millis(150) }
      })
    )
  ),
  live
)("the scheduled refresh", (it) => {
  it.effect("fills an empty catalog at start-up, then follows the provider with no partner asking", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      // Start-up waited for the first refresh: the feeds are there already.
      const client = yield* partnerClient(token)
      const overview = yield* client.catalog.overview()
      assert.strictEqual(overview.data.events_total, 129)

      // A goal in play is picked up by the live refresh.
      providerData.events = providerEvents().map((event) =>
        event.id === "80001" ? { ...event, ss: "3-2", minute: 71 } : event
      )
      const liveEntry = yield* eventually(
        client.catalog.live({ query: { per_page: 50 } }),
        (response) => response.data.results.some((e) => e.event_id === "80001" && e.score === "3-2"),
        "the new score in the live feed"
      )
      assert.deepInclude(
        liveEntry.data.results.find((e) => e.event_id === "80001"),
        { score: "3-2", minute: 71 }
      )

      // A new fixture is picked up by the full refresh.
      const template = providerEvents().find((event) => event.timeStatus === 0)!
      providerData.events = [...providerData.events, { ...template, id: "79999" }]
      yield* eventually(
        client.catalog.overview(),
        (response) => response.data.events_total === 130,
        "the new fixture in the catalog"
      )
      const fake = yield* FakeUpstream
      assert.isAbove(fake.calls.filter((call) => call.path === "/v3/events/inplay").length, 1)
    }))
})

/** The catalog as a deployment on another provider left it: that provider's event 70000 is another match. */
const anotherWorld = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE sports_catalog_world SET provider = 'api-football'`
  yield* sql`INSERT INTO sports_leagues (id, sport_id, country_code, name, provider)
             VALUES ('77', 1, 'ar', 'Copa Sur', 'api-football')`
  yield* sql`
    INSERT INTO sports_events (id, sport_id, country_code, league_id, league_name, home_team_id, home_name,
                               away_team_id, away_name, starts_at, status, provider)
    VALUES ('70000', 1, 'ar', '77', 'Copa Sur', '1', 'Boca', '2', 'River', '2030-01-03T18:00:00Z', 'prematch',
            'api-football')`
}))

layer(CatalogSchedule.pipe(Layer.provideMerge(anotherWorld), Layer.provideMerge(CatalogApp())), live)(
  "the scheduled refresh after a switch of provider",
  (it) => {
    it.effect("fills at start-up: the catalog held none of this provider's events, and the other's leave", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const client = yield* partnerClient(token)
        const overview = yield* client.catalog.overview()
        assert.strictEqual(overview.data.events_total, 129)
        assert.strictEqual(overview.data.leagues_total, 4)
        const sql = yield* SqlClient.SqlClient
        assert.deepStrictEqual(yield* sql`SELECT DISTINCT provider FROM sports_events`, [{ provider: "betsapi" }])
        assert.deepStrictEqual(yield* sql`SELECT league_id FROM sports_events WHERE id = '70000'`, [{
          league_id: "900"
        }])
      }))
  }
)

const stoppingProviderData: ProviderData = { events: providerEvents() }
const fullRefreshKey = "sports-catalog:full@600000ms"

/** A connection of the test's own to the test's database. */
const connection = Effect.acquireRelease(
  Effect.flatMap(Effect.service(TestDatabaseUrl), (url) =>
    Effect.promise(async () => {
      const client = new Client({ connectionString: url })
      await client.connect()
      return client
    })),
  (client) => Effect.promise(() => client.end())
)

const query = (client: Client, text: string, values: Array<unknown> = []) =>
  Effect.promise(() => client.query(text, values)).pipe(Effect.map((result) => result.rows))

layer(Layer.mergeAll(FakeUpstream.layer(catalogProvider(stoppingProviderData)), TestDatabaseUrlLive), live)(
  "a stop during a scheduled refresh",
  (it) => {
    it.effect(
      "interrupts it: the stop does not wait, its transaction is rolled back, and its job runs again at once",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const url = yield* TestDatabaseUrl
          // Refreshes every 10 minutes: nothing runs on its own during the test but the start-up fill.
          const instance = () =>
            FleetInstance({
              redisUrl: undefined,
              keyPrefix: "unused:",
              scheduled: true,
              catalog: {
                sportIds: [1, 18],
                refreshInterval: Duration.minutes(10),
                liveRefreshInterval: Duration.minutes(10)
              }
            })
          const scope = yield* Scope.make()
          yield* Layer.buildWithScope(instance(), scope)
          const client = yield* connection
          const leagueName = () =>
            Effect.map(query(client, "SELECT name FROM sports_leagues WHERE id = '900'"), (rows) => rows[0]?.name)
          assert.strictEqual(yield* leagueName(), "Premier Division", "filled at start")

          // The provider renames a league; the refresh that picks it up writes the leagues, then waits on the
          // events, which the test holds locked: it is stopped half-way through its transaction.
          stoppingProviderData.events = providerEvents().map((event) =>
            event.league.id === "900"
              ? { ...event, league: { ...event.league, name: "Premier Division Renamed" } }
              : event
          )
          const locker = yield* connection
          yield* query(locker, "BEGIN")
          yield* query(locker, "LOCK TABLE sports_events IN ACCESS EXCLUSIVE MODE")
          const utils = yield* Effect.acquireRelease(
            Effect.promise(() => makeWorkerUtils({ connectionString: url })),
            (utils) => Effect.promise(async () => utils.release())
          )
          // The full refresh falls due now (as it would at its interval).
          yield* Effect.promise(() =>
            utils.addJob("sports-catalog:full", {}, { jobKey: fullRefreshKey, runAt: new Date(), maxAttempts: 1 })
          )
          yield* eventually(
            query(
              client,
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%sports_events%'"
            ),
            (rows) => rows[0].n >= 1,
            "the refresh waiting on the locked events"
          )

          // The stop ends without waiting for the lock.
          yield* Scope.close(scope, Exit.void).pipe(
            Effect.timeoutOrElse({
              duration: "20 seconds",
              orElse: () => Effect.die("the stop waited for the refresh")
            })
          )
          yield* query(locker, "ROLLBACK")
          assert.strictEqual(yield* leagueName(), "Premier Division", "the interrupted refresh wrote nothing")
          const [job] = yield* query(
            client,
            "SELECT run_at <= now() AS due, locked_at IS NULL AS free FROM graphile_worker.jobs WHERE key = $1",
            [fullRefreshKey]
          )
          assert.deepStrictEqual(job, { due: true, free: true }, "the refresh is due again at once")

          // The next instance to start takes it at once.
          yield* Layer.build(instance())
          yield* eventually(leagueName(), (name) => name === "Premier Division Renamed", "the refresh run again")
        })),
      60_000
    )
  }
)
