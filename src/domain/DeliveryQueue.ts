import { Duration } from "effect"

/**
 * A player's delivery queue (partner_callback_queues): their notifications go to the partner one at a time, oldest
 * first, by one holder at a time (a worker that claimed the queue, for a lease). These are its rules: what a run that
 * ended leaves of the queue.
 */

/** Notifications one run of a queue delivers at most, so a run lasts at most this many time-outs. */
export const drainBatch = 50

/** A queue a worker claimed: it delivers the player's notifications until it releases it, or its lease ends. */
export interface HeldQueue {
  readonly playerId: number
  /** The holder's name (an instance's worker), which the queue's lease names. */
  readonly holder: string
  /** Runs of the queue that failed in a row before this one. */
  readonly attempts: number
  /**
   * The queue as the claim left it (the repository's mark, opaque): an emptied queue is forgotten only while nothing
   * wrote it since, since a notification written is written with its queue.
   */
  readonly lease: string
}

/** How a run of a player's queue ended, and so what the queue does next. */
export type QueueRelease =
  /** Nothing left to deliver: the queue is forgotten (one written meanwhile keeps it, due at once). */
  | { readonly _tag: "Emptied" }
  /** More to deliver (the run reached its batch, or shutdown began): due again at once, for any worker. */
  | { readonly _tag: "Due" }
  /** The head was not delivered: tried again after `delay`; `attempts` runs have failed in a row. */
  | { readonly _tag: "BackingOff"; readonly attempts: number; readonly delay: Duration.Duration }
  /** The head was not delivered, for the last time: the queue waits for an operator (or the player's next notification). */
  | { readonly _tag: "Parked"; readonly attempts: number }

/** The wait after `attempts` failed runs in a row: exp(min(attempts, 10)) seconds (3 s, 7 s, 20 s, … about 6 h). */
export const backoff = (attempts: number): Duration.Duration =>
  Duration.millis(Math.round(Math.exp(Math.min(attempts, 10)) * 1_000))

/**
 * A run the service itself failed (the database refused or dropped it, not the partner): the queue is tried again
 * shortly, its failed runs as they were, since the partner was not the cause.
 */
export const afterBreakdown = (held: Pick<HeldQueue, "attempts">): QueueRelease => ({
  _tag: "BackingOff",
  attempts: held.attempts,
  delay: backoff(1)
})

/**
 * A run whose head failed after it delivered `delivered` notifications. The queue that moved backs off afresh from
 * here; one that did not counts this run, and its last allowed run parks it.
 */
export const afterFailure = (
  held: Pick<HeldQueue, "attempts">,
  delivered: number,
  maxAttempts: number
): QueueRelease => {
  const attempts = delivered > 0 ? 1 : held.attempts + 1
  return delivered === 0 && attempts >= maxAttempts
    ? { _tag: "Parked", attempts }
    : { _tag: "BackingOff", attempts, delay: backoff(attempts) }
}
