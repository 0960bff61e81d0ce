import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { SportsCatalog } from "../../../src/sports/catalog/SportsCatalog.ts"
import { InternalError } from "../../../src/client/PartnerClient.ts"
import { CatalogApp, type ProviderData, refresh, refreshOnTheWire } from "../../support/CatalogApp.ts"
import { catalogProvider, providerEvents } from "../../support/CatalogScripts.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { dataAs, givenPartner } from "../../support/TestApp.ts"

const fullCatalog = { sports: 2, countries: 3, leagues: 4, teams: 16, events: 129 }

const tableCounts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<
    { sports: number; countries: number; leagues: number; teams: number; events: number; active: number }
  >`
    SELECT (SELECT count(*) FROM sports_sports)::int AS sports, (SELECT count(*) FROM sports_countries)::int AS countries,
           (SELECT count(*) FROM sports_leagues)::int AS leagues, (SELECT count(*) FROM sports_teams)::int AS teams,
           (SELECT count(*) FROM sports_events)::int AS events,
           (SELECT count(*) FROM sports_events WHERE active)::int AS active
  `
  return row
})

layer(CatalogApp(), live)("POST /sports/catalog/refresh", (it) => {
  it.effect("imports by pages, echoes what was asked, says what was imported; overview follows", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const response = yield* refresh(token)
      const data = response.data
      assert.deepInclude(data, { sport_id: null, import_leagues: true, import_events: true })
      assert.deepStrictEqual(data.imported, { ...fullCatalog, deactivated: 0 })
      assert.match(data.message, /^Imported 2 sports, 3 countries, 4 leagues, 16 teams and 129 events from betsapi/)
      assert.strictEqual(response.message, data.message)

      // 90 upcoming soccer events are two pages of 50 upstream: both were read.
      const fake = yield* FakeUpstream
      const pages = fake.calls.filter((call) => call.path === "/v3/events/upcoming" && call.query.sport_id === "1")
      assert.sameMembers(pages.map((call) => call.query.page), ["1", "2"])

      const overview = yield* (yield* partnerClient(token)).catalog.overview()
      assert.deepStrictEqual(overview.data, {
        sports_total: 2,
        countries_total: 3,
        leagues_total: 4,
        teams_total: 16,
        events_total: 129
      })
    }))

  it.effect("is idempotent: a second refresh changes nothing and duplicates nothing", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      yield* refresh(token)
      const sql = yield* SqlClient.SqlClient
      const before = yield* sql`SELECT id, last_update FROM sports_events ORDER BY id`
      const again = yield* refresh(token, {})
      assert.match(again.data.message, /: 0 records new or changed, 0 deactivated\.$/)
      const after = yield* sql`SELECT id, last_update FROM sports_events ORDER BY id`
      assert.deepStrictEqual(after, before)
      assert.deepStrictEqual(yield* tableCounts, { ...fullCatalog, active: 129 })
      // No body at all (the typed client sends a JSON null) is the same whole refresh.
      const bare = yield* refreshOnTheWire(token)
      assert.strictEqual(bare.status, 200)
      assert.match(
        dataAs(Schema.Struct({ message: Schema.String }))(bare).message,
        /: 0 records new or changed, 0 deactivated\.$/
      )
    }))

  it.effect("sport_id (as id or name) and the import flags narrow it", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const leaguesOnly = yield* refresh(token, { sport_id: "basketball", import_events: false })
      assert.deepInclude(leaguesOnly.data, { sport_id: "basketball", import_leagues: true, import_events: false })
      assert.deepInclude(leaguesOnly.data.imported, { sports: 1, leagues: 1, events: 0, teams: 0 })
      const byId = yield* refresh(token, { sport_id: 18, import_leagues: false })
      assert.deepInclude(byId.data, { sport_id: 18, import_leagues: false, import_events: true })
      assert.deepInclude(byId.data.imported, { sports: 1, events: 34 })
    }))

  it.effect("a sport id the provider lists nothing for leaves nothing: no \"Sport 987654\" for every partner to see", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      yield* refresh(token)
      const before = yield* tableCounts
      const unknown = yield* refresh(token, { sport_id: 987654 })
      assert.deepInclude(unknown.data.imported, { sports: 0, leagues: 0, events: 0 })
      assert.deepStrictEqual(yield* tableCounts, before)
      const sports = yield* (yield* partnerClient(token)).catalog.sports({ query: { per_page: 200 } })
      assert.notInclude(sports.data.results.map((sport) => sport.id), 987654)
    }))

  it.effect("refreshes at once, several from here and two other instances, neither fail nor duplicate", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      // Two more SportsCatalog services over the same database stand for two more instances.
      const otherInstance = Effect.flatMap(Effect.service(SportsCatalog), (catalog) => catalog.refresh(null)).pipe(
        Effect.provide(Layer.fresh(SportsCatalog.layer))
      )
      // Each one succeeds (a failed refresh fails the test), here a decoded envelope, there the service's result.
      const results = yield* Effect.all([
        refresh(token),
        refresh(token),
        refresh(token, { sport_id: 1 }),
        otherInstance,
        otherInstance
      ], { concurrency: "unbounded" })
      assert.lengthOf(results, 5)
      assert.deepStrictEqual(yield* tableCounts, { ...fullCatalog, active: 129 })
    }))
})

