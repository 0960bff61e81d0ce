import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  bookmakers,
  FakeApiFootball,
  fillerFixtures,
  fixtures,
  leagues,
  preMatchBookmaker
} from "../support/FakeApiFootball.ts"
import { eventually, live } from "../support/live.ts"

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

const MINUTE = 60_000
const day = (millis: number) => new Date(millis).toISOString().slice(0, 10)

/** The fake, reset: each test starts from the default world. */
const freshFake = Effect.map(Effect.service(FakeApiFootball), (fake) => {
  fake.reset()
  return fake
})

/** A request over real HTTP; by default a GET with the valid key and nothing else (bar what fetch adds). */
const send = (
  fake: FakeApiFootball["Service"],
  path: string,
  init: { readonly method?: string; readonly headers?: Record<string, string> } = {}
) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(`${fake.url}${path}`, {
      method: init.method ?? "GET",
      headers: init.headers ?? { "x-apisports-key": fake.key }
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text.startsWith("{") ? JSON.parse(text) : text }
  })

/** The response items of a successful answer. */
const items = (fake: FakeApiFootball["Service"], path: string) =>
  Effect.map(send(fake, path), (answer) => {
    assert.deepStrictEqual(answer.body.errors, [], `errors on ${path}`)
    return answer.body.response as Array<any>
  })

