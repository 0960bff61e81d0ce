import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { NotFound } from "../../src/client/PartnerClient.ts"
import { sandboxLeagues } from "../../src/integrations/sandbox/SandboxSports.ts"
import { answer } from "../../src/integrations/sandbox/SandboxSportsAnswers.ts"
import { live } from "../support/live.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import { bearer, dataAs, givenPartner, request, TestApp } from "../support/TestApp.ts"

const minute = 60_000
const T = Date.UTC(2026, 10, 22, 12, 0)

type Json = any
const events = (path: string, now: number, params: Record<string, string> = {}): Array<Json> =>
  (answer(path, { sport_id: "1", ...params }, now) as Json).results

describe("the sandbox's sports data", () => {
  it("has soccer, basketball and tennis, with countries, leagues and squads", () => {
    const sports = new Set(sandboxLeagues.map((league) => league.sportId))
    assert.includeMembers([...sports], [1, 18, 13])
    assert.isAtLeast(new Set(sandboxLeagues.map((league) => league.countryCode).filter(Boolean)).size, 6)
    const soccerTeam = sandboxLeagues.find((league) => league.sportId === 1)!.teams[0]
    assert.strictEqual(soccerTeam.squad.length, 11)
  })

  it("is the same on every start: one answer for one question at one instant", () => {
    for (const path of ["/v1/league", "/v3/events/upcoming", "/v3/events/inplay", "/v3/events/ended"]) {
      assert.deepStrictEqual(answer(path, { sport_id: "1" }, T), answer(path, { sport_id: "1" }, T))
    }
  })

  it("keeps event ids stable as time passes: an event seen now is the same event days later", () => {
    const upcoming = events("/v3/events/upcoming", T)[0]
    const later = (answer("/v1/event/view", { event_id: upcoming.id }, T + 3 * 24 * 60 * minute) as Json).results[0]
    assert.strictEqual(later.id, upcoming.id)
    assert.strictEqual(later.home.name, upcoming.home.name)
    assert.strictEqual(later.time, upcoming.time)
  })

  it("covers 7 days back to 14 days ahead, and nothing outside", () => {
    const ended = events("/v3/events/ended", T)
    const upcoming = (answer("/v3/events/upcoming", { sport_id: "1", page: "999" }, T) as Json).pager
    assert.isAbove(ended.length, 0)
    const oldest = Math.min(...events("/v3/events/ended", T, { page: "1" }).map((e) => Number(e.time) * 1000))
    assert.isAtLeast(oldest, T - 7 * 24 * 60 * minute)
    assert.isAbove(upcoming.total, 100)
    const tooFar = events("/v3/events/upcoming", T + 30 * 24 * 60 * minute)[0]
    assert.isDefined(tooFar)
    assert.strictEqual((answer("/v1/event/view", { event_id: tooFar.id }, T) as Json).error, "NOT_FOUND")
  })

  it("always has soccer in play, and a match runs from kick-off to the final whistle", () => {
    for (let offset = 0; offset < 48 * 60; offset += 37) {
      assert.isAbove(events("/v3/events/inplay", T + offset * minute).length, 0, `at +${offset} min`)
    }
    const game = events("/v3/events/upcoming", T)[0]
    const kickOff = Number(game.time) * 1000
    const at = (ms: number) => (answer("/v1/event/view", { event_id: game.id }, ms) as Json).results[0]
    assert.strictEqual(at(kickOff - minute).time_status, "0")
    assert.strictEqual(at(kickOff - minute).ss, null)

    let previous = { minute: 0, home: 0, away: 0 }
    for (const elapsed of [...Array.from({ length: 22 }, (_, i) => 1 + i * 5), 110]) {
      const now = at(kickOff + elapsed * minute)
      assert.strictEqual(now.time_status, "1")
      const [home, away] = now.ss.split("-").map(Number)
      assert.isAtLeast(now.timer.tm, previous.minute, "the clock never runs back")
      assert.isAtLeast(home, previous.home, "goals are never taken back")
      assert.isAtLeast(away, previous.away)
      previous = { minute: now.timer.tm, home, away }
    }
    assert.isAtLeast(previous.minute, 90)
    const final = at(kickOff + 112 * minute)
    assert.strictEqual(final.time_status, "3")
    const result = (answer("/v1/bet365/result", { event_id: game.id }, kickOff + 112 * minute) as Json).results[0]
    assert.strictEqual(result.ss, final.ss)
  })

  it("moves pre-match odds every few minutes, and in-play odds with the game", () => {
    const game = events("/v3/events/upcoming", T).at(-1)
    const odds = (now: number) => (answer("/v2/event/odds", { event_id: game.id }, now) as Json).results.odds["1_1"][0]
    const prices = new Set([0, 15, 30, 45, 60].map((m) => JSON.stringify(odds(T + m * minute))))
    assert.isAbove(prices.size, 1)
    const inPlay = events("/v3/events/inplay", T)[0]
    const liveOdds = (answer("/v2/event/odds", { event_id: inPlay.id }, T) as Json).results.odds["1_1"][0]
    assert.strictEqual(liveOdds.ss, inPlay.ss)
  })
})

