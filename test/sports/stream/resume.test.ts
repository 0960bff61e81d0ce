/**
 * Resuming the live change stream: a client cut off mid-burst reconnects with Last-Event-ID and the two
 * connections together are the log, no gap, no repeat; a position drawn by a transaction that commits
 * later is never passed; a client further back than the retention gets one reset and goes on.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { ChangeRecorder } from "../../../src/sports/stream/ChangeRecorder.ts"
import { SportsChangeLog } from "../../../src/sports/stream/SportsChangeLog.ts"
import { refresh } from "../../support/CatalogApp.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import {
  changesOf,
  logged,
  loggedHomePrices,
  logPositions,
  marketsAt,
  nextHeartbeat,
  openStream,
  StreamApp,
  streamProviderData,
  until
} from "../../support/StreamApp.ts"
import { givenPartner } from "../../support/TestApp.ts"

const providerData = streamProviderData()
const burstEvents = ["70001", "70004", "70007", "70010", "70013"]

layer(StreamApp(providerData), live)("resuming the live change stream", (it) => {
  it.effect("a client cut off mid-burst resumes with Last-Event-ID: both connections together are the log, no gap, no repeat", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Resumer" })
      const baseUrl = yield* baseUrlOf
      const client = yield* partnerClient(token)
      yield* refresh(token)
      const [start = "0"] = (yield* logPositions("betsapi")).slice(-1)

      // The burst: twelve rounds of new prices on five events, each read (three markets each), and a refresh.
      const burst = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 12 }, (_, round) => round), (round) =>
          Effect.gen(function*() {
            for (const id of burstEvents) providerData.odds.set(id, marketsAt(2 + round / 10))
            yield* Effect.forEach(burstEvents, (eventId) => client.sports.odds({ params: { eventId }, query: {} }), {
              concurrency: 5
            })
            providerData.events = providerData.events.map((event) =>
              event.id === "70003" ? { ...event, startsAt: event.startsAt + 60_000 } : event
            )
            yield* refresh(token)
          }), { discard: true })
      )

      const first = yield* openStream(baseUrl, token, { lastEventId: start })
      yield* until(first, (s) => changesOf(s).length >= 20, "the first part of the burst")
      yield* first.close
      const lastSeen = changesOf(first).at(-1)!.id!
      const loggedAtCut = (yield* logPositions("betsapi", Number(start))).length

      const second = yield* openStream(baseUrl, token, { lastEventId: lastSeen })
      yield* Fiber.join(burst)
      // Every odds answer of the burst written to the log, then the resumed stream caught up with it.
      // Read with the prices the fake served and the log holds, so a failure shows which answer went missing.
      yield* eventually(
        Effect.forEach(burstEvents, (id) =>
          Effect.map(
            Effect.all([logged("betsapi", "odds", id), loggedHomePrices("betsapi", id)]),
            ([count, prices]) => ({ id, count, served: providerData.served.get(id), logged: prices })
          )),
        (events) => events.every((event) => event.count === 36),
        "every answer logged"
      )
      const log = yield* logPositions("betsapi", Number(start))
      yield* until(second, (s) => changesOf(s).at(-1)?.id === log.at(-1), "the end of the log")
      assert.strictEqual(second.events[0].event, "connected")
      assert.strictEqual(second.events[0].id, lastSeen)
      const union = [...changesOf(first), ...changesOf(second)].map((change) => change.id)
      assert.deepStrictEqual(union, log)
      assert.isAbove(log.length, loggedAtCut, "the burst went on after the cut")
    }))

  it.effect("a position drawn by a transaction that commits later is never passed: the stream waits for it", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Patient" })
      const baseUrl = yield* baseUrlOf
      const sql = yield* SqlClient.SqlClient
      const recorder = yield* ChangeRecorder
      const client = yield* partnerClient(token)
      providerData.odds.set("70020", marketsAt(1.9))
      yield* refresh(token)
      const [start = "0"] = (yield* logPositions("betsapi")).slice(-1)
      const stream = yield* openStream(baseUrl, token, { query: "event_id=70020&event_id=70023" })
      yield* until(stream, (s) => s.events.length === 1, "connected")

      // One writer draws its positions and holds its transaction open...
      const drawn = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const held = yield* Effect.forkChild(sql.withTransaction(
        recorder.recordOdds("betsapi", [{
          eventId: "70020",
          inPlay: false,
          answeredAt: Date.now(),
          markets: [{ key: "1_1", name: "Full Time Result", odds: [{ label: "Home", value: 1.5 }], quotedAt: null }]
        }]).pipe(Effect.andThen(Deferred.succeed(drawn, undefined)), Effect.andThen(Deferred.await(release)))
      ))
      // ...while another (an odds read) comes after it: once the first has drawn its positions, whatever the machine's
      // speed (forked, it could otherwise draw after the read).
      yield* Deferred.await(drawn)
      providerData.odds.set("70023", marketsAt(2.2))
      yield* client.sports.odds({ params: { eventId: "70023" }, query: {} })
      yield* nextHeartbeat(stream)
      yield* nextHeartbeat(stream)
      assert.deepStrictEqual(changesOf(stream), [], "nothing passes the open transaction")

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(held)
      yield* until(stream, (s) => changesOf(s).length === 4, "both writers' changes")
      const changes = changesOf(stream)
      assert.deepStrictEqual(changes.map((change) => change.data.event_id), ["70020", "70023", "70023", "70023"])
      assert.deepStrictEqual(
        changes.map((change) => change.id),
        yield* logPositions("betsapi", Number(start), ["70020", "70023"])
      )
    }))

  it.effect("further back than STREAM_RETENTION: one reset to where the stream goes on, then the changes after it", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Late" })
      const baseUrl = yield* baseUrlOf
      const log = yield* SportsChangeLog
      const client = yield* partnerClient(token)
      yield* refresh(token)
      providerData.odds.set("70025", marketsAt(3))
      yield* client.sports.odds({ params: { eventId: "70025" }, query: {} })
      yield* eventually(logged("betsapi", "odds", "70025"), (n) => n === 3, "the markets opened")
      const [old] = yield* logPositions("betsapi")
      // An hour passes: everything recorded is older than the retention (here, none).
      assert.isAbove(yield* log.prune(Duration.zero), 0)
      const head = (yield* logPositions("betsapi")).at(-1) ?? String(yield* log.head)

      const late = yield* openStream(baseUrl, token, { lastEventId: String(Number(old) - 1) })
      yield* until(late, (s) => changesOf(s).length === 1, "the reset")
      const [reset] = changesOf(late)
      assert.strictEqual(reset.event, "reset")
      assert.deepInclude(reset.data, { reason: "expired", resume_from: reset.id })
      assert.isAtLeast(Number(reset.id), Number(head))

      providerData.odds.set("70025", { ...marketsAt(3), "1_2": { home: 9, draw: 9, away: 9 } })
      yield* client.sports.odds({ params: { eventId: "70025" }, query: {} })
      yield* until(late, (s) => changesOf(s).length === 2, "the change after the reset")
      assert.deepStrictEqual(changesOf(late).map((change) => change.event), ["reset", "odds"])
      assert.isAbove(Number(changesOf(late)[1].id), Number(reset.id))

      // An id this log never had is reset the same way.
      const lost = yield* openStream(baseUrl, token, { lastEventId: "999999999" })
      yield* until(lost, (s) => changesOf(s).length === 1, "the reset")
      assert.deepInclude(changesOf(lost)[0].data, { reason: "unknown_position" })
    }))
})
