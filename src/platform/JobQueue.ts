import { Effect, Redacted, type Scope } from "effect"
import type { Runner, TaskList } from "graphile-worker"
import { Pool } from "pg"
import { DatabaseUrl } from "./Database.ts"

/**
 * graphile-worker, run the one way this service runs it: the fleet's
 * schedules (FleetSchedule.ts) start one with their task list. It owns the
 * queue's connection pool, its logger (into the service's log) and its start
 * and stop; what a task does, and what must happen while the queue stops,
 * is the caller's.
 */
export interface Options {
  /** The start of the queue's log lines ("Job queue", "Schedule"). */
  readonly logPrefix: string
  /** How the queue's connections are named in pg_stat_activity. */
  readonly applicationName: string
  /** The pool's size: the runs at once, plus the queue's own listening and bookkeeping. */
  readonly connections: number
  /** Jobs run at once. */
  readonly concurrency: number
  /** Milliseconds between looks for jobs due (new jobs are also announced by NOTIFY). */
  readonly pollInterval: number
  readonly taskList: TaskList
  /** Runs when the scope closes, before the queue is asked to stop. */
  readonly beforeStop?: Effect.Effect<void> | undefined
  /** Runs once the queue was asked to stop (it takes no new job), before waiting for its runs to end. */
  readonly whileStopping?: Effect.Effect<void> | undefined
}

/** Starts a job queue for the life of the scope; its runner (to add jobs with). */
export const run = Effect.fn("JobQueue.run")(
  function*(options: Options): Effect.fn.Return<Runner, never, Scope.Scope | DatabaseUrl> {
    const url = yield* DatabaseUrl
    const context = yield* Effect.context<never>()
    const runFork = Effect.runForkWith(context)
    // Loaded when a queue starts, not with this module: the admin CLI imports the services that enqueue, never runs one.
    const { Logger: GraphileLogger, run: runGraphile } = yield* Effect.promise(() => import("graphile-worker"))

    // The queue's own messages join the service's log; its per-job chatter only at debug level.
    const logger = new GraphileLogger((scope) => (level, message) => {
      const effectLevel = level === "error" ? "Error" : level === "warning" ? "Warn" : "Debug"
      runFork(
        Effect.logWithLevel(effectLevel)(`${options.logPrefix}: ${message}`).pipe(Effect.annotateLogs({ ...scope }))
      )
    })

    // The queue's connections are a pool of ours, not one the queue makes: the queue ends its own pool without
    // waiting and drops its error handlers first, so a connection the server closed while it was ending (a
    // database stopping, or dropped with FORCE) raised an unhandled 'error' and took the process down. Ours
    // keeps its handlers for as long as any of its connections lives, and is ended after the queue stopped.
    let stopping = false
    const connectionLost = (error: Error) =>
      runFork(
        (stopping ? Effect.logDebug : Effect.logWarning)(`${options.logPrefix}: a database connection was closed`).pipe(
          Effect.annotateLogs({ detail: error.message })
        )
      )
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new Pool({
          connectionString: Redacted.value(url),
          max: options.connections,
          application_name: options.applicationName
        })
        pool.on("error", connectionLost)
        pool.on("connect", (client) => client.on("error", connectionLost))
        return pool
      }),
      (pool) => Effect.promise(() => pool.end())
    )

    return yield* Effect.acquireRelease(
      Effect.promise(() =>
        runGraphile({
          pgPool: pool,
          concurrency: options.concurrency,
          noHandleSignals: true,
          pollInterval: options.pollInterval,
          logger,
          // Completions go through the queue's batcher, which a graceful stop flushes before it returns: unbatched,
          // they are written after the stop, when the pool may be gone, and the line stays locked.
          preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
          taskList: options.taskList
        })
      ),
      (runner) =>
        Effect.gen(function*() {
          stopping = true
          if (options.beforeStop !== undefined) yield* options.beforeStop
          const stopped = runner.stop()
          if (options.whileStopping !== undefined) yield* options.whileStopping
          yield* Effect.promise(() => stopped)
        })
    )
  }
)
