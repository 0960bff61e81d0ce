import type { Currency } from "../../domain/Currency.ts"
import type { Duration, Effect, Option, Scope } from "effect"
import type { Callback, CallbackStatus } from "../../domain/Callbacks.ts"
import type { HeldQueue, QueueRelease } from "../../domain/DeliveryQueue.ts"
import type { Environment } from "../../domain/Environment.ts"
import type { Minor } from "../../domain/Money.ts"

/**
 * What the outbox's repository offers, in both its forms (OutboxRepo.layerSql, OutboxRepoMemory), and the records
 * it reads and writes.
 */

/** What delivering the head of a delivery queue needs. */
export interface QueueHead {
  readonly id: number
  readonly eventId: string
  readonly kind: Callback["kind"]
  readonly body: string
  readonly partnerId: number
  readonly environment: Environment
}

/** A queue a worker claimed, with its head batch read by the claim: at most drainBatch, oldest first. */
export interface ClaimedQueue extends HeldQueue {
  readonly batch: ReadonlyArray<QueueHead>
}

/** What a run did to its notifications that is not written yet: written with its queue's release. */
export interface RunMarks {
  /** Notifications the run delivered. */
  readonly delivered: ReadonlyArray<number>
  /** The notification whose attempt failed; `final` when its attempts ran out (see markFailed). */
  readonly failed?: { readonly id: number; readonly error: string; readonly final: boolean } | undefined
}

export interface Backlog {
  /** Notifications not delivered yet and still retried, and those whose attempts ran out. */
  readonly pending: number
  readonly failed: number
  /** The oldest pending notification's age; 0 when nothing is pending. */
  readonly oldestPendingSeconds: number
  /**
   * The players' delivery queues: not held by a worker, held (or left held by a crashed instance), and not held after
   * failed runs (backing off or parked).
   */
  readonly queues: { readonly queued: number; readonly locked: number; readonly failing: number }
}

export interface CallbackFilter {
  readonly status?: CallbackStatus | undefined
  readonly partnerId?: number | undefined
  readonly environment?: Environment | undefined
  /** Only this player's (partner_players.id). */
  readonly playerId?: number | undefined
  readonly limit: number
}

export interface OutboxRepoShape {
  /** A player's undelivered notifications, oldest first, at most `limit`: the delivery queue's head is the first. */
  queueOf(playerId: number, limit: number): Effect.Effect<ReadonlyArray<QueueHead>>
  /** What a player's undelivered notifications will credit once the partner applies them (see creditOf). */
  owedTo(playerId: number, currency: Currency): Effect.Effect<Minor>
  markDelivered(id: number): Effect.Effect<void>
  /**
   * A failed attempt; `final` marks it failed for good (the delivery queue then waits for an operator). A notification
   * already delivered stays so: another sender (a wallet call's catch-up, another run) got it to the partner, and
   * counting it as owed again would add it twice to a balance.
   */
  markFailed(id: number, error: string, final: boolean): Effect.Effect<void>
  /**
   * Makes the player's delivery queue due, as a notification written does: `preserve` keeps the time of a queue
   * waiting its turn, and makes one backing off or waiting for an operator due now, its backoff forgotten; `now`
   * makes it due now whatever it waited for.
   */
  scheduleQueue(playerId: number, mode: "preserve" | "now"): Effect.Effect<void>
  /**
   * Takes up to `limit` due delivery queues for `holder`, the longest waiting first: those no worker holds, and those
   * held for longer than `staleAfter` (their holder is taken for dead). Each comes with its head batch (at most
   * drainBatch undelivered notifications, oldest first), read by the same claim. A notification committed while the
   * claim ran may be missing from its batch: the release of an emptied queue sees it and keeps the queue.
   */
  claim(holder: string, limit: number, staleAfter: Duration.Duration): Effect.Effect<ReadonlyArray<ClaimedQueue>>
  /**
   * Hands a held queue back as its run left it (see QueueRelease), and writes the run's `marks` with it (as
   * markDelivered and markFailed do, even when another holder took the queue over; the queue then stays that holder's).
   * An emptied queue is forgotten only when no notification is left undelivered and nothing wrote the queue since its
   * claim; otherwise it is due again at once.
   */
  release(queue: HeldQueue, release: QueueRelease, marks?: RunMarks): Effect.Effect<void>
  /** Runs `wake` after notifications were written (by any instance), for as long as the scope lives. */
  whenWritten(wake: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope>
  list(filter: CallbackFilter): Effect.Effect<ReadonlyArray<Callback>>
  /** The callback with this id; with `partnerId`, only if it is that partner's. */
  find(id: number, partnerId?: number): Effect.Effect<Option.Option<Callback>>
  /**
   * Puts a notification back in its player's delivery queue and runs it now; answers it as requeued (read before any
   * worker can take it again), none when there is no such notification.
   */
  requeue(id: number): Effect.Effect<Option.Option<Callback>>
  /** Every callback of these wallet transactions, oldest first. */
  ofTransactions(transactionRefs: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Callback>>
  /** What waits: notifications pending or failed for good, the oldest pending one's age, and the delivery queues. */
  readonly backlog: Effect.Effect<Backlog>
  /** Those of these wallet transactions the partner was sent a rollback for. */
  rolledBack(transactionRefs: ReadonlyArray<number>): Effect.Effect<ReadonlySet<number>>
  /** Notifications whose attempts ran out (failed for good, waiting for an operator), oldest first. */
  exhausted(limit: number): Effect.Effect<ReadonlyArray<Callback>>
}