layer(TestApp(), live)("every sports endpoint on the sandbox, from a fresh start", (it) => {
  /** A GET over the wire, for query text the typed client does not send and for the fields the wire carries. */
  const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })
  const givenClient = Effect.flatMap(
    givenPartner(),
    (given) => Effect.map(partnerClient(given.token), (client) => ({ ...given, client }))
  )
  const event = (eventId: string) => ({ params: { eventId }, query: {} })

  it.effect("status, leagues and the event lists", () =>
    Effect.gen(function*() {
      const { client, token } = yield* givenClient
      const status = yield* client.sports.status()
      assert.deepStrictEqual(status.data.provider, "sandbox")
      assert.lengthOf(status.data.capabilities, 10)
      for (const sportId of [1, 18, 13]) {
        const leagues = yield* client.sports.leagues({ query: { sport_id: sportId } })
        assert.isAbove(leagues.data.results.length, 0)
        for (const league of leagues.data.results) {
          assert.isString(league.league_id)
          assert.isString(league.league_name)
        }
      }
      const upcoming = yield* client.sports.upcoming({ query: { sport_id: 1 } })
      const first = upcoming.data.results[0]
      // The fields on the wire, not only those the client's schema keeps.
      const onTheWire = dataAs(Schema.Struct({ results: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) }))(
        yield* get(token, "/sports/events/upcoming?sport_id=1")
      )
      assert.deepStrictEqual(Object.keys(onTheWire.results[0]).sort(), [
        "away_name",
        "event_id",
        "home_name",
        "league_id",
        "league_name",
        "reason",
        "starts_at",
        "status"
      ])
      assert.match(first.starts_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.isAbove(Date.parse(first.starts_at), Date.now() - 60_000)
      const byLeague = yield* client.sports.upcoming({ query: { sport_id: 1, league_id: first.league_id } })
      for (const event of byLeague.data.results) assert.strictEqual(event.league_id, first.league_id)
      const secondPage = yield* client.sports.upcoming({ query: { sport_id: 1, page: 2 } })
      assert.strictEqual(secondPage.data.meta.page, 2)
      assert.notStrictEqual(secondPage.data.results[0].event_id, first.event_id)

      const liveList = yield* client.sports.live({ query: { sport_id: 1 } })
      const inPlay = liveList.data.results[0]
      assert.match(inPlay.score, /^\d+-\d+$/)
      assert.isNumber(inPlay.minute)
      assert.strictEqual(inPlay.status, "live")

      const today = new Date().toISOString().slice(0, 10)
      const ended = yield* client.sports.ended({ query: { sport_id: 1 } })
      assert.match(ended.data.results[0].score, /^\d+-\d+$/)
      assert.deepInclude(ended.data.results[0], { status: "final", reason: null })
      // The day as YYYY-MM-DD, which the typed client does not send.
      const endedToday = yield* get(token, `/sports/events/ended?sport_id=1&day=${today}`)
      assert.strictEqual(endedToday.status, 200)
      const endedTodayTyped = yield* client.sports.ended({ query: { sport_id: 1, day: today.replaceAll("-", "") } })
      assert.isArray(endedTodayTyped.data.results)
    }))

  it.effect("an event in play: detail, odds, live odds, lineup, stats trend; and a result once ended", () =>
    Effect.gen(function*() {
      const { client } = yield* givenClient
      const inPlay = (yield* client.sports.live({ query: { sport_id: 1 } })).data.results[0]
      const id = inPlay.event_id

      const detail = yield* client.sports.liveEvent(event(id))
      assert.deepInclude(detail.data, {
        event_id: id,
        home_name: inPlay.home_name,
        status: "live",
        reason: null,
        final_at: null
      })

      for (
        const [path, read] of [["odds", client.sports.odds(event(id))], [
          "odds/live",
          client.sports.liveOdds(event(id))
        ]] as const
      ) {
        const odds = yield* read
        assert.strictEqual(odds.data.event_id, id)
        assert.isAbove(odds.data.markets.length, 0, path)
        for (const market of odds.data.markets) {
          assert.isString(market.name)
          for (const odd of market.odds) {
            assert.isString(odd.label)
            assert.isTrue(typeof odd.value === "number" && Number.isFinite(odd.value) && odd.value > 1)
          }
        }
      }

      const lineup = yield* client.sports.lineup(event(id))
      assert.lengthOf(lineup.data.home, 11)
      assert.lengthOf(lineup.data.away, 11)

      const stats = yield* client.sports.statsTrend(event(id))
      for (const [key, value] of Object.entries(stats.data)) {
        if (key !== "event_id") assert.isTrue(Number.isInteger(value), key)
      }
      assert.property(stats.data, "possession_home")
      assert.property(stats.data, "shots_on_target_away")

      yield* failsWith(NotFound)(client.sports.result(event(id))) // no result yet: a 404

      const ended = (yield* client.sports.ended({ query: { sport_id: 1 } })).data.results[0]
      const result = yield* client.sports.result(event(ended.event_id))
      const [home, away] = ended.score.split("-").map(Number)
      // The sandbox speaks BetsAPI's codes (0, 1, 3): its matches are scheduled, live, then final.
      const endedDetail = yield* client.sports.liveEvent(event(ended.event_id))
      assert.deepInclude(endedDetail.data, { status: "final", reason: null })
      assert.deepInclude(result.data, {
        event_id: ended.event_id,
        home_score: home,
        away_score: away,
        winner: home > away ? "home" : home < away ? "away" : "draw",
        status: "final",
        corrected_at: null,
        previous: null
      })
      assert.isString(result.data.final_at, "first seen final by this read: recorded")
      const again = yield* client.sports.liveEvent(event(ended.event_id))
      assert.strictEqual(again.data.final_at, result.data.final_at)
    }))

  it.effect("an unknown event is a 404; tennis has no line-up", () =>
    Effect.gen(function*() {
      const { client } = yield* givenClient
      const missing = yield* failsWith(NotFound)(client.sports.odds(event("123")))
      assert.deepStrictEqual([missing.success, missing.message], [false, "Event 123 not found."])
      const match = (yield* client.sports.upcoming({ query: { sport_id: 13 } })).data.results[0]
      const lineup = yield* failsWith(NotFound)(client.sports.lineup(event(match.event_id)))
      assert.match(lineup.message, /No line-up/)
    }))
})
