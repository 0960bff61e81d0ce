/**
 * Results with a life cycle on BetsAPI, over real HTTP and PostgreSQL with two instances on one database: a result
 * corrected after it was final reaches the stream (a `result` marked corrected, with the result it replaced) and the
 * result endpoint (corrected_at, previous), and every instance answers the same record, one started afterwards (a
 * restart) too; each `time_status` an event's own answer tells is its status, with the code's meaning as its reason.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Schema, Scope } from "effect"
import { baseUrlOf, FleetInstance, get } from "../../support/FleetApp.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { live } from "../../support/live.ts"
import { changesOf, openStream, streamProvider, streamProviderData, until } from "../../support/StreamApp.ts"
import { TestDatabaseUrlLive } from "../../support/TestDatabase.ts"
import { Partners } from "../../../src/partners/Partners.ts"

const providerData = streamProviderData()
const Data = Schema.Struct({ data: Schema.Record(Schema.String, Schema.Unknown) })

/** An instance in a scope of its own, with its address; the catalog refreshes soccer and basketball. */
const instance = (name: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      FleetInstance({
        redisUrl: undefined,
        keyPrefix: `results-${name}:`,
        sports: { cacheTtlMax: Duration.zero },
        catalog: { sportIds: [1, 18] }
      }),
      scope
    )
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return { context, url: yield* Effect.provide(baseUrlOf, context) }
  })

const set = (id: string, change: { readonly ss?: string; readonly timeStatus?: number }) => {
  providerData.events = providerData.events.map((event) => (event.id === id ? { ...event, ...change } : event))
}

const dataOf = (url: string, token: string, path: string) =>
  Effect.map(get(url, `/api/partner/v1${path}`, token), (answer) => {
    assert.strictEqual(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`)
    return Schema.decodeUnknownSync(Data)(answer.body).data
  })

const refreshThrough = (url: string, token: string) =>
  Effect.promise(() =>
    fetch(`${url}/api/partner/v1/sports/catalog/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` }
    })
      .then((response) => response.status)
  )

layer(Layer.mergeAll(FakeUpstream.layer(streamProvider(providerData)), TestDatabaseUrlLive), {
  ...live,
  timeout: 60_000
})("results with a life cycle on BetsAPI, across instances", (it) => {
  it.effect("a result corrected after final reaches the stream and the result endpoint, the same on every instance", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance("a")
      const b = yield* instance("b")
      const created = yield* Effect.orDie(Effect.flatMap(Effect.service(Partners), (p) => p.create({ name: "Book" })))
        .pipe(Effect.provide(a.context))
      const token = created.token
      // Event 90000 ended 100-99: the provider's first refresh records it (and sends nothing).
      assert.strictEqual(yield* refreshThrough(a.url, token), 200)
      const first = yield* dataOf(b.url, token, "/sports/events/90000/result")
      assert.deepInclude(first, { home_score: 100, away_score: 99, winner: "home", corrected_at: null, previous: null })
      assert.isString(first.final_at)

      const stream = yield* openStream(b.url, token, { query: "event_id=90000&kinds=result" })
      yield* until(stream, (s) => s.events.length === 1, "connected")
      set("90000", { ss: "100-101" })
      assert.strictEqual(yield* refreshThrough(a.url, token), 200)
      yield* until(stream, (s) => changesOf(s).length === 1, "the correction")
      const [corrected] = changesOf(stream)
      assert.strictEqual(corrected.event, "result")
      assert.deepInclude(corrected.data, {
        event_id: "90000",
        home_score: 100,
        away_score: 101,
        winner: "away",
        final_at: first.final_at,
        corrected: true,
        previous: { home_score: 100, away_score: 99, winner: "home" }
      })
      assert.isAtMost(Date.parse(first.final_at as string), Date.parse(corrected.data.corrected_at))

      const expected = {
        event_id: "90000",
        home_score: 100,
        away_score: 101,
        winner: "away",
        status: "final",
        final_at: first.final_at,
        corrected_at: corrected.data.corrected_at,
        previous: { home_score: 100, away_score: 99, winner: "home" }
      }
      assert.deepStrictEqual(yield* dataOf(a.url, token, "/sports/events/90000/result"), expected)
      assert.deepStrictEqual(yield* dataOf(b.url, token, "/sports/events/90000/result"), expected)
      // An instance started afterwards (a restart) answers the same: the record is the database's.
      const c = yield* instance("c")
      assert.deepStrictEqual(yield* dataOf(c.url, token, "/sports/events/90000/result"), expected)
      assert.strictEqual((yield* dataOf(c.url, token, "/sports/events/live/90000")).final_at, first.final_at)
    })))

  it.effect("each time_status an event's own answer tells: its status, with the code's meaning as its reason", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance("statuses")
      const created = yield* Effect.orDie(Effect.flatMap(Effect.service(Partners), (p) => p.create({ name: "Codes" })))
        .pipe(Effect.provide(a.context))
      const cases = [
        ["70000", 4, "postponed", "Postponed"],
        ["70001", 5, "cancelled", "Cancelled"],
        ["80000", 8, "abandoned", "Abandoned"],
        ["80001", 7, "suspended", "Interrupted"],
        ["70002", 99, "cancelled", "Removed"]
      ] as const
      for (const [id, timeStatus] of cases) set(id, { timeStatus })
      for (const [id, timeStatus, status, text] of cases) {
        const event = yield* dataOf(a.url, created.token, `/sports/events/live/${id}`)
        assert.deepInclude(event, { status, reason: { code: String(timeStatus), text }, final_at: null }, id)
      }
      const result = yield* get(a.url, "/api/partner/v1/sports/events/80000/result", created.token)
      assert.strictEqual(result.status, 404)
      assert.deepInclude(result.body, {
        message: "Event 80000 has no final result yet (it is abandoned: Abandoned)."
      })
    })))
})
