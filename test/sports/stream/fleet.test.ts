/**
 * The live change stream across a fleet: two instances on one database serve the same log, a change made
 * through one reaches streams on both with the same ids, an instance that stops tells its streams to
 * reconnect and the typed client resumes on the other with no gap and no repeat; the limit of open streams
 * per partner holds across the fleet under concurrent connects.
 */
import { assert, layer } from "@effect/vitest"
import { type Context, Duration, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { makePartnerClient, type SportsChange, sportsChanges } from "../../../src/client/PartnerClient.ts"
import { Partners } from "../../../src/partners/Partners.ts"
import { baseUrlOf, FleetInstance, type FleetSettings } from "../../support/FleetApp.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { eventually, live } from "../../support/live.ts"
import {
  changesOf,
  logPositions,
  openStream,
  streamProvider,
  streamProviderData,
  until
} from "../../support/StreamApp.ts"
import { TestDatabaseUrlLive } from "../../support/TestDatabase.ts"

const providerData = streamProviderData()

const settings = (name: string): FleetSettings => ({
  redisUrl: undefined,
  keyPrefix: `stream-${name}:`,
  // Answers never reused: changed data is seen at once.
  sports: { cacheTtlMax: Duration.zero },
  stream: { maxConnectionsPerPartner: 3 }
})

/** An instance in a scope of its own (so the test can stop it), with its address. */
const instance = (name: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(FleetInstance(settings(name)), scope)
    return { scope, context, url: yield* Effect.provide(baseUrlOf, context) }
  })

const givenToken = (context: Context.Context<Partners>, name: string) =>
  Effect.map(
    Effect.orDie(Effect.flatMap(Effect.service(Partners), (partners) => partners.create({ name }))),
    (created) => created.token
  ).pipe(
    Effect.provide(context)
  )

const refreshThrough = (url: string, token: string) =>
  Effect.promise(() =>
    fetch(`${url}/api/partner/v1/sports/catalog/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` }
    })
      .then((response) => response.status)
  )

const setScore = (id: string, ss: string) => {
  providerData.events = providerData.events.map((event) => (event.id === id ? { ...event, ss } : event))
}

