/**
 * Results with a life cycle on API-Football's world, over real HTTP and PostgreSQL: each fixture status in the life
 * cycle with the provider's reason, on the provider endpoints and the change stream; a fixture still in play past
 * SPORTS_OVERDUE_AFTER is suspended (overdue), not final; a result that comes 48 hours late still becomes final and is
 * streamed; a result corrected after it was final reaches the stream (marked, with the result it replaced) and the
 * result endpoint (corrected_at, previous), which every instance answers from the service's own record.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { ApiFootballApp } from "../../support/ApiFootballApp.ts"
import { refresh } from "../../support/CatalogApp.ts"
import { FakeApiFootball, fillerFixtures, fixtures } from "../../support/FakeApiFootball.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { live } from "../../support/live.ts"
import { changesOf, type OpenStream, openStream, until } from "../../support/StreamApp.ts"
import { bearer, dataAs, errorBody, givenPartner, request } from "../../support/TestApp.ts"

const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })
const Anything = Schema.Record(Schema.String, Schema.Unknown)
const Results = Schema.Struct({ results: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) })
const DAY = 86_400_000
const utcDay = (millis: number) => new Date(millis).toISOString().slice(0, 10).replaceAll("-", "")

/** The changes a stream got about `id`, as [event name, data]. */
const about = (stream: OpenStream, id: number) =>
  changesOf(stream).filter((change) => change.data.event_id === String(id))

/** Waits until the stream got a change of `kind` about `id` that `holds`; that change's data. */
const awaitChange = (stream: OpenStream, id: number, kind: string, holds: (data: any) => boolean = () => true) =>
  Effect.map(
    until(stream, (s) => about(s, id).some((c) => c.event === kind && holds(c.data)), `a ${kind} change of ${id}`),
    (s) => about(s, id).find((c) => c.event === kind && holds(c.data))!.data
  )

