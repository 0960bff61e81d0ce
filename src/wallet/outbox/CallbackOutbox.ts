import type { Currency } from "../../domain/Currency.ts"
import { Context, Effect, Layer, Option, Schedule, Schema, type Scope } from "effect"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { type Callback, type CallbackView, isRedeliverable, viewOf } from "../../domain/Callbacks.ts"
import { afterBreakdown, afterFailure, drainBatch, type QueueRelease } from "../../domain/DeliveryQueue.ts"
import type { Minor } from "../../domain/Money.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import {
  type Backlog,
  type CallbackFilter,
  type ClaimedQueue,
  OutboxRepo,
  type QueueHead,
  type RunMarks
} from "./OutboxRepo.ts"
import { CallbackFailed, PartnerCallbacks } from "./PartnerCallbacks.ts"

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

/** A run's marks while it runs (see RunMarks). */
interface UnwrittenMarks {
  delivered: ReadonlyArray<number>
  failed?: RunMarks["failed"]
}

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

/**
 * Delivery of the durable outbox's notifications (win, refund, rollback).
 * They were written with the wallet decision that caused them (OutboxRepo);
 * here a player's delivery queue is delivered at least once (the event id lets
 * partners de-duplicate), in order, by whichever instance's worker claimed it,
 * with exponential backoff between failed runs (domain/DeliveryQueue.ts). Once
 * shutdown begins, a run takes no further notification: it hands the rest of
 * the delivery queue back, so no delivery queue waits to be taken for stale after a restart.
 */
export class CallbackOutbox extends Context.Service<CallbackOutbox, {
  /**
   * Takes up to `limit` due delivery queues for `holder`, each for PARTNER_CALLBACK_STALE_LOCK at most, with its head
   * batch (at most drainBatch notifications).
   */
  claim(holder: string, limit: number): Effect.Effect<ReadonlyArray<ClaimedQueue>>
  /**
   * Delivers a claimed queue's batch in order, stopping at the first that fails, and hands the queue back as the run
   * left it. Once `stopTaking` answers true (its worker's shutdown began), the run takes no further notification.
   */
  drain(queue: ClaimedQueue, stopTaking: Effect.Effect<boolean>): Effect.Effect<QueueRelease>
  /** Runs `wake` after notifications were written, by any instance, for as long as the scope lives. */
  whenWritten(wake: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope>
  /**
   * Delivers a player's delivery queue now, in the calling wallet call's time (at most catchUpLimit notifications, stopping
   * at the first that fails; the delivery queue goes on with the rest as usual), so that the partner's balance asked
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
}>()("partner-api/wallet/CallbackOutbox") {
  static readonly layer = Layer.effect(
    CallbackOutbox,
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const targets = yield* CallbackTargets
      const callbacks = yield* PartnerCallbacks
      const players = yield* PartnerPlayers
      const config = yield* CallbacksConfig

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

      /**
       * How a run ended: what becomes of its queue. What it did to its notifications and has not written yet is in
       * `marks`, written with the queue's release: a notification delivered is marked when the run sends the next one
       * (so what a wallet call's catch-up counts as owed never includes one the partner had for longer than a
       * delivery, as when each was marked at once), or with the release when it was the run's last.
       */
      const run = Effect.fnUntraced(
        function*(queue: ClaimedQueue, stopTaking: Effect.Effect<boolean>, marks: UnwrittenMarks) {
          let delivered = 0
          for (const head of queue.batch) {
            // Once its worker's shutdown began, the run hands the rest back, due at once for any instance.
            if (yield* stopTaking) return { _tag: "Due" } as const
            for (const id of marks.delivered) yield* repo.markDelivered(id)
            marks.delivered = []
            const { eventId, id, partnerId } = head
            const outcome = yield* Effect.result(deliverOne(head))
            if (outcome._tag === "Success") {
              marks.delivered = [id]
              delivered++
              continue
            }
            const error = outcome.failure.message
            const release = afterFailure(queue, delivered, config.maxAttempts)
            // The queue's last allowed run marks the notification failed: the delivery queue waits for an operator.
            const final = release._tag === "Parked"
            marks.failed = { id, error, final }
            yield* Effect.logWarning("Partner notification not delivered").pipe(
              Effect.annotateLogs({
                callback_id: id,
                event_id: eventId,
                partner_id: partnerId,
                player_id: queue.playerId,
                detail: error,
                final
              })
            )
            return release
          }
          // A run stays short (how long it held the queue tells the living from the dead): a full batch may have more
          // behind it, for a new run. A shorter one was all the claim saw: the release of the emptied queue looks again.
          return queue.batch.length === drainBatch ? { _tag: "Due" } as const : { _tag: "Emptied" } as const
        }
      )

      const drain = Effect.fn("CallbackOutbox.drain")(
        function*(queue: ClaimedQueue, stopTaking: Effect.Effect<boolean>) {
          const marks: UnwrittenMarks = { delivered: [] }
          // A run the database failed (a connection refused under load) hands its queue back all the same, tried
          // again shortly: left held, the queue would wait PARTNER_CALLBACK_STALE_LOCK for another worker.
          const release = yield* run(queue, stopTaking, marks).pipe(
            Effect.catchCause((cause) =>
              Effect.as(Effect.logWarning("A delivery run failed", cause), afterBreakdown(queue))
            )
          )
          yield* repo.release(queue, release, marks).pipe(
            Effect.sandbox,
            Effect.retry({ schedule: Schedule.exponential("200 millis"), times: 5 }),
            Effect.catchCause((cause) => Effect.logWarning("A delivery queue was not handed back", cause))
          )
          return release
        }
      )

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
        // The delivery queue may have been one waiting for an operator (its head ran out of attempts): it is due again.
        yield* repo.scheduleQueue(playerId, "preserve")
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
        // Answered as the requeue left it, pending: read again later, a worker the requeue woke may have delivered it.
        const requeued = yield* repo.requeue(id)
        if (Option.isNone(requeued)) return yield* new CallbackNotFound({ id })
        const [view] = yield* viewed([requeued.value])
        return view
      })

      return CallbackOutbox.of({
        claim: (holder, limit) => repo.claim(holder, limit, config.staleLockAfter),
        drain,
        whenWritten: repo.whenWritten,
        catchUp,
        list: (filter) => Effect.flatMap(repo.list(filter), viewed),
        retry,
        backlog: repo.backlog
      })
    })
  )
}