layer(Layer.mergeAll(FakeUpstream.layer(streamProvider(providerData)), TestDatabaseUrlLive), {
  ...live,
  timeout: 60_000
})(
  "the live change stream across a fleet",
  (it) => {
    it.effect("a change made through one instance reaches streams on both; a stopped instance's client resumes on the other", () =>
      Effect.scoped(Effect.gen(function*() {
        const a = yield* instance("a")
        const b = yield* instance("b")
        yield* Effect.addFinalizer(() =>
          Effect.andThen(Scope.close(a.scope, Exit.void), Scope.close(b.scope, Exit.void))
        )
        const token = yield* givenToken(a.context, "Fleet")
        assert.strictEqual(yield* refreshThrough(a.url, token), 200)
        const [start = "0"] = (yield* logPositions("betsapi").pipe(Effect.provide(a.context))).slice(-1)

        const onA = yield* openStream(a.url, token, { query: "sport_id=1" })
        const onB = yield* openStream(b.url, token, { query: "sport_id=1" })
        // The typed client, behind a balancer that sends it to B, and to A once B is gone.
        let target = b.url
        const balanced = Layer.effect(
          HttpClient.HttpClient,
          Effect.map(
            Effect.service(HttpClient.HttpClient),
            (client) => HttpClient.mapRequest(client, (request) => HttpClientRequest.prependUrl(request, target))
          )
        ).pipe(Layer.provide(FetchHttpClient.layer))
        const received: Array<SportsChange> = []
        const client = yield* makePartnerClient({ token }).pipe(Effect.provide(balanced))
        const reading = yield* sportsChanges(client, { query: { sport_id: ["1"] }, reconnectAfter: "100 millis" }).pipe(
          Stream.runForEach((event) => Effect.sync(() => received.push(event))),
          Effect.provide(balanced),
          Effect.forkChild
        )
        yield* until(onB, (s) => s.events.length === 1, "connected on B")
        yield* eventually(Effect.sync(() => received.length), (n) => n === 1, "the typed client connected")

        setScore("80000", "2-0")
        assert.strictEqual(yield* refreshThrough(a.url, token), 200)
        yield* until(onA, (s) => changesOf(s).length === 1, "the change on A")
        yield* until(onB, (s) => changesOf(s).length === 1, "the change on B")
        assert.deepStrictEqual(changesOf(onB), changesOf(onA))
        assert.deepInclude(changesOf(onB)[0].data, { event_id: "80000", score: "2-0" })

        // B stops: its streams get the retry hint and end; the client reconnects, to A, after it.
        yield* eventually(Effect.sync(() => received.length), (n) => n === 2, "the change on the typed client")
        target = a.url
        yield* Scope.close(b.scope, Exit.void)
        assert.isTrue(onB.ended())
        assert.strictEqual(onB.retries.length, 1)
        assert.isAtLeast(onB.retries[0], 1_000)
        setScore("80002", "4-4")
        assert.strictEqual(yield* refreshThrough(a.url, token), 200)
        yield* eventually(
          Effect.sync(() => received.filter((event) => event.event === "score").length),
          (n) => n === 2,
          "the change made while it reconnected"
        )
        yield* Fiber.interrupt(reading)

        const connects = received.filter((event) => event.event === "connected")
        assert.strictEqual(connects.length, 2)
        assert.strictEqual(connects[1].id, received[1].id, "the second connection went on after the last id")
        const scores = received.filter((event) => event.event === "score")
        assert.deepStrictEqual(
          scores.map((event) => event.id),
          yield* logPositions("betsapi", Number(start)).pipe(Effect.provide(a.context))
        )
        assert.deepStrictEqual(scores.map((event) => event.event === "score" && event.data.score), ["2-0", "4-4"])
      })))

    it.effect("STREAM_MAX_CONNECTIONS_PER_PARTNER holds across the fleet when connects race on both instances", () =>
      Effect.scoped(Effect.gen(function*() {
        const a = yield* instance("limit-a")
        const b = yield* instance("limit-b")
        yield* Effect.addFinalizer(() =>
          Effect.andThen(Scope.close(a.scope, Exit.void), Scope.close(b.scope, Exit.void))
        )
        const token = yield* givenToken(a.context, "Greedy")
        const attempts = yield* Effect.forEach(
          Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a.url : b.url)),
          (url) => openStream(url, token),
          { concurrency: "unbounded" }
        )
        const open = attempts.filter((stream) => stream.status === 200)
        const refused = attempts.filter((stream) => stream.status === 429)
        assert.strictEqual(open.length, 3)
        assert.strictEqual(refused.length, 5)
        assert.include(refused[0].error.message, "may hold 3 at once in its live environment")

        // One closes: its lease goes with it, and a new stream is admitted.
        yield* open[0].close
        const again = yield* eventually(
          Effect.flatMap(
            openStream(b.url, token),
            (stream) => stream.status === 200 ? Effect.succeed(stream) : Effect.fail("refused")
          ).pipe(
            Effect.option
          ),
          (stream) => stream._tag === "Some",
          "a stream admitted once one closed"
        )
        assert.strictEqual(again._tag, "Some")

        // Closed by their clients, streams give their leases back at once, on whichever instance they were.
        yield* Effect.forEach(
          [...open.slice(1), ...(again._tag === "Some" ? [again.value] : [])],
          (stream) => stream.close,
          { discard: true }
        )
        const leases = Effect.flatMap(
          Effect.service(SqlClient.SqlClient),
          (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM sports_stream_connections`
        ).pipe(Effect.map((rows) => rows[0].n), Effect.orDie, Effect.provide(a.context))
        yield* eventually(leases, (n) => n === 0, "every lease given back")
      })))
  }
)
