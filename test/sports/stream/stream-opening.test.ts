/**
 * A stream's lease, whatever becomes of its opening: released when the opening ends without a stream (the client
 * gone mid-open), and renewed only while its stream is open, so a stream that never ran stops holding its place once
 * the lease's lifetime is over. Over memory (the log, the leases) and the test's clock.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { streamFilterOf } from "../../../src/domain/SportsStream.ts"
import { SportsChangeLog } from "../../../src/sports/stream/SportsChangeLog.ts"
import { StreamConfig } from "../../../src/sports/stream/StreamConfig.ts"
import { leaseLifetime, StreamLeases } from "../../../src/sports/stream/StreamLeases.ts"
import { type OpenRequest, SportsStream } from "../../../src/sports/stream/SportsStream.ts"
import { testStreamConfig } from "../../support/TestApp.ts"

/** The memory leases, whose next `acquire` (once `holdNext` says so) takes its lease, then waits for `gate`. */
class HeldOpening {
  holdNext = false
  entered = Deferred.makeUnsafe<void>()
  gate = Deferred.makeUnsafe<void>()
}
const held = new HeldOpening()

const HeldLeases = Layer.effect(
  StreamLeases,
  Effect.map(Effect.service(StreamLeases), (leases) =>
    StreamLeases.of({
      ...leases,
      // Taken, then slow to come back: uninterruptible, as a lease a statement has inserted is taken.
      acquire: (options) =>
        Effect.uninterruptible(
          leases.acquire(options).pipe(Effect.tap(() => {
            if (!held.holdNext) return Effect.void
            held.holdNext = false
            return Effect.andThen(Deferred.succeed(held.entered, undefined), Deferred.await(held.gate))
          }))
        )
    }))
).pipe(Layer.provide(StreamLeases.layerMemory))

const request = (partnerId: number): OpenRequest => ({
  partner: { id: partnerId, environment: "live" },
  provider: "sandbox",
  filter: streamFilterOf({}),
  oddsFormat: "decimal",
  lastEventId: undefined,
  abort: Effect.void
})

layer(
  SportsStream.layer.pipe(
    Layer.provide(Layer.mergeAll(
      HeldLeases,
      SportsChangeLog.layerMemory,
      Layer.succeed(StreamConfig, testStreamConfig({ maxConnectionsPerPartner: 1 }))
    ))
  )
)("a stream's opening and its lease", (it) => {
  it.effect("the client gone while its stream opens: the lease is given back, and the next stream is admitted", () =>
    Effect.gen(function*() {
      const streams = yield* SportsStream
      held.holdNext = true
      const opening = yield* Effect.forkChild(streams.open(request(1)))
      yield* Deferred.await(held.entered)
      // The client goes (the server interrupts its request) while the lease is being taken.
      opening.interruptUnsafe()
      yield* Deferred.succeed(held.gate, undefined)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(opening)), "the opening was interrupted")
      const next = yield* Effect.exit(streams.open(request(1)))
      assert.isTrue(Exit.isSuccess(next), "its place is free")
    }))

  it.effect("a stream opened but never run: its lease is not renewed, and lapses", () =>
    Effect.gen(function*() {
      const streams = yield* SportsStream
      yield* streams.open(request(2))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(streams.open(request(2)))), "the one place is taken")
      yield* TestClock.adjust(Duration.sum(leaseLifetime, Duration.seconds(11)))
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(streams.open(request(2)))), "the lease lapsed")
    }))
})
