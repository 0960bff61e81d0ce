import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Logger } from "effect"
import { TestClock } from "effect/testing"
import { keepCurrent } from "../../src/platform/KeepCurrent.ts"

describe("keepCurrent: the start-up policy of the catalog schedules", () => {
  it.effect("fills an empty copy with backoff, waits for it a while, then runs each job every its interval", () =>
    Effect.scoped(Effect.gen(function*() {
      let fills = 0
      let runs = 0
      let started = false
      const fill = Effect.suspend(() => ++fills < 3 ? Effect.fail("upstream down") : Effect.void)
      // The first run is a defect: logged, and the schedule goes on.
      const job = Effect.suspend(() => ++runs === 1 ? Effect.die("a bug") : Effect.void)
      yield* keepCurrent({
        isEmpty: Effect.succeed(true),
        fill,
        fillInterval: Duration.minutes(1),
        waitAtStart: "10 seconds",
        jobs: [{ run: job, interval: Duration.minutes(1) }],
        defectMessage: "job failed unexpectedly"
      }).pipe(Effect.tap(() => Effect.sync(() => (started = true))), Effect.forkScoped)

      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(fills, 2, "retried after 5 s")
      assert.isFalse(started, "start-up waits for the fill")
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(started, "but no longer than waitAtStart")
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(fills, 3, "retried after another 10 s, and filled")
      assert.strictEqual(runs, 0)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(runs, 1, "the job runs one interval after the fill")
      yield* TestClock.adjust("1 minute")
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(runs, 3, "a defect does not stop it")
    }).pipe(Effect.provide(Logger.layer([])))))

  it.effect("a copy that is not empty is not filled; the jobs start at once on their schedule", () =>
    Effect.scoped(Effect.gen(function*() {
      let fills = 0
      let runs = 0
      yield* keepCurrent({
        isEmpty: Effect.succeed(false),
        fill: Effect.sync(() => fills++),
        fillInterval: Duration.minutes(1),
        waitAtStart: "10 seconds",
        jobs: [{ run: Effect.sync(() => runs++), interval: Duration.seconds(30) }],
        defectMessage: "job failed unexpectedly"
      })
      yield* TestClock.adjust("90 seconds")
      assert.strictEqual(fills, 0)
      assert.strictEqual(runs, 3)
    })))
})