describe("when the provider changes", () => {
  const providerData: ProviderData = { events: providerEvents() }

  layer(CatalogApp(providerData), live)("a later refresh", (it) => {
    it.effect("keeps what vanished as inactive, and takes renamed leagues, new scores and new states", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        providerData.events = providerEvents()
        yield* refresh(token)
        const removed = providerData.events.filter((event) => event.timeStatus === 0).slice(0, 10).map((event) =>
          event.id
        )
        providerData.events = providerEvents()
          .filter((event) => !removed.includes(event.id))
          .map((event) =>
            event.id === "80000" ?
              { ...event, ss: "5-5", minute: 88 } :
              event.league.id === "900" ?
              { ...event, league: { ...event.league, name: "Premier Division Renamed" } } :
              event
          )
        const again = yield* refresh(token)
        assert.strictEqual(again.data.imported.deactivated, 10)
        const client = yield* partnerClient(token)
        const feed = yield* client.catalog.prematch({ query: { per_page: 200 } })
        assert.strictEqual(feed.data.meta.total, 110)
        for (const id of removed) assert.notInclude(feed.data.results.map((e) => e.event_id), id)
        const liveFeed = yield* client.catalog.live({ query: { per_page: 200 } })
        assert.deepInclude(liveFeed.data.results.find((e) => e.event_id === "80000"), { score: "5-5", minute: 88 })
        const leagues = yield* client.catalog.leagues({ query: { league_id: "900" } })
        assert.strictEqual(leagues.data.results[0].name, "Premier Division Renamed")
        const overview = yield* client.catalog.overview()
        assert.strictEqual(overview.data.events_total, 119)
      }))
  })

  layer(CatalogApp(providerData), live)("a refresh that fails half-way", (it) => {
    it.effect("leaves the previous catalog exactly as it was, and says why in a 500", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        providerData.events = providerEvents()
        yield* refresh(token)
        const sql = yield* SqlClient.SqlClient
        const snapshot =
          sql`SELECT id, league_name, home_name, status, score, active, last_update FROM sports_events ORDER BY id`
        const before = yield* snapshot

        // The provider's data changes, but the provider fails on page 2 of the soccer fixtures.
        providerData.events = providerEvents().map((event) => ({
          ...event,
          home: { ...event.home, name: `${event.home.name} (new)` }
        }))
        const fake = yield* FakeUpstream
        const healthy = catalogProvider(providerData)
        fake.script((call) =>
          call.path === "/v3/events/upcoming" && call.query.sport_id === "1" && call.query.page === "2"
            ? { kind: "json", status: 500, body: { success: 0, error: "INTERNAL_SERVER_ERROR" } }
            : healthy(call)
        )
        const failed = yield* Effect.flip(refresh(token))
        fake.reset()
        assert.instanceOf(failed, InternalError) // the contract's 500
        const refused = failed as InternalError
        assert.match(refused.message, /^The catalog could not be refreshed: the sports provider could not be queried/)
        assert.strictEqual(refused.provider, "betsapi")
        assert.deepStrictEqual(refused.provider_response, { success: 0, error: "INTERNAL_SERVER_ERROR" })
        assert.deepStrictEqual(yield* snapshot, before)
      }))
  })

  layer(CatalogApp(providerData, { cacheTtl: "1 hour" }), live)("with catalog reads cached", (it) => {
    it.effect("a refresh that changes the catalog is seen at once", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        providerData.events = providerEvents()
        yield* refresh(token)
        const client = yield* partnerClient(token)
        const before = yield* client.catalog.prematch({ query: { league_id: "901", per_page: 1 } })
        assert.strictEqual(before.data.results[0].league_name, "Liga Primera")
        providerData.events = providerEvents().map((event) =>
          event.league.id === "901" ? { ...event, league: { ...event.league, name: "Liga Renamed" } } : event
        )
        yield* refresh(token)
        const after = yield* client.catalog.prematch({ query: { league_id: "901", per_page: 1 } })
        assert.strictEqual(after.data.results[0].league_name, "Liga Renamed")
      }))
  })
})
