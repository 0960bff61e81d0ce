import { Duration, Effect, Fiber, Schedule, type Scope } from "effect"

/** A job that runs on its own, every `interval`. */
export interface Recurring {
  readonly run: Effect.Effect<unknown, unknown>
  readonly interval: Duration.Duration
}

/**
 * Backoff of a first fill: from 5 s, doubling, but never longer than the
 * job's own interval nor 5 minutes, so a late upstream is noticed soon.
 */
const fillBackoff = (interval: Duration.Duration) =>
  Schedule.min([Schedule.exponential("5 seconds"), Schedule.spaced(Duration.min(interval, Duration.minutes(5)))])

/**
 * The start-up policy of the background jobs that keep a local copy of an
 * upstream current (the sports catalog, the casino catalog): an empty copy
 * is filled first, retried with backoff until the upstream answers; start-up
 * waits up to `waitAtStart` for that fill (a quick one is there when the
 * service starts answering, a slow or failing one goes on in the
 * background); then each job runs every its interval. A failed run is the
 * job's own to log; a defect is logged here and the schedule goes on, so one
 * bad run never stops the jobs for good. Everything runs in the caller's scope.
 */
export const keepCurrent = Effect.fn("KeepCurrent.start")(function*(options: {
  readonly isEmpty: Effect.Effect<boolean>
  readonly fill: Effect.Effect<unknown, unknown>
  readonly fillInterval: Duration.Duration
  readonly waitAtStart: Duration.Input
  readonly jobs: ReadonlyArray<Recurring>
  /** The log line of a defect, e.g. "Casino catalog sync failed unexpectedly". */
  readonly defectMessage: string
}): Effect.fn.Return<void, never, Scope.Scope> {
  const survivingDefects = <A, E>(run: Effect.Effect<A, E>) =>
    Effect.catchDefect(run, (defect) =>
      Effect.logError(options.defectMessage).pipe(Effect.annotateLogs({ defect: String(defect) })))

  const initial = Effect.gen(function*() {
    if (!(yield* options.isEmpty)) return
    yield* Effect.retry(options.fill, fillBackoff(options.fillInterval))
  })
  const first = yield* Effect.forkScoped(survivingDefects(initial))
  yield* Effect.raceFirst(Effect.ignore(Fiber.await(first)), Effect.sleep(options.waitAtStart))
  for (const job of options.jobs) {
    // Effect.schedule waits one interval before each run, the first included.
    const every = Effect.schedule(Effect.ignore(survivingDefects(job.run)), Schedule.spaced(job.interval))
    yield* Effect.forkScoped(Effect.andThen(Fiber.await(first), every))
  }
})
