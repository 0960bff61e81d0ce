import type { Currency } from "../../domain/Currency.ts"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { type Callback, type CallbackView, isRedeliverable, viewOf } from "../../domain/Callbacks.ts"
import type { Minor } from "../../domain/Money.ts"
import { type Backlog, type CallbackFilter, OutboxRepo, type QueueHead } from "./OutboxRepo.ts"
import { CallbackFailed, PartnerCallbacks } from "./PartnerCallbacks.ts"

/** Notifications one delivery run sends at most, so a run lasts at most this many time-outs. */
export const drainBatch = 50

export class CallbackNotFound extends Schema.TaggedError<CallbackNotFound>()("CallbackNotFound", { id: Schema.Int }) {
  override get message() {
    return `No callback with id ${this.id}.`
  }
}

export class CallbackNotReplayable extends Schema.TaggedError<CallbackNotReplayable>()("CallbackNotReplayable", {
  id: Schema.Int
}) {
  override get message() {
    return `Callback ${this.id} is a bet: it was answered during the aggregator's call and is never sent again ` +
      `(an unconfirmed bet is followed by its rollback notification, which can be retried).`
  }
}

/** The head of a player's delivery queue could not be delivered this time; the queue tries again later. */
export class DeliveryStalled extends Schema.TaggedError<DeliveryStalled>()("DeliveryStalled", {
  callbackId: Schema.Int,
  message: Schema.String
}) {}

/** Notifications a wallet call delivers in its own time at most; the rest of a longer delivery queue is counted as owed. */
export const catchUpLimit = 10

/** How far a player's delivery queue got when a wallet call delivered it before asking the partner. */
export type CaughtUp =
  | { readonly _tag: "Delivered" }
  /**
   * Some of the delivery queue is still undelivered: `owed` is what it will credit (see creditOf); `away` when the partner
   * could not be reached or did not answer in time, so asking it now would only wait for another time-out.
   */
  | { readonly _tag: "Stalled"; readonly owed: Minor; readonly away: boolean; readonly reason: string }

/** Where the job that delivers the current player's delivery queue stands, as the queue reports it. */
export interface DeliveryAttempt {
  readonly attempts: number
  readonly maxAttempts: number
}

/**
 * Delivery of the durable outbox's notifications (win, refund, rollback).
 * They were written with the wallet decision that caused them (OutboxRepo);
 * here a player's delivery queue is delivered at least once (the event id lets
 * partners de-duplicate), in order, by whichever instance's worker is free,
 * with the queue's exponential backoff between attempts. Once shutdown
 * begins, a run takes no further notification: it hands the rest of the
 * delivery queue back to the job queue, so no delivery queue waits on a stale lock after a restart.
 */
