/**
 * The catalog group's contract, handler by handler, over the in-memory
 * repository (no PostgreSQL, no socket): the entries' wire shape, paging
 * meta, and the 422s of what cannot be read. The SQL side (filters, sorts,
 * stable pages, refresh) is reads.test.ts and refresh.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiMiddleware, HttpApiTest } from "effect/http-api"
import { PartnerApi } from "../../../src/api/Api.ts"
import { Gone, ValidationFailed } from "../../../src/api/Errors.ts"
import { PartnerAuth } from "../../../src/api/Security.ts"
import type { SportsEvent, SportsLeague } from "../../../src/domain/Sports.ts"
import { RequestValidationLive } from "../../../src/routes.ts"
import { SportsCatalogHandlers } from "../../../src/sports/catalog/http.ts"
import { SportsCatalog } from "../../../src/sports/catalog/SportsCatalog.ts"
import { SportsCatalogConfig } from "../../../src/sports/catalog/SportsCatalogConfig.ts"
import { SportsCatalogRepo } from "../../../src/sports/catalog/SportsCatalogRepo.ts"
import * as SportsCatalogRepoMemory from "../../../src/sports/catalog/SportsCatalogRepoMemory.ts"
import { SportsProvider } from "../../../src/sports/SportsProvider.ts"
import { testCatalogConfig } from "../../support/TestApp.ts"
import { live } from "../../support/live.ts"
import { AuthAsAcme } from "../../support/AuthAsAcme.ts"
import { SpecUpstreams } from "../../support/SpecUpstreams.ts"

/** The catalog never reaches the provider in these tests: a refresh that would is refused before. */
const unused = () => Effect.die("the provider is not asked here")
const NoProvider = Layer.succeed(
  SportsProvider,
  SportsProvider.of({
    name: "memory",
    configured: true,
    capabilities: [],
    sportIds: undefined,
    upcomingByDay: false,
    leagues: unused,
    upcoming: unused,
    live: unused,
    ended: unused,
    event: unused,
    odds: unused,
    liveOdds: unused,
    lineup: unused,
    statsTrend: unused,
    result: unused
  })
)

const premier: SportsLeague = { id: "900", name: "Premier Division", sportId: 1, countryCode: "gb" }
const event = (id: string, status: "scheduled" | "live", hour: number): SportsEvent => ({
  id,
  sportId: 1,
  league: premier,
  home: { id: `h${id}`, name: `Home ${id}`, countryCode: null },
  away: { id: `a${id}`, name: `Away ${id}`, countryCode: null },
  startsAt: new Date(Date.UTC(2026, 11, 1, hour)),
  status,
  score: status === "live" ? "2-1" : null,
  minute: status === "live" ? 63 : null,
  hasLineup: false,
  hasOdds: id !== "3"
})
const events = [
  event("1", "scheduled", 10),
  event("2", "scheduled", 12),
  event("3", "scheduled", 14),
  event("4", "live", 9)
]

/** Every environment's catalog is the memory one, its provider never asked. */
const Upstreams = SpecUpstreams.pipe(
  Layer.provideMerge(SportsCatalog.layerNoDeps),
  Layer.provideMerge(SportsCatalogRepoMemory.layerMemory),
  Layer.provideMerge(NoProvider),
  Layer.provide(Layer.succeed(SportsCatalogConfig, testCatalogConfig()))
)

const Handlers = SportsCatalogHandlers.pipe(
  Layer.provideMerge(Layer.mergeAll(AuthAsAcme, Upstreams, RequestValidationLive)),
  Layer.provideMerge(HttpServer.layerServices)
)

/**
 * The typed client, as Acme. `wire` replaces what the typed client would send (a query string, a body)
 * with text it would refuse to: only the wire can carry it.
 */
const client = (wire: { readonly query?: string; readonly body?: unknown } = {}) =>
  HttpApiTest.groups(PartnerApi, ["catalog"]).pipe(
    Effect.provide(HttpApiMiddleware.layerClient(PartnerAuth, ({ next, request }) => {
      let sent = HttpClientRequest.bearerToken(request, "pak_acme")
      if (wire.query !== undefined) sent = HttpClientRequest.setUrlParams(sent, new URLSearchParams(wire.query))
      if (wire.body !== undefined) sent = HttpClientRequest.bodyJsonUnsafe(sent, wire.body)
      return next(sent)
    }))
  )