layer(
  ApiFootballApp({ sports: { cacheTtlMax: Duration.zero, overdueAfter: Duration.hours(1) } }),
  live
)("results with a life cycle on API-Football", (it) => {
  it.effect("each status with the provider's reason on the provider endpoints; in play past the bound is overdue", () =>
    Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      const { token } = yield* givenPartner()
      const detail = (id: number) => Effect.map(get(token, `/sports/events/live/${id}`), dataAs(Anything))
      const lifeCycle = (data: Record<string, unknown>) => [data.status, data.reason]
      assert.deepStrictEqual(lifeCycle(yield* detail(fixtures.postponed)), [
        "postponed",
        { code: "PST", text: "Match Postponed" }
      ])
      assert.deepStrictEqual(lifeCycle(yield* detail(fixtures.cancelled)), [
        "cancelled",
        { code: "CANC", text: "Match Cancelled" }
      ])
      assert.deepStrictEqual(lifeCycle(yield* detail(fixtures.abandoned)), [
        "abandoned",
        { code: "ABD", text: "Match Abandoned" }
      ])
      assert.deepStrictEqual(lifeCycle(yield* detail(fixtures.tbd)), [
        "scheduled",
        { code: "TBD", text: "Time To Be Defined" }
      ])
      assert.deepStrictEqual(lifeCycle(yield* detail(fixtures.upcoming)), ["scheduled", null])
      assert.deepStrictEqual(lifeCycle(yield* detail(fixtures.halfTime)), ["live", null], "50 minutes in")
      const stuck = yield* detail(fixtures.live)
      assert.strictEqual(stuck.status, "suspended", "77 minutes after kick-off, past the bound (1 hour)")
      assert.deepInclude(stuck.reason as object, { code: "overdue" })

      const notFinal = yield* get(token, `/sports/events/${fixtures.abandoned}/result`)
      assert.strictEqual(notFinal.status, 404)
      assert.strictEqual(
        errorBody(notFinal).message,
        `Event ${fixtures.abandoned} has no final result yet (it is abandoned: Match Abandoned).`
      )

      // The day lists carry them too: postponed among the upcoming, cancelled and abandoned among the ended.
      const today = utcDay(fake.kickoff(fixtures.postponed))
      const upcoming = dataAs(Results)(yield* get(token, `/sports/events/upcoming?day=${today}`)).results
      assert.deepInclude(upcoming.find((event) => event.event_id === String(fixtures.postponed)), {
        status: "postponed",
        reason: { code: "PST", text: "Match Postponed" }
      })
      const yesterday = utcDay(fake.kickoff(fixtures.finished))
      const ended = dataAs(Results)(yield* get(token, `/sports/events/ended?day=${yesterday}`)).results
      const statusOf = (id: number) => ended.find((event) => event.event_id === String(id))?.status
      assert.deepStrictEqual(
        [statusOf(fixtures.finished), statusOf(fixtures.cancelled), statusOf(fixtures.abandoned)],
        ["final", "cancelled", "abandoned"]
      )

      // A final event says when the service first saw it final: the result read recorded it.
      const result = dataAs(Anything)(yield* get(token, `/sports/events/${fixtures.finished}/result`))
      assert.isString(result.final_at)
      assert.strictEqual((yield* detail(fixtures.finished)).final_at, result.final_at)
    }))

  it.effect("on the stream: postponed, cancelled, abandoned with their reasons; stuck in play suspended, not final", () =>
    Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      const { token } = yield* givenPartner()
      yield* refresh(token)
      const stream = yield* openStream(yield* baseUrlOf, token, { query: "kinds=event&kinds=result" })
      yield* until(stream, (s) => s.events.length >= 1, "connected")

      fake.setStatus(fixtures.upcoming, "PST")
      fake.setStatus(fixtures.tomorrow, "CANC")
      fake.setStatus(fixtures.startingSoon, "1H", 3)
      yield* refresh(token)
      fake.setStatus(fixtures.startingSoon, "ABD", 20)
      fake.setKickoff(fixtures.halfTime, Date.now() - 2 * 3_600_000)
      yield* refresh(token)

      const postponed = yield* awaitChange(stream, fixtures.upcoming, "event", (data) => data.status === "postponed")
      assert.deepInclude(postponed, {
        changed: ["status"],
        reason: { code: "PST", text: "Match Postponed" },
        active: true,
        final_at: null
      })
      const cancelled = yield* awaitChange(stream, fixtures.tomorrow, "event", (data) => data.status === "cancelled")
      assert.deepStrictEqual(cancelled.reason, { code: "CANC", text: "Match Cancelled" })
      const abandoned = yield* awaitChange(stream, fixtures.startingSoon, "event", (d) => d.status === "abandoned")
      assert.deepStrictEqual(abandoned.reason, { code: "ABD", text: "Match Abandoned" })
      const stuck = yield* awaitChange(stream, fixtures.halfTime, "event", (data) => data.status === "suspended")
      assert.strictEqual(stuck.reason.code, "overdue")
      assert.isNull(stuck.final_at)
      for (const id of [fixtures.upcoming, fixtures.tomorrow, fixtures.startingSoon, fixtures.halfTime]) {
        assert.isFalse(about(stream, id).some((change) => change.event === "result"), `no result for ${id}`)
      }
    }))

  it.effect("a result that comes 48 hours late still becomes final and is streamed", () =>
    Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      const { token } = yield* givenPartner()
      // Kicked off late on the day before yesterday (UTC), no live scores: NS until the provider has the final.
      const late = fillerFixtures[0]
      const dayBeforeYesterday = Math.floor(Date.now() / DAY) * DAY - 2 * DAY
      fake.setKickoff(late, dayBeforeYesterday + 23 * 3_600_000)
      yield* refresh(token)
      const stream = yield* openStream(yield* baseUrlOf, token, { query: `event_id=${late}` })
      yield* until(stream, (s) => s.events.length >= 1, "connected")

      fake.setStatus(late, "FT")
      fake.score(late, 3, 1)
      yield* refresh(token)
      const event = yield* awaitChange(stream, late, "event", (data) => data.status === "final")
      const result = yield* awaitChange(stream, late, "result")
      assert.deepInclude(result, { home_score: 3, away_score: 1, winner: "home", corrected: false, previous: null })
      assert.strictEqual(result.final_at, event.final_at)
    }))

  it.effect("a result corrected after final reaches the stream and the result endpoint, the same from the record", () =>
    Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      const sql = yield* SqlClient.SqlClient
      const { token } = yield* givenPartner()
      const id = fixtures.afterExtraTime
      yield* refresh(token)
      const first = dataAs(Anything)(yield* get(token, `/sports/events/${id}/result`))
      assert.deepInclude(first, { home_score: 2, away_score: 1, winner: "home", corrected_at: null, previous: null })
      const stream = yield* openStream(yield* baseUrlOf, token, { query: `event_id=${id}&kinds=result` })
      yield* until(stream, (s) => s.events.length >= 1, "connected")

      fake.score(id, 2, 2)
      yield* refresh(token)
      const corrected = yield* awaitChange(stream, id, "result", (data) => data.corrected === true)
      assert.deepInclude(corrected, {
        home_score: 2,
        away_score: 2,
        winner: "draw",
        final_at: first.final_at,
        previous: { home_score: 2, away_score: 1, winner: "home" }
      })
      assert.isString(corrected.corrected_at)

      const answered = dataAs(Anything)(yield* get(token, `/sports/events/${id}/result`))
      assert.deepStrictEqual(answered, {
        event_id: String(id),
        home_score: 2,
        away_score: 2,
        winner: "draw",
        status: "final",
        final_at: first.final_at,
        corrected_at: corrected.corrected_at,
        previous: { home_score: 2, away_score: 1, winner: "home" }
      })
      // The service's own record, in PostgreSQL: what any instance answers, after any restart.
      const [row] = yield* sql<{ corrected_at: Date; previous_home_score: number; previous_away_score: number }>`
        SELECT corrected_at, previous_home_score, previous_away_score FROM sports_results
        WHERE provider = 'apifootball' AND event_id = ${String(id)}`
      assert.deepStrictEqual(
        [row.corrected_at.toISOString(), row.previous_home_score, row.previous_away_score],
        [corrected.corrected_at, 2, 1]
      )
    }))
})