layer(FakeApiFootball.layer, live)("a fake API-Football over real HTTP", (it) => {
  describe("the envelope, the key, the headers and the method", () => {
    it.effect("every path answers in the envelope, unknown ones too, with parameters echoed as strings", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const unknown = yield* send(fake, "/nowhere")
        assert.strictEqual(unknown.status, 200)
        assert.deepStrictEqual(unknown.body, {
          get: "nowhere",
          parameters: [],
          errors: { endpoint: "This endpoint do not exist." },
          results: 0,
          paging: { current: 1, total: 1 },
          response: []
        })
        const fixture = yield* send(fake, `/fixtures?id=${fixtures.live}`)
        assert.strictEqual(fixture.body.get, "fixtures")
        assert.deepStrictEqual(fixture.body.parameters, { id: String(fixtures.live) })
        assert.strictEqual(fixture.body.results, 1)
      }))

    it.effect("only GET: another method is a 405 with the envelope", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const answer = yield* send(fake, "/fixtures?live=all", {
          method: "POST",
          headers: { "x-apisports-key": fake.key }
        })
        assert.strictEqual(answer.status, 405)
        assert.deepStrictEqual(Object.keys(answer.body.errors), ["method"])
        assert.strictEqual(fake.counted(), 0)
      }))

    it.effect("no key is a 403; a wrong key an HTTP 200 token error; neither counted nor given rate headers", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const missing = yield* send(fake, "/leagues", { headers: {} })
        assert.strictEqual(missing.status, 403)
        assert.strictEqual(missing.body.get, "")
        assert.match(missing.body.errors.token, /^Missing application key/)
        assert.isNull(missing.headers.get("x-ratelimit-requests-remaining"))
        const wrong = yield* send(fake, "/leagues", { headers: { "x-apisports-key": "not-the-key" } })
        assert.strictEqual(wrong.status, 200)
        assert.match(wrong.body.errors.token, /^Error\/Missing application key\. Go to https:\/\/www\.api-football/)
        assert.strictEqual(wrong.body.results, 0)
        assert.deepStrictEqual(wrong.body.response, [])
        assert.isNull(wrong.headers.get("X-RateLimit-Remaining"))
        const rapid = yield* send(fake, "/leagues", {
          headers: { "x-rapidapi-key": fake.key, "x-rapidapi-host": "v3.football.api-sports.io" }
        })
        assert.deepStrictEqual(rapid.body.errors, [])
        assert.strictEqual(fake.counted(), 1)
        assert.strictEqual(fake.calls.length, 3)
      }))

    it.effect("a header the host does not allow (Content-Type, tracing) is refused in a 200 and not counted", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        for (const name of ["content-type", "traceparent", "x-b3-traceid", "x-request-id"]) {
          const answer = yield* send(fake, "/leagues", { headers: { "x-apisports-key": fake.key, [name]: "1" } })
          assert.strictEqual(answer.status, 200)
          assert.deepStrictEqual(answer.body.errors, { headers: `Header ${name} is not allowed` })
        }
        assert.strictEqual(fake.counted(), 0)
      }))
  })

  describe("the quota", () => {
    it.effect("counted calls carry the day's and the minute's headers; /status is free and tells the day's count", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const first = yield* send(fake, "/leagues")
        assert.strictEqual(first.headers.get("x-ratelimit-requests-limit"), "7500")
        assert.strictEqual(first.headers.get("x-ratelimit-requests-remaining"), "7499")
        assert.strictEqual(first.headers.get("X-RateLimit-Limit"), "300")
        assert.strictEqual(first.headers.get("X-RateLimit-Remaining"), "299")
        const status = yield* send(fake, "/status")
        assert.notProperty(status.body, "paging")
        assert.strictEqual(status.body.response.subscription.plan, "Pro")
        assert.deepStrictEqual(status.body.response.requests, { current: 1, limit_day: 7500 })
        assert.strictEqual(fake.counted(), 1)
      }))

    it.effect("past the day's limit: a 'requests' error until 00:00 UTC of the fake's clock", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        fake.setLimits({ perDay: 2 })
        const noon = Date.UTC(2026, 10, 29, 12, 0, 0)
        fake.setNow(noon)
        yield* send(fake, "/leagues")
        yield* send(fake, "/leagues")
        const refused = yield* send(fake, "/leagues")
        assert.match(refused.body.errors.requests, /^You have reached the request limit for the day/)
        assert.strictEqual(refused.headers.get("x-ratelimit-requests-remaining"), "0")
        assert.strictEqual(fake.counted(), 2)
        fake.setNow(noon + 12 * 60 * MINUTE + 1_000)
        const nextDay = yield* send(fake, "/leagues")
        assert.deepStrictEqual(nextDay.body.errors, [])
        assert.strictEqual(nextDay.headers.get("x-ratelimit-requests-remaining"), "1")
      }))

    it.effect("past the minute's limit: a 'rateLimit' error until the next whole minute, the day untouched", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        fake.setLimits({ perMinute: 1 })
        const start = Date.UTC(2026, 10, 29, 12, 0, 10)
        fake.setNow(start)
        yield* send(fake, "/leagues")
        const refused = yield* send(fake, "/leagues")
        assert.deepStrictEqual(Object.keys(refused.body.errors), ["rateLimit"])
        assert.strictEqual(refused.headers.get("X-RateLimit-Remaining"), "0")
        assert.strictEqual(refused.headers.get("x-ratelimit-requests-remaining"), "7499")
        fake.setNow(start + 50_000)
        assert.deepStrictEqual((yield* send(fake, "/leagues")).body.errors, [])
      }))
  })

  describe("the data", () => {
    it.effect("leagues: countries with and without a code, seasons with coverage, filters id and current", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const all = yield* send(fake, "/leagues")
        assert.deepStrictEqual(all.body.paging, { current: 1, total: 1 })
        assert.sameMembers(all.body.response.map((item: any) => item.league.id), Object.values(leagues))
        const [ucl] = yield* items(fake, `/leagues?id=${leagues.championsLeague}`)
        assert.deepStrictEqual(ucl.country, { name: "World", code: null, flag: null })
        const [pl] = yield* items(fake, `/leagues?id=${leagues.premierLeague}&current=true`)
        assert.deepStrictEqual(pl.country, {
          name: "England",
          code: "GB",
          flag: "https://media.api-sports.io/flags/gb.svg"
        })
        assert.strictEqual(pl.seasons.length, 1)
        assert.isTrue(pl.seasons[0].current)
        assert.isTrue(pl.seasons[0].coverage.odds)
        assert.isBoolean(pl.seasons[0].coverage.fixtures.lineups)
      }))

    it.effect("fixtures: by id with events, lineups, statistics and players inline; live=all; date and status", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const [liveOne] = yield* items(fake, `/fixtures?id=${fixtures.live}`)
        assert.deepStrictEqual(liveOne.fixture.status, { long: "Second Half", short: "2H", elapsed: 62, extra: null })
        assert.deepStrictEqual(liveOne.goals, { home: 1, away: 0 })
        assert.strictEqual(liveOne.fixture.timestamp * 1000, fake.kickoff(fixtures.live))
        assert.match(liveOne.fixture.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/)
        assert.strictEqual(liveOne.lineups.length, 2)
        assert.strictEqual(liveOne.lineups[0].startXI[0].player.grid, "1:1")
        assert.strictEqual(liveOne.statistics.length, 2)
        assert.isAbove(liveOne.events.length, 0)
        assert.strictEqual(liveOne.players.length, 2)
        const inPlay = yield* items(fake, "/fixtures?live=all")
        assert.sameMembers(inPlay.map((f) => f.fixture.id), [fixtures.live, fixtures.halfTime])
        assert.notProperty(inPlay[0], "lineups")
        const today = day(fake.kickoff(fixtures.upcoming))
        const scheduled = yield* items(fake, `/fixtures?date=${today}&status=NS-TBD`)
        const upcoming = scheduled.find((f) => f.fixture.id === fixtures.upcoming)
        assert.deepStrictEqual(upcoming.goals, { home: null, away: null })
        assert.isTrue(scheduled.every((f) => ["NS", "TBD"].includes(f.fixture.status.short)))
      }))

    it.effect("finished fixtures: AET and PEN scores, the winner decided on penalties", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const [aet, pen] = yield* items(fake, `/fixtures?ids=${fixtures.afterExtraTime}-${fixtures.penalties}`)
        assert.strictEqual(aet.fixture.status.short, "AET")
        assert.deepStrictEqual(aet.score.extratime, { home: 1, away: 0 })
        assert.strictEqual(pen.fixture.status.short, "PEN")
        assert.strictEqual(pen.goals.home, pen.goals.away)
        assert.deepStrictEqual(pen.score.penalty, { home: 4, away: 5 })
        assert.deepStrictEqual([pen.teams.home.winner, pen.teams.away.winner], [false, true])
        const others = yield* items(
          fake,
          `/fixtures?ids=${fixtures.postponed}-${fixtures.cancelled}-${fixtures.abandoned}`
        )
        assert.sameMembers(others.map((f) => f.fixture.status.short), ["PST", "CANC", "ABD"])
      }))

    it.effect("bad parameters are HTTP 200 errors keyed by the parameter", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const errorsOf = (path: string) => Effect.map(send(fake, path), (answer) => answer.body.errors)
        assert.deepStrictEqual(yield* errorsOf("/fixtures?date=yesterday"), {
          date: "The Date field must contain a valid date. Example: 2020-01-01"
        })
        assert.deepStrictEqual(yield* errorsOf("/fixtures?id=abc"), { id: "The Id field must contain an integer." })
        const ids = Array.from({ length: 21 }, (_, i) => 1000 + i).join("-")
        assert.deepStrictEqual(yield* errorsOf(`/fixtures?ids=${ids}`), { ids: "Maximum of 20 ids" })
      }))

    it.effect("lineups and statistics on their own paths; statistics typed as numbers, \"58%\" and null", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const lineups = yield* items(fake, `/fixtures/lineups?fixture=${fixtures.halfTime}`)
        assert.strictEqual(lineups.length, 2)
        assert.strictEqual(lineups[1].substitutes[0].player.grid, null)
        const value = (stats: Array<any>, type: string) => stats[0].statistics.find((s: any) => s.type === type)?.value
        const stats = yield* items(fake, `/fixtures/statistics?fixture=${fixtures.live}`)
        assert.strictEqual(value(stats, "Ball Possession"), "58%")
        assert.strictEqual(value(stats, "Shots on Goal"), 5)
        assert.isNull(value(stats, "Corner Kicks"))
        assert.strictEqual(value(stats, "Passes %"), "81%")
        fake.setStatistics(fixtures.live, "home", "Corner Kicks", 4)
        assert.strictEqual(
          value(yield* items(fake, `/fixtures/statistics?fixture=${fixtures.live}`), "Corner Kicks"),
          4
        )
      }))

    it.effect("pre-match odds: 10 a page, two bookmakers, odd as a string, a value as a number; NS fixtures, and started ones' last (7 days of history)", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const date = day(fake.kickoff(fillerFixtures[0]!))
        const first = yield* send(fake, `/odds?date=${date}`)
        assert.deepStrictEqual(first.body.paging, { current: 1, total: 3 })
        assert.strictEqual(first.body.results, 10)
        const item = first.body.response[0]
        assert.sameMembers(item.bookmakers.map((b: any) => b.id), [bookmakers.bet365, bookmakers.bwin])
        const bet365 = item.bookmakers.find((b: any) => b.id === preMatchBookmaker)
        assert.deepStrictEqual(bet365.bets.map((b: any) => b.id), [1, 5, 38])
        assert.match(bet365.bets[0].values[0].odd, /^\d+\.\d\d$/)
        assert.strictEqual(bet365.bets[2].values[4].value, 4)
        const third = yield* send(fake, `/odds?date=${date}&page=3`)
        assert.isAbove(third.body.results, 0)
        const beyond = yield* send(fake, `/odds?date=${date}&page=4`)
        assert.strictEqual(beyond.body.results, 0)
        const one = yield* items(fake, `/odds?fixture=${fixtures.upcoming}&bookmaker=${preMatchBookmaker}`)
        assert.deepStrictEqual(one[0].bookmakers.map((b: any) => b.name), ["Bet365"])
        const [started] = yield* items(fake, `/odds?fixture=${fixtures.live}`)
        assert.isBelow(Date.parse(started.update), fake.kickoff(fixtures.live), "the last update before kick-off")
        assert.deepStrictEqual(yield* items(fake, `/odds?fixture=${fixtures.postponed}`), [])
        assert.deepStrictEqual(yield* items(fake, `/odds?fixture=${fixtures.cancelled}`), [])
      }))
  })

  describe("the life cycle and the live-odds window", () => {
    it.effect("live odds while in play: one main line among duplicates, a suspended value", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const [item] = yield* items(fake, `/odds/live?fixture=${fixtures.live}`)
        assert.deepStrictEqual(item.teams.home, { id: 541, goals: 1 })
        assert.deepStrictEqual(item.status, { stopped: false, blocked: false, finished: false })
        assert.match(item.fixture.status.seconds, /^62:\d\d$/)
        const overs = item.odds.flatMap((bet: any) => bet.values)
          .filter((v: any) => v.value === "Over" && v.handicap === "2.5")
        assert.strictEqual(overs.length, 2)
        assert.notStrictEqual(overs[0].odd, overs[1].odd)
        assert.strictEqual(overs.filter((v: any) => v.main === true).length, 1)
        assert.isTrue(item.odds.some((bet: any) => bet.values.some((v: any) => v.suspended)))
      }))

    it.effect("the window opens 15 minutes before kick-off and closes 20 minutes after the end", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        const kickoff = fake.kickoff(fixtures.upcoming)
        const liveOdds = `/odds/live?fixture=${fixtures.upcoming}`
        fake.setNow(kickoff - 16 * MINUTE)
        assert.strictEqual((yield* send(fake, liveOdds)).body.results, 0)
        fake.setNow(kickoff - 14 * MINUTE)
        assert.strictEqual((yield* send(fake, liveOdds)).body.results, 1)
        fake.setNow(kickoff + MINUTE)
        fake.setStatus(fixtures.upcoming, "1H", 1)
        fake.score(fixtures.upcoming, 0, 1)
        const [started] = yield* items(fake, `/fixtures?id=${fixtures.upcoming}`)
        assert.deepStrictEqual(started.goals, { home: 0, away: 1 })
        assert.strictEqual(started.events[0].type, "Goal")
        assert.isTrue(started.teams.away.winner)
        fake.setNow(kickoff + 110 * MINUTE)
        fake.setStatus(fixtures.upcoming, "FT")
        const [over] = yield* items(fake, `/fixtures?id=${fixtures.upcoming}`)
        assert.deepStrictEqual(over.score.fulltime, { home: 0, away: 1 })
        fake.setNow(kickoff + 129 * MINUTE)
        const [closing] = yield* items(fake, liveOdds)
        assert.isTrue(closing.status.finished)
        fake.setNow(kickoff + 131 * MINUTE)
        assert.strictEqual((yield* send(fake, liveOdds)).body.results, 0)
      }))
  })

  describe("faults injected", () => {
    it.effect("a 204, a 500, an error envelope and a dropped socket, each once, then normal answers", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        fake.inject({ kind: "noContent" })
        fake.inject({ kind: "status", status: 500 })
        fake.inject({ kind: "error", errors: { plan: "Free plans do not have access to this season." } })
        fake.inject({ kind: "close" })
        fake.inject({ kind: "error", errors: { token: "Error/Missing application key." } })
        const noContent = yield* send(fake, "/leagues")
        assert.deepStrictEqual([noContent.status, noContent.body], [204, ""])
        assert.strictEqual((yield* send(fake, "/status")).status, 200)
        const failed = yield* send(fake, "/leagues")
        assert.strictEqual(failed.status, 500)
        assert.isString(failed.body)
        const plan = yield* send(fake, "/leagues")
        assert.deepStrictEqual([plan.status, plan.body.errors, plan.body.results], [200, {
          plan: "Free plans do not have access to this season."
        }, 0])
        const dropped = yield* Effect.promise(() =>
          fetch(`${fake.url}/leagues`, { headers: { "x-apisports-key": fake.key } }).then(
            () => "answered",
            () => "dropped"
          )
        )
        assert.strictEqual(dropped, "dropped")
        assert.match((yield* send(fake, "/leagues")).body.errors.token, /^Error/)
        assert.strictEqual(fake.counted(), 4)
        assert.deepStrictEqual((yield* send(fake, "/leagues")).body.errors, [])
      }))

    it.effect("a hold answers normally after its delay; a hang never answers while later calls do", () =>
      Effect.gen(function*() {
        const fake = yield* freshFake
        fake.inject({ kind: "hold", millis: 150 })
        const started = Date.now()
        assert.deepStrictEqual((yield* send(fake, "/leagues")).body.errors, [])
        assert.isAtLeast(Date.now() - started, 150)
        fake.inject({ kind: "hang" })
        const controller = new AbortController()
        const hanging = fetch(`${fake.url}/leagues`, {
          headers: { "x-apisports-key": fake.key },
          signal: controller.signal
        }).then(() => "answered", () => "aborted")
        yield* eventually(Effect.sync(() => fake.calls.length), (n) => n === 2, "the hanging call received")
        assert.deepStrictEqual((yield* send(fake, "/leagues")).body.errors, [])
        assert.strictEqual(yield* Effect.promise(() => Promise.race([hanging, Promise.resolve("pending")])), "pending")
        controller.abort()
        assert.strictEqual(yield* Effect.promise(() => hanging), "aborted")
      }))
  })
})
