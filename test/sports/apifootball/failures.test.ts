/**
 * API-Football's failures as partners see them: each class a 502 with a message that says which and a partner-safe
 * provider_response (never "no data" for an error); the key never shown; the day's quota spent stops every call
 * until the day turns while the last answers go on being served; the minute's limit holds for a minute only.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Schema } from "effect"
import { ApiFootballApp, callsTo } from "../../support/ApiFootballApp.ts"
import { FakeApiFootball, fixtures } from "../../support/FakeApiFootball.ts"
import { live } from "../../support/live.ts"
import { makeLogCapture } from "../../support/LogCapture.ts"
import { bearer, dataAs, errorBody, givenPartner, request } from "../../support/TestApp.ts"

const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

const Failure = Schema.Struct({
  success: Schema.Literal(false),
  message: Schema.String,
  provider: Schema.String,
  provider_response: Schema.Record(Schema.String, Schema.Unknown)
})
const failureOf = (response: { readonly status: number; readonly body: unknown }) => {
  assert.strictEqual(response.status, 502, JSON.stringify(response.body))
  return Schema.decodeUnknownSync(Failure)(response.body)
}
const Results = Schema.Struct({ results: Schema.Array(Schema.Unknown) })

/** A day of the fake's calendar (YYYYMMDD), `offset` days from today. */
const dayFrom = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10).replaceAll("-", "")

const logs = makeLogCapture()

layer(ApiFootballApp().pipe(Layer.provide(logs.layer)), live)("API-Football failures", (it) => {
  describe("each class, worded", () => {
    it.effect("a refused key: 502 saying so, no hold, the key in no answer and no log line", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        fake.inject({ kind: "error", errors: { token: "Error/Missing application key." } })
        const response = yield* get(token, `/sports/events/${fixtures.live}/lineup`)
        const failure = failureOf(response)
        assert.match(failure.message, /refused the configured key \(APIFOOTBALL_KEY\)/)
        assert.deepStrictEqual(failure.provider_response, { errors: { token: "Error/Missing application key." } })
        assert.strictEqual(failure.provider, "apifootball")
        assert.notInclude(JSON.stringify(response.body), fake.key)
        assert.strictEqual((yield* get(token, `/sports/events/${fixtures.live}/lineup`)).status, 200)
        assert.notInclude(JSON.stringify(logs.entries), fake.key)
      }))

    it.effect("a season or date outside the plan: 502 saying so, and a repeat spends nothing", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        fake.inject({
          kind: "error",
          errors: { plan: "Free plans do not have access to this date, try from 2026-11-27 to 2026-11-29." }
        })
        const path = `/sports/events/ended?sport_id=1&day=${dayFrom(-9)}`
        assert.match(failureOf(yield* get(token, path)).message, /plan does not cover this: Free plans/)
        const before = callsTo(fake, "/fixtures")
        assert.match(failureOf(yield* get(token, path)).message, /plan does not cover/)
        assert.strictEqual(callsTo(fake, "/fixtures"), before)
      }))

    it.effect("a parameter refused: a 502 naming it (the partner's own input is checked before any call)", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        fake.inject({ kind: "error", errors: { date: "The Date field must contain a valid date." } })
        const failure = failureOf(yield* get(token, `/sports/events/ended?sport_id=1&day=${dayFrom(-8)}`))
        assert.match(failure.message, /refused the parameter date the gateway sent/)
        const invalid = yield* get(token, "/sports/events/ended?sport_id=1&day=20261340")
        assert.strictEqual(invalid.status, 422)
        assert.deepStrictEqual(Object.keys(errorBody(invalid).errors ?? {}), ["day"])
      }))

    it.effect("no content (204) is an empty list; a 500 and a hang are 502s that say so", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        fake.inject({ kind: "noContent" })
        assert.deepStrictEqual(
          dataAs(Results)(yield* get(token, `/sports/events/ended?sport_id=1&day=${dayFrom(-7)}`)).results,
          []
        )
        // A 500 is tried once more: twice is the 502.
        fake.inject({ kind: "status", status: 500 }, 2)
        assert.match(
          failureOf(yield* get(token, `/sports/events/ended?sport_id=1&day=${dayFrom(-6)}`)).message,
          /failed \(HTTP 500\)/
        )
        fake.inject({ kind: "hang" })
        assert.match(
          failureOf(yield* get(token, `/sports/events/ended?sport_id=1&day=${dayFrom(-5)}`)).message,
          /did not answer in time/
        )
      }))

    it.effect("every call carries the key in x-apisports-key and no header the host refuses", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        yield* get(token, `/sports/events/${fixtures.live}/odds/live`)
        const sent = fake.calls.filter((call) => call.path !== "/status")
        assert.isAbove(sent.length, 0)
        for (const call of sent) {
          assert.strictEqual(call.method, "GET")
          assert.strictEqual(call.headers["x-apisports-key"], fake.key)
          const refused = Object.keys(call.headers).filter((name) =>
            name === "content-type" || name === "traceparent" || name === "tracestate" || name.startsWith("b3") ||
            (name.startsWith("x-") && name !== "x-apisports-key")
          )
          assert.deepStrictEqual(refused, [], `${call.path}: ${refused.join(", ")}`)
        }
      }))
  })
})

