import { Schema } from "effect"
import type { Callback } from "./Callbacks.ts"
import { knownCurrency } from "./Currency.ts"
import type { Environment } from "./Environment.ts"
import type { UnreadableCall } from "./UnreadableCalls.ts"
import type { Round, WalletTransaction } from "./Wallet.ts"

/**
 * What the wallet could not finish on its own and an operator must look at: a round open too long
 * (WALLET_STUCK_ROUND_AFTER), a bet still pending after its time-out and the recovery pass that should have
 * settled it, a notification whose delivery attempts ran out, an aggregator's call whose amount was finer than the
 * player's currency allows (nothing moved; until the aggregator resends it readable, for at most 7 days). Each is one
 * row of its own table (`ref`).
 */
export const StuckKind = Schema.Literals(["round", "bet", "notification", "amount"])
export type StuckKind = typeof StuckKind.Type
export const stuckKinds: ReadonlyArray<StuckKind> = ["round", "bet", "notification", "amount"]

export interface StuckItem {
  readonly kind: StuckKind
  /** The id of its row: wallet_rounds, wallet_transactions, partner_callbacks or wallet_unreadable_calls. */
  readonly ref: number
  readonly partnerId: number
  readonly environment: Environment
  /** What the operator searches by: the round id, the bet's transaction id, the notification's event id. */
  readonly subject: string
  /** The wallet transaction it concerns (none for a round: search by its id). */
  readonly transactionId: string | null
  readonly externalPlayerId: string | null
  /** Open since, pending since, written at (a notification), or received at (an unreadable amount). */
  readonly since: Date
  /** What it is, in words. */
  readonly detail: string
}

export const stuckRound = (round: Round, openSince: Date, externalPlayerId: string | null): StuckItem => ({
  kind: "round",
  ref: round.ref,
  partnerId: round.partnerId,
  environment: round.environment,
  subject: round.roundId,
  transactionId: null,
  externalPlayerId,
  since: openSince,
  detail: `Round ${round.roundId} is open with ${round.pendingBets} bet${
    round.pendingBets === 1 ? "" : "s"
  } waiting for the partner.`
})

export const stuckBet = (bet: WalletTransaction, externalPlayerId: string | null): StuckItem => ({
  kind: "bet",
  ref: bet.ref,
  partnerId: bet.partnerId,
  environment: bet.environment,
  subject: bet.txnId,
  transactionId: bet.txnId,
  externalPlayerId,
  since: bet.createdAt,
  detail: `Bet ${bet.txnId} (round ${bet.roundId}) is still pending past its time-out: recovery has not settled it.`
})

export const stuckNotification = (callback: Callback, externalPlayerId: string | null): StuckItem => ({
  kind: "notification",
  ref: callback.id,
  partnerId: callback.partnerId,
  environment: callback.environment,
  subject: callback.eventId,
  transactionId: callback.txnId,
  externalPlayerId,
  since: callback.createdAt,
  detail: `The ${callback.kind} notification of ${callback.txnId} ran out of delivery attempts (${callback.attempts})` +
    (callback.lastError === null ? "." : `: ${callback.lastError}`) +
    " The player's later notifications wait behind it."
})

/**
 * An aggregator's call refused for an amount finer than the player's currency's minor unit: nothing moved, and the
 * aggregator must resend it in that currency's units (under the same transaction id, which then settles it).
 */
export const stuckAmount = (call: UnreadableCall, externalPlayerId: string | null): StuckItem => {
  const exponent = knownCurrency(call.currency)?.exponent
  const unit = exponent === undefined ? "minor unit" : `minor unit (${exponent} decimal${exponent === 1 ? "" : "s"})`
  return {
    kind: "amount",
    ref: call.ref,
    partnerId: call.partnerId,
    environment: call.environment,
    subject: call.txnId,
    transactionId: call.txnId,
    externalPlayerId,
    since: call.receivedAt,
    detail:
      `Bet ${call.txnId} of round ${call.roundId}: ${call.field} ${call.amount} is finer than ${call.currency}'s ` +
      `${unit}; nothing moved. The aggregator must resend it in ${call.currency}'s units.`
  }
}

/**
 * The operator alert's body: one stuck item, as it was first seen. `alert_id` is the same on every attempt, so a
 * receiver that got one twice (a crash between its answer and our record of it) can tell.
 */
export const alertBody = (alert: {
  readonly id: number
  readonly item: StuckItem
  readonly partner: string
  readonly firstSeenAt: Date
  readonly consoleUrl: string
}): string =>
  JSON.stringify({
    alert_id: `stuck_${alert.id}`,
    kind: alert.item.kind,
    partner: alert.partner,
    environment: alert.item.environment,
    subject: alert.item.subject,
    external_player_id: alert.item.externalPlayerId,
    since: alert.item.since.toISOString(),
    first_seen_at: alert.firstSeenAt.toISOString(),
    detail: alert.item.detail,
    console_url: alert.consoleUrl
  })