/** The 422's errors of a call that must fail with one. */
const refusal = <A, E, R>(call: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(call), (error) => {
    assert.instanceOf(error, ValidationFailed)
    return (error as ValidationFailed).errors
  })

const seeded = Effect.gen(function*() {
  const repo = yield* SportsCatalogRepo
  if (yield* repo.isEmptyFor("memory")) {
    yield* repo.publish({
      provider: "memory",
      scope: { sportIds: [1], leagues: true, events: true, liveOnly: false },
      leagues: [premier],
      events
    })
  }
})

layer(Handlers, live)("the catalog group's contract (in memory)", (it) => {
  it.effect("a prematch entry carries the contract's fields, dates as ISO strings, the country by name", () =>
    Effect.gen(function*() {
      yield* seeded
      const feed = yield* (yield* client()).catalog.prematch({ query: {} })
      assert.deepStrictEqual(feed.data.meta, { page: 1, per_page: 50, total: 3, next_since: feed.data.meta.next_since })
      assert.deepStrictEqual(feed.data.results[0], {
        event_id: "1",
        sport_id: 1,
        country: "England",
        league_id: "900",
        league_name: "Premier Division",
        home_name: "Home 1",
        away_name: "Away 1",
        starts_at: "2026-12-01T10:00:00.000Z",
        has_odds: true,
        last_update: feed.data.results[0].last_update,
        status: "scheduled",
        reason: null
      })
      assert.match(feed.data.results[0].last_update, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    }))

  it.effect("a live entry adds the score and the minute; its status is live", () =>
    Effect.gen(function*() {
      yield* seeded
      const feed = yield* (yield* client()).catalog.live({ query: {} })
      assert.deepStrictEqual(
        feed.data.results.map((entry) => [entry.event_id, entry.score, entry.minute, entry.status, entry.reason]),
        [["4", "2-1", 63, "live", null]]
      )
    }))

  it.effect("paging: meta echoes the page, per_page is capped at 200, a page past the end is empty", () =>
    Effect.gen(function*() {
      yield* seeded
      const api = yield* client()
      const second = yield* api.catalog.prematch({ query: { page: 2, per_page: 2 } })
      assert.deepStrictEqual([second.data.results.map((entry) => entry.event_id), second.data.meta], [["3"], {
        page: 2,
        per_page: 2,
        total: 3,
        next_since: second.data.meta.next_since
      }])
      const capped = yield* api.catalog.leagues({ query: { per_page: 999 } })
      assert.deepStrictEqual(capped.data.meta, {
        page: 1,
        per_page: 200,
        total: 1,
        next_since: capped.data.meta.next_since
      })
      assert.deepStrictEqual(capped.data.results, [
        { id: "900", name: "Premier Division", country: "England", country_code: "gb", sport_id: 1, active: true }
      ])
      const beyond = yield* api.catalog.prematch({ query: { page: 50 } })
      assert.deepStrictEqual(beyond.data.results, [])
    }))

  it.effect("since a position: what changed after it, each entry marked; a position past the head is a 410", () =>
    Effect.gen(function*() {
      yield* seeded
      const api = yield* client()
      const whole = yield* api.catalog.prematch({ query: {} })
      const fromStart = yield* api.catalog.prematch({ query: { since: 0, per_page: 2 } })
      assert.deepStrictEqual(fromStart.data.results.map((entry) => [entry.event_id, entry.removed]), [["1", false], [
        "2",
        false
      ]])
      assert.strictEqual(fromStart.data.meta.total, 3)
      const rest = yield* api.catalog.prematch({ query: { since: fromStart.data.meta.next_since, per_page: 2 } })
      assert.deepStrictEqual(rest.data.results.map((entry) => entry.event_id), ["3"])
      assert.strictEqual(rest.data.meta.next_since, whole.data.meta.next_since, "a short page goes on from the head")
      const none = yield* api.catalog.teams({ query: { since: whole.data.meta.next_since } })
      assert.deepStrictEqual([none.data.results, none.data.meta.total], [[], 0])
      const gone = yield* Effect.flip(api.catalog.leagues({ query: { since: whole.data.meta.next_since + 1 } }))
      assert.instanceOf(gone, Gone)
      assert.strictEqual((gone as Gone).reason, "unknown_position")
      const unreadable = yield* refusal((yield* client({ query: "since=soon" })).catalog.live({ query: {} }))
      assert.deepStrictEqual(Object.keys(unreadable), ["since"])
    }))

  it.effect("the overview counts each kind of record", () =>
    Effect.gen(function*() {
      yield* seeded
      const overview = yield* (yield* client()).catalog.overview()
      assert.deepStrictEqual(overview.data, {
        sports_total: 1,
        countries_total: 1,
        leagues_total: 1,
        teams_total: 8,
        events_total: 4
      })
    }))

  it.effect("a feed value that cannot be read is a 422 naming the field", () =>
    Effect.gen(function*() {
      const unreadable = yield* refusal(
        (yield* client({ query: "has_odds=maybe&date=2026-13-01&date_from=yesterday" })).catalog.prematch({ query: {} })
      )
      assert.deepStrictEqual(Object.keys(unreadable).sort(), ["date", "date_from", "has_odds"])
      const numbers = yield* refusal(
        (yield* client({ query: "page=abc&per_page=1e2&sport_id=0x10" })).catalog.prematch({ query: {} })
      )
      assert.deepStrictEqual(numbers, {
        page: ["The page field must be an integer."],
        per_page: ["The per page field must be an integer."],
        sport_id: ["The sport id field must be a sport id (like 1) or a sport name (like Soccer)."]
      })
      for (const query of ["page=0", "page=-1", "per_page=0", "sport_id=0", "sport_id=1.5", "page=%201", "page=+2"]) {
        const refused = yield* refusal((yield* client({ query })).catalog.leagues({ query: {} }))
        assert.deepStrictEqual(Object.keys(refused), [query.split("=")[0]], query)
      }
      const outOfRange = yield* refusal((yield* client({ query: "per_page=0&page=-1" })).catalog.teams({ query: {} }))
      assert.deepStrictEqual(Object.keys(outOfRange).sort(), ["page", "per_page"])
      const active = yield* refusal((yield* client({ query: "active=sometimes" })).catalog.teams({ query: {} }))
      assert.deepStrictEqual(Object.keys(active), ["active"])
    }))

  it.effect("readable values only the service can judge: date_to before date_from, a source outside the two", () =>
    Effect.gen(function*() {
      const reversed = yield* refusal(
        (yield* client()).catalog.prematch({ query: { date_from: "20261203", date_to: "20261201" } })
      )
      assert.deepStrictEqual(reversed, { date_to: ["The date to field must be a day on or after date from."] })
      const source = yield* refusal((yield* client({ query: "source=ended" })).catalog.filters({ query: {} }))
      assert.deepStrictEqual(source, { source: ["The selected source is invalid. Use prematch or live."] })
    }))

  it.effect("a refresh body of the wrong types is a 422 naming every field; so is an unknown sport", () =>
    Effect.gen(function*() {
      const wrong = yield* refusal(
        (yield* client({ body: { sport_id: true, import_leagues: "yes", import_events: 1 } })).catalog.refresh({
          payload: null
        })
      )
      assert.deepStrictEqual(wrong, {
        sport_id: ["The sport id field must be an integer or a string."],
        import_leagues: ["The import leagues field must be true or false."],
        import_events: ["The import events field must be true or false."]
      })
      const notAnObject = yield* refusal((yield* client({ body: [1, 2] })).catalog.refresh({ payload: null }))
      assert.deepStrictEqual(notAnObject, { body: ["The request body must be a JSON object."] })
      const unknown = yield* refusal((yield* client()).catalog.refresh({ payload: { sport_id: "curling" } }))
      assert.deepStrictEqual(unknown, { sport_id: ["The selected sport id is invalid."] })
    }))
})
