import { Duration, Effect, Layer, Schedule } from "effect"
import { CallbacksConfig } from "./CallbacksConfig.ts"
import { PendingBets } from "./PendingBets.ts"

/** How often each instance looks for bets to recover: every third of WALLET_PENDING_TIMEOUT, at least a second. */
export const recoveryInterval = (pendingTimeout: Duration.Duration): Duration.Duration =>
  Duration.max(Duration.seconds(1), Duration.divideUnsafe(pendingTimeout, 3))

/**
 * Settles bets that a crashed or hung instance left pending: every third of
 * WALLET_PENDING_TIMEOUT, bets pending longer than it are refused, with a
 * rollback notification (the partner's event-id dedupe makes that safe
 * whatever it did), so the aggregator's retry gets the settled answer. Every
 * instance runs it; a bet is settled once, by whoever gets there first.
 */
export const WalletRecovery = Layer.effectDiscard(Effect.gen(function*() {
  const pendingBets = yield* PendingBets
  const config = yield* CallbacksConfig
  const every = recoveryInterval(config.pendingTimeout)
  yield* pendingBets.recover.pipe(
    Effect.catchCause((cause) => Effect.logWarning("Recovery of pending bets failed; trying again", cause)),
    Effect.repeat(Schedule.spaced(every)),
    Effect.forkScoped
  )
}))