layer(ApiFootballApp({ sports: { cacheTtlMax: Duration.zero } }), live)("API-Football's day spent", (it) => {
  it.effect("no call until the day turns; the last answers served meanwhile, marked STALE", () =>
    Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      const { token } = yield* givenPartner()
      const leagues = yield* get(token, "/sports/leagues?sport_id=1")
      assert.strictEqual(leagues.status, 200)
      fake.inject({ kind: "error", errors: { requests: "You have reached the request limit for the day" } })
      const spent = failureOf(yield* get(token, "/sports/events/live?sport_id=1"))
      assert.match(spent.message, /quota of the day is spent; it is asked again from \d{4}-\d\d-\d\dT00:00:00\.000Z/)
      assert.deepStrictEqual(Object.keys(spent.provider_response), ["errors"])

      const sent = fake.calls.length
      const stale = yield* get(token, "/sports/leagues?sport_id=1")
      assert.strictEqual(stale.status, 200)
      assert.strictEqual(stale.headers["x-cache"], "STALE")
      assert.deepStrictEqual(stale.body, leagues.body)
      const never = failureOf(yield* get(token, `/sports/events/${fixtures.finished}/result`))
      assert.strictEqual(never.provider_response.error, "QuotaSpent")
      assert.strictEqual(fake.calls.length, sent, "nothing reached the provider")
    }))
})

layer(ApiFootballApp({ sports: { cacheTtlMax: Duration.zero } }), live)("API-Football's minute", (it) => {
  it.effect("the minute's remaining 0 in the headers holds calls for a minute, not the day", () =>
    Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      const { token } = yield* givenPartner()
      fake.setLimits({ perMinute: fake.counted() + 1 })
      assert.strictEqual((yield* get(token, "/sports/leagues?sport_id=1")).status, 200)
      const sent = fake.calls.length
      const held = failureOf(yield* get(token, "/sports/events/live?sport_id=1"))
      assert.strictEqual(held.provider_response.error, "RateLimited")
      const until = Date.parse(/asked again from (\S+)\./.exec(held.message)?.[1] ?? "")
      assert.isAtMost(until - Date.now(), 61_000)
      assert.strictEqual(fake.calls.length, sent)
      assert.strictEqual((yield* get(token, "/sports/leagues?sport_id=1")).headers["x-cache"], "STALE")
    }))
})

layer(ApiFootballApp({ callsPerMinute: 2, sports: { cacheTtlMax: Duration.zero } }), live)(
  "API-Football's own limit",
  (it) => {
    it.effect("APIFOOTBALL_CALLS_PER_MINUTE is counted before anything is sent: no burst reaches the key", () =>
      Effect.gen(function*() {
        const fake = yield* FakeApiFootball
        const { token } = yield* givenPartner()
        const answers = yield* Effect.forEach(
          [1, 2, 3, 4, 5, 6],
          (n) => get(token, `/sports/events/ended?sport_id=1&day=${dayFrom(-n)}`),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(answers.filter((answer) => answer.status === 200).length, 2)
        assert.strictEqual(callsTo(fake, "/fixtures"), 2)
        for (const refused of answers.filter((answer) => answer.status !== 200)) {
          assert.match(failureOf(refused).message, /calls of this minute \(2\) are in use/)
        }
      }))
  }
)
