import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { SportsCatalog } from "../../src/catalog/SportsCatalog.ts"
import { api, CatalogApp, refresh, type World } from "../support/CatalogApp.ts"
import { catalogProvider, worldEvents } from "../support/CatalogScripts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { givenPartner } from "../support/TestApp.ts"

const fullWorld = { sports: 2, countries: 3, leagues: 4, teams: 16, events: 129 }

const tableCounts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ sports: number; countries: number; leagues: number; teams: number; events: number; active: number }>`
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
      assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      const data = response.body.data
      assert.deepInclude(data, { sport_id: null, import_leagues: true, import_events: true })
      assert.deepStrictEqual(data.imported, { ...fullWorld, deactivated: 0 })
      assert.match(data.message, /^Imported 2 sports, 3 countries, 4 leagues, 16 teams and 129 events from betsapi/)
      assert.strictEqual(response.body.message, data.message)

      // 90 upcoming soccer events are two pages of 50 upstream: both were read.
      const fake = yield* FakeUpstream
      const pages = fake.calls.filter((call) => call.path === "/v3/events/upcoming" && call.query.sport_id === "1")
      assert.sameMembers(pages.map((call) => call.query.page), ["1", "2"])

      const overview = yield* api(token, "/sports/catalog/overview")
      assert.deepStrictEqual(overview.body.data, {
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
      assert.match(again.body.data.message, /: 0 records new or changed, 0 deactivated\.$/)
      const after = yield* sql`SELECT id, last_update FROM sports_events ORDER BY id`
      assert.deepStrictEqual(after, before)
      assert.deepStrictEqual(yield* tableCounts, { ...fullWorld, active: 129 })
    }))

  it.effect("sport_id (as id or name) and the import flags narrow it", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const leaguesOnly = yield* refresh(token, { sport_id: "basketball", import_events: false })
      assert.deepInclude(leaguesOnly.body.data, { sport_id: "basketball", import_leagues: true, import_events: false })
      assert.deepInclude(leaguesOnly.body.data.imported, { sports: 1, leagues: 1, events: 0, teams: 0 })
      const byId = yield* refresh(token, { sport_id: 18, import_leagues: false })
      assert.deepInclude(byId.body.data, { sport_id: 18, import_leagues: false, import_events: true })
      assert.deepInclude(byId.body.data.imported, { sports: 1, events: 34 })
    }))

  it.effect("a sport id the provider lists nothing for leaves nothing: no \"Sport 987654\" for every partner to see", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      yield* refresh(token)
      const before = yield* tableCounts
      const unknown = yield* refresh(token, { sport_id: 987654 })
      assert.strictEqual(unknown.status, 200)
      assert.deepInclude(unknown.body.data.imported, { sports: 0, leagues: 0, events: 0 })
      assert.deepStrictEqual(yield* tableCounts, before)
      const sports = yield* api(token, "/sports/catalog/sports?per_page=200")
      assert.notInclude(sports.body.data.results.map((sport: { id: number }) => sport.id), 987654)
    }))

  it.effect("a body of the wrong types is a 422 naming every field; so is an unknown sport", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const wrong = yield* refresh(token, { sport_id: true, import_leagues: "yes", import_events: 1 })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(wrong.body.errors, {
        sport_id: ["The sport id field must be an integer or a string."],
        import_leagues: ["The import leagues field must be true or false."],
        import_events: ["The import events field must be true or false."]
      })
      const unknown = yield* refresh(token, { sport_id: "curling" })
      assert.deepStrictEqual([unknown.status, unknown.body.errors], [422, { sport_id: ["The selected sport id is invalid."] }])
      const notAnObject = yield* refresh(token, [1, 2])
      assert.deepStrictEqual(notAnObject.body.errors, { body: ["The request body must be a JSON object."] })
    }))

  it.effect("refreshes at once, several from here and two other instances, neither fail nor duplicate", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      // Two more SportsCatalog services over the same database stand for two more instances.
      const otherInstance = Effect.flatMap(Effect.service(SportsCatalog), (catalog) => catalog.refresh(null)).pipe(
        Effect.provide(Layer.fresh(SportsCatalog.layer))
      )
      const results = yield* Effect.all([
        refresh(token),
        refresh(token),
        refresh(token, { sport_id: 1 }),
        Effect.map(otherInstance, () => ({ status: 200 })),
        Effect.map(otherInstance, () => ({ status: 200 }))
      ], { concurrency: "unbounded" })
      for (const result of results) assert.strictEqual(result.status, 200)
      assert.deepStrictEqual(yield* tableCounts, { ...fullWorld, active: 129 })
    }))
})

describe("when the provider changes", () => {
  const world: World = { events: worldEvents() }

  layer(CatalogApp(world), live)("a later refresh", (it) => {
    it.effect("keeps what vanished as inactive, and takes renamed leagues, new scores and new states", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        world.events = worldEvents()
        yield* refresh(token)
        const removed = world.events.filter((event) => event.timeStatus === 0).slice(0, 10).map((event) => event.id)
        world.events = worldEvents()
          .filter((event) => !removed.includes(event.id))
          .map((event) =>
            event.id === "80000" ? { ...event, ss: "5-5", minute: 88 } :
              event.league.id === "900" ? { ...event, league: { ...event.league, name: "Premier Division Renamed" } } :
              event
          )
        const again = yield* refresh(token)
        assert.strictEqual(again.body.data.imported.deactivated, 10)
        const feed = yield* api(token, "/sports/feed/prematch?per_page=200")
        assert.strictEqual(feed.body.data.meta.total, 110)
        for (const id of removed) assert.notInclude(feed.body.data.results.map((e: { event_id: string }) => e.event_id), id)
        const liveFeed = yield* api(token, "/sports/feed/live?per_page=200")
        assert.deepInclude(
          liveFeed.body.data.results.find((e: { event_id: string }) => e.event_id === "80000"),
          { score: "5-5", minute: 88 }
        )
        const leagues = yield* api(token, "/sports/catalog/leagues?league_id=900")
        assert.strictEqual(leagues.body.data.results[0].name, "Premier Division Renamed")
        const overview = yield* api(token, "/sports/catalog/overview")
        assert.strictEqual(overview.body.data.events_total, 119)
      }))
  })

  layer(CatalogApp(world), live)("a refresh that fails half-way", (it) => {
    it.effect("leaves the previous catalog exactly as it was, and says why in a 500", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        world.events = worldEvents()
        yield* refresh(token)
        const sql = yield* SqlClient.SqlClient
        const snapshot = sql`SELECT id, league_name, home_name, status, score, active, last_update FROM sports_events ORDER BY id`
        const before = yield* snapshot

        // The world changes, but the provider fails on page 2 of the soccer fixtures.
        world.events = worldEvents().map((event) => ({ ...event, home: { ...event.home, name: `${event.home.name} (new)` } }))
        const fake = yield* FakeUpstream
        const healthy = catalogProvider(world)
        fake.script((call) =>
          call.path === "/v3/events/upcoming" && call.query.sport_id === "1" && call.query.page === "2"
            ? { kind: "json", status: 500, body: { success: 0, error: "INTERNAL_SERVER_ERROR" } }
            : healthy(call)
        )
        const failed = yield* refresh(token)
        fake.reset()
        assert.strictEqual(failed.status, 500)
        assert.match(failed.body.message, /^The catalog could not be refreshed: the sports provider could not be queried/)
        assert.strictEqual(failed.body.provider, "betsapi")
        assert.deepStrictEqual(failed.body.provider_response, { success: 0, error: "INTERNAL_SERVER_ERROR" })
        assert.deepStrictEqual(yield* snapshot, before)
      }))
  })

  layer(CatalogApp(world, { cacheTtl: "1 hour" }), live)("with catalog reads cached", (it) => {
    it.effect("a refresh that changes the catalog is seen at once", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        world.events = worldEvents()
        yield* refresh(token)
        const before = yield* api(token, "/sports/feed/prematch?league_id=901&per_page=1")
        assert.strictEqual(before.body.data.results[0].league_name, "Liga Primera")
        world.events = worldEvents().map((event) =>
          event.league.id === "901" ? { ...event, league: { ...event.league, name: "Liga Renamed" } } : event
        )
        yield* refresh(token)
        const after = yield* api(token, "/sports/feed/prematch?league_id=901&per_page=1")
        assert.strictEqual(after.body.data.results[0].league_name, "Liga Renamed")
      }))
  })
})
