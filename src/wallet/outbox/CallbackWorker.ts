import { type Duration, Effect, Fiber, FiberSet, Layer, Queue } from "effect"
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import type { ClaimedQueue } from "./OutboxRepo.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { CallbackOutbox } from "./CallbackOutbox.ts"

/**
 * Delivers the outbox's notifications: the instance claims the players' due
 * delivery queues (partner_callback_queues) and runs up to
 * PARTNER_CALLBACK_WORKERS of them at once, each drained in order. It is told
 * of new notifications by NOTIFY at their commit, so one usually leaves
 * within milliseconds, and looks every `pollInterval` besides (for a
 * backoff that ended, a notice lost while reconnecting); a queue whose
 * head failed comes back after exp(min(attempts, 10)) seconds (3 s, 7 s,
 * 20 s, … up to about 6 h), from any instance. On shutdown the runs in flight
 * finish the notification they hold and hand their queues back before the
 * pool closes; after a crash, another instance takes the dead one's queues
 * over once it has held them for PARTNER_CALLBACK_STALE_LOCK (as the taking instance is configured).
 */
export const callbackWorker = (options: { readonly pollInterval: Duration.Input }) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const config = yield* CallbacksConfig
    const outbox = yield* CallbackOutbox
    // A held queue names its holder: this instance, unique across restarts.
    const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
    const runs = yield* FiberSet.make<void>()
    const news = yield* Queue.sliding<void>(1)
    const wake = Effect.asVoid(Queue.offer(news, undefined))
    let running = 0
    let stopping = false

    const start = (queue: ClaimedQueue) => {
      running++
      return FiberSet.run(
        runs,
        outbox.drain(queue, Effect.sync(() => stopping)).pipe(
          Effect.asVoid,
          Effect.ensuring(Effect.andThen(Effect.sync(() => running--), wake))
        )
      )
    }

    // A claim the database failed is no claim: the next look tries again.
    const claim = (limit: number) =>
      outbox.claim(holder, limit).pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logWarning("Could not claim delivery queues", cause), []))
      )

    // Claims as many queues as there are free runs, and looks again at once while every one asked for came; otherwise
    // it waits for news: a notification written, a run ended, or the poll.
    const look = Effect.gen(function*() {
      const free = config.workers - running
      const claimed = free > 0 ? yield* claim(free) : []
      for (const queue of claimed) yield* start(queue)
      if (free === 0 || claimed.length < free) yield* Effect.timeoutOption(Queue.take(news), options.pollInterval)
    })

    yield* outbox.whenWritten(wake)
    const claimer = yield* Effect.forkScoped(Effect.repeat(look, { while: () => !stopping }))
    // Runs first when the scope closes (finalizers run last added first): no new claim, the runs finish the notification
    // they hold and hand their queues back, and only then does the scope interrupt what is left.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        stopping = true
        yield* wake
        yield* Fiber.await(claimer)
        yield* FiberSet.awaitEmpty(runs)
      })
    )
  }))

/** The worker every instance runs. */
export const CallbackWorker = callbackWorker({ pollInterval: "2 seconds" })
