import { Cause, Clock, Duration, Effect, Exit, Fiber, Schedule, type Scope } from "effect"
import type { DatabaseUrl } from "./Database.ts"
import * as JobQueue from "./JobQueue.ts"

/** A job that runs every `interval`, once across all the instances on the database. */
export interface Recurring {
  /** The job queue's name for it, unique in the service (`sports-catalog:live`). */
  readonly task: string
  readonly run: Effect.Effect<unknown, unknown>
  readonly interval: Duration.Duration
}

/** How the schedules' connections are named in pg_stat_activity. */
export const scheduleApplicationName = "partner-api-schedule"

/**
 * Background work that keeps a local copy of an upstream current (the
 * sports catalog, the casino catalog), run ONCE per fleet whatever the number
 * of instances on the database: each job is a graphile-worker job with a
 * job key, so the fleet holds one pending run of it, which whichever
 * instance is free takes. A run first schedules the next one an interval
 * later (moving the key on), then works: a crash mid-run never stops the
 * chain. Every instance, at start-up, makes sure the chain exists without
 * moving it (`preserve_run_at`). An empty copy is filled first, by one
 * `fill` job (also keyed, retried by the queue with its backoff until the
 * upstream answers), which then starts the chains; start-up waits up to
 * `waitAtStart` for it. A failed run
 * is the job's own to log; a defect is logged here and the chain goes on.
 *
 * A stop does not wait for a run in progress: its work is interrupted (a
 * refresh is safe to redo, and its transaction is rolled back), and its job
 * is put back to run at once, on whichever instance is free or at this one's
 * next start.
 */