export class CallbackOutbox extends Context.Service<CallbackOutbox, {
  /** Delivers a player's undelivered notifications in order; fails (to be retried) at the first that fails. */
  drain(playerId: number, attempt: DeliveryAttempt): Effect.Effect<{ readonly delivered: number }, DeliveryStalled>
  /**
   * Delivers a player's delivery queue now, in the calling wallet call's time (at most catchUpLimit notifications, stopping
   * at the first that fails; the queue's job goes on with the rest as usual), so that the partner's balance asked
   * next includes every credit already decided. A notification the queue's worker is sending at the same moment
   * may reach the partner twice: its event id makes the second harmless.
   */
  catchUp(playerId: number, currency: Currency): Effect.Effect<CaughtUp>
  list(filter: CallbackFilter): Effect.Effect<ReadonlyArray<CallbackView>>
  /**
   * Sends a notification again (delivered or not), as soon as its player's delivery queue reaches it. With `partnerId`, only
   * one of that partner's: another's is not found.
   */
  retry(id: number, partnerId?: number): Effect.Effect<CallbackView, CallbackNotFound | CallbackNotReplayable>
  /** What waits to be delivered, for the operator. */
  readonly backlog: Effect.Effect<Backlog>
  /** Shutdown began: runs in flight finish the notification they hold and stop. */
  readonly stopTaking: Effect.Effect<void>
}>()("partner-api/wallet/CallbackOutbox") {
  static readonly layer = Layer.effect(
    CallbackOutbox,
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const targets = yield* CallbackTargets
      const callbacks = yield* PartnerCallbacks
      const players = yield* PartnerPlayers
      let stopping = false

      // Who each callback is for, from the services that own partners and players.
      const viewed = Effect.fnUntraced(function*(records: ReadonlyArray<Callback>) {
        const owners = new Map(
          (yield* players.findByIds([...new Set(records.map((record) => record.playerId))])).map((p) => [p.id, p])
        )
        const slugs = new Map<number, string>()
        for (const partnerId of new Set(records.map((record) => record.partnerId))) {
          // The slug is the partner's, whichever environment: the live target names it.
          const target = yield* targets.get(partnerId, "live")
          slugs.set(partnerId, Option.match(target, { onNone: () => "", onSome: (t) => t.partnerSlug }))
        }
        return records.map((record): CallbackView =>
          viewOf(record, slugs.get(record.partnerId) ?? "", owners.get(record.playerId)?.externalPlayerId ?? "")
        )
      })

      /** Delivered to the callback URL of the player's environment: a test notification never reaches a live URL. */
      const deliverOne = (head: QueueHead) =>
        Effect.flatMap(targets.get(head.partnerId, head.environment), (target) =>
          Option.isNone(target)
            ? Effect.fail(new CallbackFailed({ reason: "Unreachable", message: "The partner no longer exists." }))
            : callbacks.deliver(target.value, head.eventId, head.body))

      const drain = Effect.fn("CallbackOutbox.drain")(function*(playerId: number, attempt: DeliveryAttempt) {
        let delivered = 0
        while (true) {
          if (delivered === drainBatch || stopping) {
            // A run stays short (its lock tells the living from the dead): the rest goes on in a new run.
            yield* repo.scheduleQueue(playerId, "replace")
            return { delivered }
          }
          const [head] = yield* repo.queueOf(playerId, 1)
          if (head === undefined) return { delivered }
          const { eventId, id, partnerId } = head
          const outcome = yield* Effect.result(deliverOne(head))
          if (outcome._tag === "Success") {
            yield* repo.markDelivered(id)
            delivered++
            continue
          }
          const error = outcome.failure.message
          // The last attempt the queue will make marks the notification failed: the delivery queue waits for an operator.
          const final = delivered === 0 && attempt.attempts >= attempt.maxAttempts
          yield* repo.markFailed(id, error, final)
          yield* Effect.logWarning("Partner notification not delivered").pipe(
            Effect.annotateLogs({
              callback_id: id,
              event_id: eventId,
              partner_id: partnerId,
              player_id: playerId,
              detail: error,
              final
            })
          )
          if (delivered > 0) {
            // The delivery queue moved: back off afresh from here rather than from this job's earlier failures.
            yield* repo.scheduleQueue(playerId, "replace")
            return { delivered }
          }
          return yield* new DeliveryStalled({ callbackId: id, message: error })
        }
      })

      const catchUp = Effect.fn("CallbackOutbox.catchUp")(function*(playerId: number, currency: Currency) {
        const queue = yield* repo.queueOf(playerId, catchUpLimit + 1)
        if (queue.length === 0) return { _tag: "Delivered" } as const
        for (const head of queue.slice(0, catchUpLimit)) {
          const outcome = yield* Effect.result(deliverOne(head))
          if (outcome._tag === "Failure") {
            // Not counted as the queue's attempt: its own run keeps its backoff and reports the failure.
            const { message, reason } = outcome.failure
            return {
              _tag: "Stalled",
              owed: yield* repo.owedTo(playerId, currency),
              away: reason === "Timeout" || reason === "Unreachable" || reason === "Unresolved",
              reason: message
            } as const
          }
          yield* repo.markDelivered(head.id)
        }
        if (queue.length <= catchUpLimit) return { _tag: "Delivered" } as const
        // The delivery queue may have been one an operator had to restart (its job ran out of attempts): it has a job again.
        yield* repo.scheduleQueue(playerId, "preserve_run_at")
        return {
          _tag: "Stalled",
          owed: yield* repo.owedTo(playerId, currency),
          away: false,
          reason: "The rest of the delivery queue is left to the queue."
        } as const
      })

      const retry = Effect.fn("CallbackOutbox.retry")(function*(id: number, partnerId?: number) {
        const found = yield* repo.find(id, partnerId)
        if (Option.isNone(found)) return yield* new CallbackNotFound({ id })
        if (!isRedeliverable(found.value)) return yield* new CallbackNotReplayable({ id })
        yield* repo.requeue(id)
        const [view] = yield* viewed([Option.getOrThrow(yield* repo.find(id))])
        return view
      })

      return CallbackOutbox.of({
        drain,
        catchUp,
        list: (filter) => Effect.flatMap(repo.list(filter), viewed),
        retry,
        backlog: repo.backlog,
        stopTaking: Effect.sync(() => {
          stopping = true
        })
      })
    })
  )
}
