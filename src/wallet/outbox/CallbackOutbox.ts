import { Context, Effect, Layer, Option, Schema } from "effect"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { type Callback, type CallbackView, isRedeliverable, viewOf } from "../../domain/Callbacks.ts"
import { type Backlog, type CallbackFilter, OutboxRepo } from "./OutboxRepo.ts"
import { PartnerCallbacks } from "./PartnerCallbacks.ts"

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

/** The head of a player's line could not be delivered this time; the queue tries again later. */
export class DeliveryStalled extends Schema.TaggedError<DeliveryStalled>()("DeliveryStalled", {
  callbackId: Schema.Int,
  message: Schema.String
}) {}

/** Where the job that delivers the current player's line stands, as the queue reports it. */
export interface DeliveryAttempt {
  readonly attempts: number
  readonly maxAttempts: number
}

/**
 * Delivery of the durable outbox's notifications (win, refund, rollback).
 * They were written with the wallet decision that caused them (OutboxRepo);
 * here a player's line is delivered at least once (the event id lets
 * partners de-duplicate), in order, by whichever instance's worker is free,
 * with the queue's exponential backoff between attempts. Once shutdown
 * begins, a run takes no further notification: it hands the rest of the
 * line back to the queue, so no line waits on a stale lock after a restart.
 */
export class CallbackOutbox extends Context.Service<CallbackOutbox, {
  /** Delivers a player's undelivered notifications in order; fails (to be retried) at the first that fails. */
  drain(playerId: number, attempt: DeliveryAttempt): Effect.Effect<{ readonly delivered: number }, DeliveryStalled>
  list(filter: CallbackFilter): Effect.Effect<ReadonlyArray<CallbackView>>
  /** Sends a notification again (delivered or not), as soon as its player's line reaches it. */
  retry(id: number): Effect.Effect<CallbackView, CallbackNotFound | CallbackNotReplayable>
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
          viewOf(record, slugs.get(record.partnerId) ?? "", owners.get(record.playerId)?.external_player_id ?? "")
        )
      })

      const drain = Effect.fn("CallbackOutbox.drain")(function*(playerId: number, attempt: DeliveryAttempt) {
        let delivered = 0
        while (true) {
          if (delivered === drainBatch || stopping) {
            // A run stays short (its lock tells the living from the dead): the rest goes on in a new run.
            yield* repo.scheduleLine(playerId, "replace")
            return { delivered }
          }
          const head = yield* repo.headOf(playerId)
          if (Option.isNone(head)) return { delivered }
          const { body, environment, eventId, id, partnerId } = head.value
          // Delivered to the callback URL of the player's environment: a test notification never reaches a live URL.
          const target = yield* targets.get(partnerId, environment)
          const outcome = yield* (Option.isNone(target)
            ? Effect.fail({ message: "The partner no longer exists." })
            : callbacks.deliver(target.value, eventId, body)).pipe(Effect.result)
          if (outcome._tag === "Success") {
            yield* repo.markDelivered(id)
            delivered++
            continue
          }
          const error = outcome.failure.message
          // The last attempt the queue will make marks the notification failed: the line waits for an operator.
          const final = delivered === 0 && attempt.attempts >= attempt.maxAttempts
          yield* repo.markFailed(id, error, final)
          yield* Effect.logWarning("Partner notification not delivered").pipe(
            Effect.annotateLogs({ callback_id: id, event_id: eventId, partner_id: partnerId, player_id: playerId, detail: error, final })
          )
          if (delivered > 0) {
            // The line moved: back off afresh from here rather than from this job's earlier failures.
            yield* repo.scheduleLine(playerId, "replace")
            return { delivered }
          }
          return yield* new DeliveryStalled({ callbackId: id, message: error })
        }
      })

      const retry = Effect.fn("CallbackOutbox.retry")(function*(id: number) {
        const found = yield* repo.find(id)
        if (Option.isNone(found)) return yield* new CallbackNotFound({ id })
        if (!isRedeliverable(found.value)) return yield* new CallbackNotReplayable({ id })
        yield* repo.requeue(id)
        const [view] = yield* viewed([Option.getOrThrow(yield* repo.find(id))])
        return view
      })

      return CallbackOutbox.of({
        drain,
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