export const keepCurrentAcrossFleet = Effect.fn("FleetSchedule.start")(function*(options: {
  /** The job queue's name of the fill (`sports-catalog:fill`). */
  readonly fillTask: string
  readonly isEmpty: Effect.Effect<boolean>
  readonly fill: Effect.Effect<unknown, unknown>
  readonly waitAtStart: Duration.Input
  readonly jobs: ReadonlyArray<Recurring>
  /** The log line of a defect, e.g. "Casino catalog sync failed unexpectedly". */
  readonly defectMessage: string
}): Effect.fn.Return<void, never, Scope.Scope | DatabaseUrl> {
  const context = yield* Effect.context<never>()
  const runPromise = Effect.runPromiseWith(context)
  const runFork = Effect.runForkWith(context)
  const survivingDefects = <A, E>(work: Effect.Effect<A, E>) =>
    Effect.catchDefect(
      work,
      (defect) => Effect.logError(options.defectMessage).pipe(Effect.annotateLogs({ defect: String(defect) }))
    )
  let stopping = false

  const runAtAfter = (interval: Duration.Duration) =>
    Effect.map(Clock.currentTimeMillis, (now) => new Date(now + Duration.toMillis(interval)))

  // The interval is part of the key: a changed interval starts a chain of its own at once (the old one's
  // pending run, which may be far off, joins the new chain when it runs) instead of waiting for that run.
  const keyOf = (job: Recurring) => `${job.task}@${Duration.toMillis(job.interval)}ms`

  // The work of the runs in progress on this instance, interrupted when it stops.
  const inProgress = new Set<Fiber.Fiber<unknown, unknown>>()
  /**
   * Runs a job's work as a fiber the stop can interrupt. A failure is thrown (the queue's to retry); an
   * interruption (the stop) puts the job back with `again` and ends the run as done.
   */
  const runStoppable = async (task: string, work: Effect.Effect<unknown, unknown>, again: () => Promise<unknown>) => {
    if (!stopping) {
      const fiber = runFork(work)
      inProgress.add(fiber)
      const exit = await runPromise(Fiber.await(fiber)).finally(() => inProgress.delete(fiber))
      if (Exit.isSuccess(exit)) return
      if (!Cause.hasInterruptsOnly(exit.cause)) throw Cause.squash(exit.cause)
    }
    await again()
    runFork(
      Effect.logInfo(
        `Schedule: ${task} was stopped before it finished; it runs again at once on an instance that is free`
      )
    )
  }

  const taskList: Record<string, (payload: unknown, helpers: { addJob: AddJob }) => Promise<void>> = {}
  for (const job of options.jobs) {
    taskList[job.task] = async (_payload, helpers) => {
      const next = await runPromise(runAtAfter(job.interval))
      await helpers.addJob(job.task, {}, { jobKey: keyOf(job), runAt: next, maxAttempts: 1 })
      // Stopped, the chain's next run (just scheduled) is moved to now.
      await runStoppable(
        job.task,
        Effect.ignore(survivingDefects(job.run)),
        async () =>
          helpers.addJob(job.task, {}, {
            jobKey: keyOf(job),
            runAt: await runPromise(runAtAfter(Duration.zero)),
            maxAttempts: 1
          })
      )
    }
  }
  // The chains start once the copy is filled (as the fill's last step), so no job races the fill.
  const startChains = (addJob: AddJob) =>
    Effect.promise(async () => {
      for (const job of options.jobs) {
        await addJob(job.task, {}, {
          jobKey: keyOf(job),
          jobKeyMode: "preserve_run_at",
          runAt: await runPromise(runAtAfter(job.interval)),
          maxAttempts: 1
        })
      }
    })
  taskList[options.fillTask] = async (_payload, helpers) => {
    // Thrown, the queue retries it with its own backoff (3 s, 7 s, 20 s, …) until the upstream answers.
    // Stopped, a fill of its own is queued to run at once (this one, running, gives up its key to it).
    await runStoppable(
      options.fillTask,
      Effect.gen(function*() {
        if (yield* options.isEmpty) yield* survivingDefects(options.fill)
        yield* startChains(helpers.addJob)
      }),
      async () =>
        helpers.addJob(options.fillTask, {}, {
          jobKey: options.fillTask,
          runAt: await runPromise(runAtAfter(Duration.zero)),
          maxAttempts: 25
        })
    )
  }

  // Jobs are due in the future: the queue finds them by polling, so it polls well within the shortest interval.
  const shortest = Math.min(...options.jobs.map((job) => Duration.toMillis(job.interval)))
  const runner = yield* JobQueue.run({
    logPrefix: "Schedule",
    applicationName: scheduleApplicationName,
    connections: 3,
    concurrency: options.jobs.length + 1,
    pollInterval: Math.max(50, Math.min(2_000, Math.floor(shortest / 3))),
    taskList: taskList as never,
    // The queue stops taking jobs first, then the runs in progress are interrupted, and it stops once they
    // have put their jobs back.
    beforeStop: Effect.sync(() => {
      stopping = true
    }),
    whileStopping: Fiber.interruptAll(inProgress)
  })

  const addJob: AddJob = (task, payload, spec) => runner.addJob(task, payload, spec)
  if (!(yield* options.isEmpty)) {
    yield* startChains(addJob)
  } else {
    yield* Effect.promise(() => runner.addJob(options.fillTask, {}, { jobKey: options.fillTask, maxAttempts: 25 }))
    yield* options.isEmpty.pipe(
      Effect.repeat({ schedule: Schedule.spaced("100 millis"), while: (empty) => empty }),
      Effect.timeout(options.waitAtStart),
      Effect.ignore
    )
  }
})

type AddJob = (
  identifier: string,
  payload: unknown,
  spec: {
    readonly jobKey: string
    readonly jobKeyMode?: "replace" | "preserve_run_at"
    readonly runAt: Date
    readonly maxAttempts: number
  }
) => Promise<unknown>

/**
 * Jobs with no copy to fill first (a periodic check, a daily close): each runs every interval, once across the
 * fleet, its first run an interval after the fleet's first start.
 */
export const runAcrossFleet = (options: {
  /** The jobs' family in the queue (`wallet-operations`). */
  readonly name: string
  readonly jobs: ReadonlyArray<Recurring>
  readonly defectMessage: string
}) =>
  keepCurrentAcrossFleet({
    fillTask: `${options.name}:fill`,
    isEmpty: Effect.succeed(false),
    fill: Effect.void,
    waitAtStart: Duration.zero,
    jobs: options.jobs,
    defectMessage: options.defectMessage
  })
