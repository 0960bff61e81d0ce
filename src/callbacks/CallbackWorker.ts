import { Effect, Layer, Redacted } from "effect"
import { Logger as JobQueueLogger, run } from "graphile-worker"
import { DatabaseUrl } from "../platform/Database.ts"
import { CallbackOutbox, deliveryTask } from "./CallbackOutbox.ts"
import { CallbacksConfig } from "./CallbacksConfig.ts"

/**
 * Delivers the outbox's notifications: graphile-worker runs the players'
 * delivery jobs on PARTNER_CALLBACK_WORKERS at once. It is told of new
 * jobs by NOTIFY, so a notification usually leaves within milliseconds of
 * its commit; a failed job comes back after exp(min(attempts, 10)) seconds
 * (3 s, 7 s, 20 s, … up to about 6 h between tries), from any instance. On
 * shutdown it finishes the deliveries in flight before the pool closes.
 */
export const CallbackWorker = Layer.effectDiscard(Effect.gen(function*() {
  const url = yield* DatabaseUrl
  const config = yield* CallbacksConfig
  const outbox = yield* CallbackOutbox
  const context = yield* Effect.context<never>()
  const runPromise = Effect.runPromiseWith(context)
  const runFork = Effect.runForkWith(context)

  // The queue's own messages join the service's log; its per-job chatter only at debug level.
  const logger = new JobQueueLogger((scope) => (level, message) => {
    const effectLevel = level === "error" ? "Error" : level === "warning" ? "Warn" : "Debug"
    runFork(Effect.logWithLevel(effectLevel)(`Job queue: ${message}`).pipe(Effect.annotateLogs({ ...scope })))
  })

  yield* Effect.acquireRelease(
    Effect.promise(() =>
      run({
        connectionString: Redacted.value(url),
        concurrency: config.workers,
        maxPoolSize: config.workers + 2,
        noHandleSignals: true,
        pollInterval: 2_000,
        logger,
        taskList: {
          [deliveryTask]: async (payload, helpers) => {
            const playerId = Number((payload as { readonly player_id?: unknown }).player_id)
            await runPromise(outbox.drain(playerId, { attempts: helpers.job.attempts, maxAttempts: helpers.job.max_attempts }))
          }
        }
      })
    ),
    (runner) => Effect.promise(() => runner.stop())
  )
}))
