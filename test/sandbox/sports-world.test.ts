import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { sandboxLeagues } from "../../src/sandbox/SportsWorld.ts"
import { answer } from "../../src/sandbox/SportsWorldAnswers.ts"
import { live } from "../support/live.ts"
import { bearer, givenPartner, request, TestApp } from "../support/TestApp.ts"

const minute = 60_000
const T = Date.UTC(2026, 10, 22, 12, 0)

type Json = any
const events = (path: string, now: number, params: Record<string, string> = {}): Array<Json> =>
  (answer(path, { sport_id: "1", ...params }, now) as Json).results

describe("the sandbox world", () => {
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
  const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

  it.effect("status, leagues and the event lists", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const status = yield* get(token, "/sports/status")
      assert.deepStrictEqual(status.body.data.provider, "sandbox")
      assert.lengthOf(status.body.data.capabilities, 10)
      for (const sportId of [1, 18, 13]) {
        const leagues = yield* get(token, `/sports/leagues?sport_id=${sportId}`)
        assert.strictEqual(leagues.status, 200)
        assert.isAbove(leagues.body.data.results.length, 0)
        for (const league of leagues.body.data.results) {
          assert.isString(league.league_id)
          assert.isString(league.league_name)
        }
      }
      const upcoming = yield* get(token, "/sports/events/upcoming?sport_id=1")
      const first = upcoming.body.data.results[0]
      assert.deepStrictEqual(Object.keys(first).sort(), ["away_name", "event_id", "home_name", "league_id", "league_name", "starts_at"])
      assert.match(first.starts_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.isAbove(Date.parse(first.starts_at), Date.now() - 60_000)
      const byLeague = yield* get(token, `/sports/events/upcoming?sport_id=1&league_id=${first.league_id}`)
      for (const event of byLeague.body.data.results) assert.strictEqual(event.league_id, first.league_id)
      const secondPage = yield* get(token, "/sports/events/upcoming?sport_id=1&page=2")
      assert.strictEqual(secondPage.body.data.meta.page, 2)
      assert.notStrictEqual(secondPage.body.data.results[0].event_id, first.event_id)

      const liveList = yield* get(token, "/sports/events/live?sport_id=1")
      const inPlay = liveList.body.data.results[0]
      assert.match(inPlay.score, /^\d+-\d+$/)
      assert.isNumber(inPlay.minute)

      const today = new Date().toISOString().slice(0, 10)
      const ended = yield* get(token, "/sports/events/ended?sport_id=1")
      assert.match(ended.body.data.results[0].score, /^\d+-\d+$/)
      const endedToday = yield* get(token, `/sports/events/ended?sport_id=1&day=${today}`)
      assert.strictEqual(endedToday.status, 200)
    }))

  it.effect("an event in play: detail, odds, live odds, lineup, stats trend; and a result once ended", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const inPlay = (yield* get(token, "/sports/events/live?sport_id=1")).body.data.results[0]
      const id = inPlay.event_id

      const detail = yield* get(token, `/sports/events/live/${id}`)
      assert.deepInclude(detail.body.data, { event_id: id, home_name: inPlay.home_name, status: "live" })

      for (const path of [`/sports/events/${id}/odds`, `/sports/events/${id}/odds/live`]) {
        const odds = yield* get(token, path)
        assert.strictEqual(odds.status, 200, path)
        assert.strictEqual(odds.body.data.event_id, id)
        assert.isAbove(odds.body.data.markets.length, 0, path)
        for (const market of odds.body.data.markets) {
          assert.isString(market.name)
          for (const odd of market.odds) {
            assert.isString(odd.label)
            assert.isTrue(Number.isFinite(odd.value) && odd.value > 1)
          }
        }
      }

      const lineup = yield* get(token, `/sports/events/${id}/lineup`)
      assert.lengthOf(lineup.body.data.home, 11)
      assert.lengthOf(lineup.body.data.away, 11)

      const stats = yield* get(token, `/sports/events/${id}/stats-trend`)
      assert.strictEqual(stats.status, 200)
      for (const [key, value] of Object.entries(stats.body.data)) {
        if (key !== "event_id") assert.isTrue(Number.isInteger(value), key)
      }
      assert.property(stats.body.data, "possession_home")
      assert.property(stats.body.data, "shots_on_target_away")

      const notYet = yield* get(token, `/sports/events/${id}/result`)
      assert.strictEqual(notYet.status, 404)

      const ended = (yield* get(token, "/sports/events/ended?sport_id=1")).body.data.results[0]
      const result = yield* get(token, `/sports/events/${ended.event_id}/result`)
      const [home, away] = ended.score.split("-").map(Number)
      assert.deepStrictEqual(result.body.data, {
        event_id: ended.event_id,
        home_score: home,
        away_score: away,
        winner: home > away ? "home" : home < away ? "away" : "draw"
      })
    }))

  it.effect("an unknown event is a 404; tennis has no line-up", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const missing = yield* get(token, "/sports/events/123/odds")
      assert.deepStrictEqual([missing.status, missing.body], [404, { success: false, message: "Event 123 not found." }])
      const match = (yield* get(token, "/sports/events/upcoming?sport_id=13")).body.data.results[0]
      const lineup = yield* get(token, `/sports/events/${match.event_id}/lineup`)
      assert.strictEqual(lineup.status, 404)
      assert.match(lineup.body.message, /No line-up/)
    }))
})
