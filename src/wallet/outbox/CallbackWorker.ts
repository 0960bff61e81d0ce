import { Duration, Effect, Layer, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import * as JobQueue from "../../platform/JobQueue.ts"
import { CallbackOutbox, DeliveryStalled } from "./CallbackOutbox.ts"
import { deliveryTask } from "./OutboxRepo.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"

/** How the queue's connections are named in pg_stat_activity. */
export const jobQueueApplicationName = "partner-api-job-queue"

/**
 * Delivers the outbox's notifications: graphile-worker runs the players'
 * delivery jobs on PARTNER_CALLBACK_WORKERS at once. It is told of new
 * jobs by NOTIFY, so a notification usually leaves within milliseconds of
 * its commit; a failed job comes back after exp(min(attempts, 10)) seconds
 * (3 s, 7 s, 20 s, … up to about 6 h between tries), from any instance. On
 * shutdown the runs in flight finish the notification they hold, hand the
 * rest of their delivery queue back to the queue, and stop before the pool closes;
 * after a crash, another instance takes the dead one's delivery queues over once its
 * lock is PARTNER_CALLBACK_STALE_LOCK old.
 */
export const CallbackWorker = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* CallbacksConfig
  const outbox = yield* CallbackOutbox
  const sql = yield* SqlClient.SqlClient
  const context = yield* Effect.context<never>()
  const runPromise = Effect.runPromiseWith(context)

  yield* JobQueue.run({
    logPrefix: "Job queue",
    applicationName: jobQueueApplicationName,
    connections: config.workers + 2,
    concurrency: config.workers,
    pollInterval: 2_000,
    // A job that failed because the partner could not be reached is expected (the outbox logged its one WARN
    // line, and the queue retries it): its stack trace is no news.
    isExpectedFailure: (error) => error instanceof DeliveryStalled,
    beforeStop: outbox.stopTaking,
    taskList: {
      [deliveryTask]: async (payload, helpers) => {
        const playerId = Number((payload as { readonly player_id?: unknown }).player_id)
        await runPromise(
          outbox.drain(playerId, { attempts: helpers.job.attempts, maxAttempts: helpers.job.max_attempts })
        )
      }
    }
  })

  // A hard crash leaves its delivery job locked (the queue would wait 4 hours). Runs are short (at most
  // drainBatch time-outs), so a lock much older than that is released for a living instance to take over.
  // Read through the queue's public surface: its `jobs` view (a player's delivery queue is locked with its job, by
  // the same worker) and force_unlock_workers, which frees that worker's jobs and queues alike.
  const staleBefore = sql`now() - ${`${Duration.toSeconds(config.staleLockAfter)} seconds`}::interval`
  const releaseAbandoned = sql`
    SELECT graphile_worker.force_unlock_workers(array_agg(DISTINCT locked_by))
    FROM graphile_worker.jobs
    WHERE task_identifier = ${deliveryTask} AND locked_by IS NOT NULL AND locked_at < ${staleBefore}
    HAVING count(*) > 0
  `.pipe(
    Effect.tap((rows) =>
      rows.length > 0 ? Effect.logWarning("Released delivery jobs abandoned by a crashed instance") : Effect.void
    ),
    Effect.ignore({ log: "Warn" })
  )
  yield* releaseAbandoned.pipe(
    Effect.repeat(Schedule.spaced(Duration.min(Duration.minutes(1), Duration.divideUnsafe(config.staleLockAfter, 2)))),
    Effect.forkScoped
  )
}))
