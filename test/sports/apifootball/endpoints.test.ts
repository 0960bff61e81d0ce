/**
 * SPORTS_PROVIDER=apifootball over real HTTP to a fake API-Football: every provider endpoint in the contract's
 * shapes, a sport it does not offer refused, and the quota spent once per request (one fixture answer for four
 * endpoints, one day's list for every page and league).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ApiFootballApp, callsTo } from "../../support/ApiFootballApp.ts"
import { FakeApiFootball, fixtures, leagues } from "../../support/FakeApiFootball.ts"
import { live } from "../../support/live.ts"
import { bearer, dataAs, errorBody, givenPartner, request } from "../../support/TestApp.ts"

const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

const Results = Schema.Struct({
  results: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)),
  meta: Schema.Struct({ page: Schema.Number, per_page: Schema.Number, total: Schema.Number })
})
const Anything = Schema.Record(Schema.String, Schema.Unknown)

/** The fake's own fixtures of a query (asked directly, outside the gateway), to compare with the gateway's answer. */
const fakeFixtures = (fake: FakeApiFootball["Service"], query: string) =>
  Effect.promise(() =>
    fetch(`${fake.url}/fixtures?${query}`, { headers: { "x-apisports-key": fake.key } }).then((response) =>
      response.json() as Promise<{ response: Array<{ fixture: { id: number }; league: { id: number } }> }>
    )
  ).pipe(Effect.map((answer) => answer.response))

const utcDay = (millis: number) => new Date(millis).toISOString().slice(0, 10).replaceAll("-", "")

layer(ApiFootballApp(), live)("API-Football provider", (it) => {
  describe("the contract's shapes", () => {
    it.effect("status names the provider, its capabilities and the one sport it offers", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const status = dataAs(Anything)(yield* get(token, "/sports/status"))
        assert.strictEqual(status.provider, "apifootball")
        assert.deepStrictEqual(status.sport_ids, [1])
        assert.includeMembers(status.capabilities as Array<string>, ["leagues", "event-stats-trend", "event-result"])
      }))

    it.effect("leagues of soccer; another sport is a 422 naming sport_id, with no call", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        const answer = dataAs(Results)(yield* get(token, "/sports/leagues?sport_id=1"))
        const premier = answer.results.find((league) => league.league_id === String(leagues.premierLeague))
        assert.deepStrictEqual(premier, { league_id: "39", league_name: "Premier League", country_code: "gb" })
        const before = fake.calls.length
        const refused = yield* get(token, "/sports/leagues?sport_id=18")
        assert.strictEqual(refused.status, 422)
        const body = errorBody(refused)
        assert.match(body.message, /does not offer sport 18/)
        assert.deepStrictEqual(Object.keys(body.errors ?? {}), ["sport_id"])
        assert.strictEqual(fake.calls.length, before)
      }))

    it.effect("upcoming, live and ended lists; a league's page filtered from the day's one answer", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        const upcoming = dataAs(Results)(yield* get(token, "/sports/events/upcoming?sport_id=1"))
        const ids = upcoming.results.map((event) => event.event_id)
        assert.include(ids, String(fixtures.upcoming))
        const live = dataAs(Results)(yield* get(token, "/sports/events/live?sport_id=1"))
        const inPlay = live.results.find((event) => event.event_id === String(fixtures.live))
        assert.strictEqual(inPlay?.score, "1-0")
        const yesterday = utcDay(fake.kickoff(fixtures.finished))
        const ended = dataAs(Results)(yield* get(token, `/sports/events/ended?sport_id=1&day=${yesterday}`))
        assert.include(ended.results.map((event) => event.event_id), String(fixtures.finished))
        assert.notInclude(ended.results.map((event) => event.event_id), String(fixtures.postponed))

        const tomorrow = utcDay(fake.kickoff(fixtures.tomorrow))
        const day = yield* fakeFixtures(
          fake,
          `date=${tomorrow.slice(0, 4)}-${tomorrow.slice(4, 6)}-${tomorrow.slice(6)}`
        )
        const before = callsTo(fake, "/fixtures")
        const ofLeague = (id: number) => day.filter((f) => f.league.id === id).map((f) => String(f.fixture.id)).sort()
        for (const league of [leagues.premierLeague, leagues.serieA]) {
          const page = dataAs(Results)(
            yield* get(token, `/sports/events/upcoming?sport_id=1&day=${tomorrow}&league_id=${league}`)
          )
          assert.deepStrictEqual(page.results.map((event) => String(event.event_id)).sort(), ofLeague(league))
        }
        assert.strictEqual(callsTo(fake, "/fixtures") - before, 1, "one day's answer serves every league and page")
      }))

    it.effect("one fixture answer serves the live event, its line-up, its statistics and its result", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        const id = String(fixtures.live)
        const event = dataAs(Anything)(yield* get(token, `/sports/events/live/${id}`))
        assert.strictEqual(event.score, "1-0")
        assert.strictEqual(event.minute, 62)
        const lineup = dataAs(Anything)(yield* get(token, `/sports/events/${id}/lineup`))
        assert.lengthOf(lineup.home as Array<string>, 11)
        const stats = dataAs(Anything)(yield* get(token, `/sports/events/${id}/stats-trend`))
        assert.strictEqual(stats.possession_home, 58)
        const result = yield* get(token, `/sports/events/${id}/result`)
        assert.strictEqual(result.status, 404)
        assert.match(errorBody(result).message, /no final result yet/)
        assert.strictEqual(callsTo(fake, "/fixtures", { id }), 1)
      }))

    it.effect("results: a full-time win, a shoot-out won away", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const won = dataAs(Anything)(yield* get(token, `/sports/events/${fixtures.finished}/result`))
        assert.deepInclude(won, {
          event_id: String(fixtures.finished),
          home_score: 2,
          away_score: 1,
          winner: "home",
          status: "final",
          corrected_at: null,
          previous: null
        })
        const shootOut = dataAs(Anything)(yield* get(token, `/sports/events/${fixtures.penalties}/result`))
        assert.strictEqual(shootOut.winner, "away")
      }))

    it.effect("pre-match odds of the configured bookmaker; live odds in play, none outside their window", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const odds = dataAs(Anything)(yield* get(token, `/sports/events/${fixtures.tomorrow}/odds`))
        const markets = odds.markets as Array<{ name: string; odds: Array<{ label: string; value: number }> }>
        assert.deepStrictEqual(markets.find((market) => market.name === "Match Winner")?.odds.map((odd) => odd.label), [
          "Home",
          "Draw",
          "Away"
        ])
        const liveOdds = dataAs(Anything)(yield* get(token, `/sports/events/${fixtures.live}/odds/live`))
        assert.isAbove((liveOdds.markets as Array<unknown>).length, 0)
        const outside = dataAs(Anything)(yield* get(token, `/sports/events/${fixtures.tomorrow}/odds/live`))
        assert.deepStrictEqual(outside.markets, [])
      }))

    it.effect("an id the provider could never give is a 404 without a call; an unknown one a 404 after one", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        const before = fake.calls.length
        assert.strictEqual((yield* get(token, "/sports/events/abc/result")).status, 404)
        assert.strictEqual(fake.calls.length, before)
        assert.strictEqual((yield* get(token, "/sports/events/999999/lineup")).status, 404)
      }))
  })
})
