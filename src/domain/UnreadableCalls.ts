import { Duration, Schema } from "effect"
import { Aggregator } from "./Aggregator.ts"
import { Environment } from "./Environment.ts"

/**
 * An aggregator's wallet call that named a known player with an amount finer than the player's currency allows
 * (`slot.bet` 0.001 in BRL): refused with nothing moved, and kept so that an operator sees it (a stuck item of kind
 * `amount`) until the aggregator resends it readable, for at most `unreadableCallCurrentFor`. One per aggregator,
 * environment and transaction id: a repeat adds nothing.
 */
export const UnreadableCall = Schema.Struct({
  ref: Schema.Int,
  aggregator: Aggregator,
  environment: Environment,
  partnerId: Schema.Int,
  playerId: Schema.Int,
  txnId: Schema.String,
  roundId: Schema.String,
  /** Where the amount was in the call, in the protocol's words: `slot.bet`, `slot.win`. */
  field: Schema.String,
  /** The amount's text as sent (a plain decimal, at most 32 characters). */
  amount: Schema.String,
  /** The player's currency's code, which the amount was read in. */
  currency: Schema.String,
  receivedAt: Schema.Date
})
export type UnreadableCall = typeof UnreadableCall.Type
export type NewUnreadableCall = Omit<UnreadableCall, "ref" | "receivedAt">

/** How long an unreadable call stays stuck unless resent readable: after it the aggregator has given it up. */
export const unreadableCallCurrentFor = Duration.days(7)

/** The key a wallet transaction and an unreadable call share: a resend with the same one settles the call. */
export const unreadableCallKey = (call: {
  readonly aggregator: Aggregator
  readonly environment: Environment
  readonly txnId: string
}) => `${call.aggregator}:${call.environment}:${call.txnId}`
