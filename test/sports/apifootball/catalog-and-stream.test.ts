/**
 * The local catalog, its feeds and filters, and the live change stream on API-Football's world: a refresh imports
 * its leagues, teams and fixtures (soccer only, the other CATALOG_SPORT_IDS skipped with one log line), the feeds
 * and filters read them, a goal reaches an open stream, an odds read reaches it too, and a stats-trend read during
 * the match keeps samples that the answer shows as its trend.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Schema } from "effect"
import { refresh } from "../../support/CatalogApp.ts"
import { ApiFootballApp } from "../../support/ApiFootballApp.ts"
import { FakeApiFootball, fixtures } from "../../support/FakeApiFootball.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { live } from "../../support/live.ts"
import { makeLogCapture } from "../../support/LogCapture.ts"
import { changesOf, openStream, until } from "../../support/StreamApp.ts"
import { bearer, dataAs, errorBody, givenPartner, request } from "../../support/TestApp.ts"

const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })
const Anything = Schema.Record(Schema.String, Schema.Unknown)
const Results = Schema.Struct({ results: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) })

const logs = makeLogCapture()

layer(
  ApiFootballApp({ sports: { cacheTtlMax: Duration.zero } }).pipe(Layer.provide(logs.layer)),
  live
)("API-Football's world in the catalog and the stream", (it) => {
  describe("refresh, feeds and filters", () => {
    it.effect("a refresh imports soccer alone; another sport named is a 422 naming sport_id", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const outcome = yield* refresh(token)
        assert.strictEqual(outcome.data.sport_id, null)
        const skipped = logs.entries.filter((entry) =>
          String(entry.message).includes("CATALOG_SPORT_IDS names sports the provider does not offer")
        )
        assert.lengthOf(skipped, 1)
        assert.strictEqual(skipped[0].annotations.skipped, "18,13")

        const overview = dataAs(Anything)(yield* get(token, "/sports/catalog/overview"))
        assert.strictEqual(overview.sports_total, 1)
        assert.isAbove(overview.events_total as number, 10)

        const refused = yield* request("POST", "/api/partner/v1/sports/catalog/refresh", {
          headers: bearer(token),
          json: { sport_id: 18 }
        })
        assert.strictEqual(refused.status, 422)
        assert.deepStrictEqual(Object.keys(errorBody(refused).errors ?? {}), ["sport_id"])
      }))

    it.effect("the feeds and filters read the provider's fixtures", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        yield* refresh(token)
        const prematch = dataAs(Results)(yield* get(token, "/sports/feed/prematch?per_page=100"))
        const prematchIds = prematch.results.map((entry) => entry.event_id)
        assert.includeMembers(prematchIds, [String(fixtures.upcoming), String(fixtures.tomorrow)])
        assert.notInclude(prematchIds, String(fixtures.finished))
        const liveFeed = dataAs(Results)(yield* get(token, "/sports/feed/live"))
        assert.deepInclude(
          liveFeed.results.find((entry) => entry.event_id === String(fixtures.live)),
          { score: "1-0", minute: 62 }
        )
        const filters = dataAs(Anything)(yield* get(token, "/sports/catalog/filters?source=prematch"))
        assert.deepStrictEqual(filters.sports, ["Soccer"])
        assert.include(filters.leagues as Array<string>, "Premier League")
        const leagues = dataAs(Results)(yield* get(token, "/sports/catalog/leagues?search=premier"))
        assert.deepStrictEqual(leagues.results.map((league) => league.name), ["Premier League"])
      }))
  })

  describe("the live change stream", () => {
    it.effect("a goal and an odds read reach an open stream, in API-Football's ids", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        const baseUrl = yield* baseUrlOf
        yield* refresh(token)
        const id = String(fixtures.halfTime)
        const stream = yield* openStream(baseUrl, token, { query: "sport_id=1" })
        yield* until(stream, (s) => s.events.length >= 1, "connected")
        yield* get(token, `/sports/events/${fixtures.tomorrow}/odds`)
        const priced = String(fixtures.tomorrow)
        yield* until(stream, (s) => changesOf(s).some((c) => c.data.event_id === priced), "the odds opened")
        const odds = changesOf(stream).filter((change) => change.data.event_id === priced)
        assert.isTrue(odds.every((change) => change.event === "odds"))
        assert.include(odds.map((change) => change.data.market_name), "Match Winner")

        fake.setStatus(fixtures.halfTime, "2H", 50)
        fake.score(fixtures.halfTime, 1, 1)
        yield* refresh(token)
        yield* until(stream, (s) => changesOf(s).some((c) => c.data.event_id === id), "the goal")
        const goal = changesOf(stream).find((change) => change.data.event_id === id)!
        assert.strictEqual(goal.event, "score")
        assert.deepInclude(goal.data, { score: "1-1", status: "live" })
      }))

    it.effect("statistics read during the match are kept as samples, and the trend shows them by minute", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        const id = fixtures.live
        fake.setStatus(id, "2H", 63)
        const first = dataAs(Anything)(yield* get(token, `/sports/events/${id}/stats-trend`))
        fake.setStatus(id, "2H", 70)
        fake.setStatistics(id, "home", "Ball Possession", "61%")
        fake.setStatistics(id, "away", "Ball Possession", "39%")
        const later = dataAs(Anything)(yield* get(token, `/sports/events/${id}/stats-trend`))
        assert.strictEqual(first.possession_home, 58)
        assert.strictEqual(later.possession_home, 61)
        const trend = later.trend as Array<{ minute: number; possession_home: number }>
        const byMinute = new Map(trend.map((sample) => [sample.minute, sample.possession_home]))
        assert.strictEqual(byMinute.get(63), 58)
        assert.strictEqual(byMinute.get(70), 61)

        fake.setStatus(id, "FT")
        const after = dataAs(Anything)(yield* get(token, `/sports/events/${id}/stats-trend`))
        assert.isAtLeast((after.trend as Array<unknown>).length, 2, "the trend outlives the match")
      }))
  })
})
