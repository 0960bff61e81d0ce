import { Schema, Struct } from "effect"
import { Aggregator } from "./Aggregator.ts"
import { Callback } from "./Callbacks.ts"
import { Environment } from "./Environment.ts"
import type { Minor } from "./Money.ts"
import { PartnerPlayer } from "./Partner.ts"
import { accepted, type Refusal, refusals, refused, type WalletOutcome } from "./WalletEvents.ts"

/**
 * The seamless wallet's rules, apart from where its state is kept. A bet
 * is written `pending` before the partner is asked and then settled
 * `applied` or `refused`; a refund undoes a whole round, once. Rounds are
 * `open` while a bet of theirs waits for the partner, then `settled`, and
 * `refunded` at the end (a refund that arrives before any bet leaves the
 * round `refunded` already, so a late bet of it is refused).
 */

export const TransactionKind = Schema.Literals(["bet", "refund", "credit", "rollback"])
export type TransactionKind = typeof TransactionKind.Type
export const TransactionStatus = Schema.Literals(["pending", "applied", "refused"])
export type TransactionStatus = typeof TransactionStatus.Type
export const RoundStatus = Schema.Literals(["open", "settled", "refunded"])
export type RoundStatus = typeof RoundStatus.Type

/**
 * An outcome as it is kept, to be replayed: a shadow player's is kept without its balance (the service keeps no
 * balance of theirs), and its replay asks the partner for the balance again. The balance in minor units.
 */
export const StoredOutcome = Schema.Struct({
  refusal: Schema.NullOr(Schema.Literals(refusals)),
  balance: Schema.optionalKey(Schema.BigInt)
})
export type StoredOutcome = typeof StoredOutcome.Type

export const Round = Schema.Struct({
  /** The row's own id. */
  ref: Schema.Int,
  partnerId: Schema.Int,
  /** Its player's environment. */
  environment: Environment,
  playerId: Schema.Int,
  /** The aggregator whose round it is: a round id is unique within one aggregator's rounds of a player. */
  aggregator: Aggregator,
  roundId: Schema.String,
  status: RoundStatus,
  pendingBets: Schema.Int,
  /** Stakes and wins of the round's applied bets (minor units): what a refund undoes. */
  betTotal: Schema.BigInt,
  winTotal: Schema.BigInt,
  /** The round was refunded before any bet of it arrived. */
  refundedEarly: Schema.Boolean,
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
  /** Raised by every write of the round: a decision's write names the version it was decided on (sql/0046). */
  version: Schema.Int
})
export type Round = typeof Round.Type

/**
 * Why a transaction moved nothing although it was applied: a refund or a rollback that came first (a tombstone), one
 * that came after another undid the same, a rollback of a debit that was refused, a bet settled after a crash.
 */
export const TransactionNote = Schema.Literals([
  "early_refund",
  "already_refunded",
  "recovered",
  "early_rollback",
  "already_rolled_back",
  "debit_refused"
])
export type TransactionNote = typeof TransactionNote.Type

export const WalletTransaction = Schema.Struct({
  ref: Schema.Int,
  kind: TransactionKind,
  txnId: Schema.String,
  /** null for transactions recorded before fingerprints were kept: any repeat of them replays. */
  fingerprint: Schema.NullOr(Schema.String),
  partnerId: Schema.Int,
  /** Its player's environment: a transaction id is unique within one environment. */
  environment: Environment,
  /** The aggregator that sent it: a transaction id is unique within one aggregator of one environment. */
  aggregator: Aggregator,
  playerId: Schema.Int,
  /** Its player's currency: every amount of it is in this currency's minor units. */
  currency: Schema.String,
  roundRef: Schema.Int,
  roundId: Schema.String,
  /** The debit a credit pays or a rollback undoes (its transaction id); null for every other transaction. */
  debitTxnId: Schema.NullOr(Schema.String),
  gameCode: Schema.NullOr(Schema.String),
  providerCode: Schema.NullOr(Schema.String),
  /** Amounts in the currency's minor units. */
  bet: Schema.BigInt,
  win: Schema.BigInt,
  status: TransactionStatus,
  refusal: Schema.NullOr(Schema.Literals(refusals)),
  note: Schema.NullOr(TransactionNote),
  /** The change to the player's balance (0 unless applied). */
  amount: Schema.BigInt,
  /** The player's balance as this service reckoned it once settled; null while pending, and always for a shadow player. */
  balanceAfter: Schema.NullOr(Schema.BigInt),
  /** Exactly what the aggregator was answered (a shadow player's without its balance); null while pending. */
  answer: Schema.NullOr(StoredOutcome),
  createdAt: Schema.Date,
  settledAt: Schema.NullOr(Schema.Date),
  /** How long ago it was written, by the database's clock (a pending bet's age is what recovery goes by). */
  ageMillis: Schema.Finite
})
export type WalletTransaction = typeof WalletTransaction.Type

/** What the partner said when asked to take a stake. */
export type PartnerAnswer =
  | { readonly _tag: "Balance"; readonly balance: Minor }
  | { readonly _tag: "InsufficientFunds"; readonly balance: Minor | null }
  | { readonly _tag: "UnknownPlayer" }
  /** The partner could not be asked or answered nothing usable: down, slow, an error status, garbage. */
  | { readonly _tag: "Unavailable"; readonly reason: string }

/** How a pending bet ends. */
export interface Settlement {
  readonly status: "applied" | "refused"
  readonly refusal: Refusal | null
  /** The change to the player's balance. */
  readonly amount: Minor
  /** The player's balance once settled (the partner's balance after the stake, plus the win); null for a shadow player. */
  readonly balanceAfter: Minor | null
  /** Whether the balance mirror takes balanceAfter (only the partner's own balance moves it). */
  readonly confirmsBalance: boolean
  readonly answer: WalletOutcome
  /** The partner may have taken the stake without our knowing: a rollback notification gives it back. */
  readonly rollback: boolean
  /** Why the partner could not be asked; null when it answered. */
  readonly askError: string | null
}

/**
 * A bet's end, from the partner's answer. Taken: the balance after it plus
 * the win, which follows as a notification. Refused by the partner: nothing
 * moved. Unavailable (or never answered): refused to the player, and the
 * stake given back by a rollback in case the partner took it. A shadow
 * player's (`shadow`) keeps no balance: `mirror` is then only the balance to
 * answer with when the partner gave none.
 */
export const settleBet = (
  bet: { readonly bet: Minor; readonly win: Minor },
  answer: PartnerAnswer,
  mirror: Minor,
  shadow = false
): Settlement => {
  const refusal = (code: Refusal, balance: Minor, rollback: boolean, askError: string | null): Settlement => ({
    status: "refused",
    refusal: code,
    amount: 0n,
    balanceAfter: shadow ? null : mirror,
    confirmsBalance: false,
    answer: refused(code, balance),
    rollback,
    askError
  })
  switch (answer._tag) {
    case "Balance":
      return {
        status: "applied",
        refusal: null,
        amount: bet.win - bet.bet,
        balanceAfter: shadow ? null : answer.balance + bet.win,
        confirmsBalance: !shadow,
        answer: accepted(answer.balance + bet.win),
        rollback: false,
        askError: null
      }
    case "InsufficientFunds":
      return refusal("INSUFFICIENT_USER_FUNDS", answer.balance ?? mirror, false, null)
    case "UnknownPlayer":
      return refusal("INVALID_USER", 0n, false, null)
    case "Unavailable":
      return refusal("INSUFFICIENT_USER_FUNDS", mirror, true, answer.reason)
  }
}

/**
 * The partner's balance in an answer, plus what its player's notifications still on their way will credit: the
 * balance it holds once they arrive (never below 0; the partner, who holds the money, has the last word).
 */
export const withCredits = (answer: PartnerAnswer, owed: Minor): PartnerAnswer => {
  if (owed === 0n) return answer
  if (answer._tag === "Balance") return { ...answer, balance: atLeastZero(answer.balance + owed) }
  if (answer._tag === "InsufficientFunds" && answer.balance !== null) {
    return { ...answer, balance: atLeastZero(answer.balance + owed) }
  }
  return answer
}

/** What a refund does to its round. */
export type RefundDecision =
  /** Never seen: the round is recorded refunded, so a bet of it arriving later is refused. Nothing moves. */
  | { readonly _tag: "Tombstone" }
  /** Refunded before: nothing moves again. */
  | { readonly _tag: "AlreadyRefunded" }
  /** The round is undone: its stakes back, its wins taken back (`amount` is negative when it paid more than it took). */
  | { readonly _tag: "Undo"; readonly amount: Minor }

/** A refund of a round with no pending bet (those are waited for, or settled, first). */
export const decideRefund = (round: Round | undefined): RefundDecision => {
  if (round === undefined) return { _tag: "Tombstone" }
  if (round.status === "refunded") return { _tag: "AlreadyRefunded" }
  return { _tag: "Undo", amount: round.betTotal - round.winTotal }
}

/** The mirror after a refund: it never goes below 0; the partner, who holds the money, has the last word. */
export const balanceAfterRefund = (mirror: Minor, amount: Minor): Minor => atLeastZero(mirror + amount)

const atLeastZero = (amount: Minor): Minor => amount < 0n ? 0n : amount

// The books read back (reconciliation, the operator): a transaction or a round with its player and the
// callbacks it caused. The wire shapes (src/api/Wallet.ts) are these fields renamed at the edge.

/** Whose it is: the partner's own player id and the user code the aggregator knows the player by. */
export const LedgerPlayer = Schema.Struct(Struct.pick(PartnerPlayer.fields, ["externalPlayerId", "internalUserId"]))

export const LedgerEntry = Schema.Struct({
  ...Struct.pick(WalletTransaction.fields, ["txnId", "kind", "status", "refusal", "note"]),
  player: LedgerPlayer,
  roundId: WalletTransaction.fields.roundId,
  game: Schema.Struct({ code: WalletTransaction.fields.gameCode, provider: WalletTransaction.fields.providerCode }),
  ...Struct.pick(WalletTransaction.fields, [
    "currency",
    "bet",
    "win",
    "amount",
    "balanceAfter",
    "answer",
    "createdAt",
    "settledAt",
    // The operator's (partners are not shown these): whose partner, and a pending bet's age.
    "partnerId",
    "ageMillis",
    // Which round it belongs to, to list it under its round.
    "roundRef",
    // Its player's environment: the operator's views label each entry with it.
    "environment"
  ]),
  /** Every callback it caused, oldest first. */
  callbacks: Schema.Array(Callback)
})
export type LedgerEntry = typeof LedgerEntry.Type

export const LedgerRound = Schema.Struct({
  ...Struct.pick(Round.fields, ["roundId"]),
  player: LedgerPlayer,
  /** Its player's currency. */
  currency: Schema.String,
  ...Struct.pick(Round.fields, [
    "status",
    "pendingBets",
    "betTotal",
    "winTotal",
    "refundedEarly",
    "createdAt",
    "updatedAt"
  ]),
  transactions: Schema.Array(LedgerEntry)
})
export type LedgerRound = typeof LedgerRound.Type

/** A transaction as the books show it: with its player and its callbacks. */
export const ledgerEntry = (
  transaction: WalletTransaction,
  player: PartnerPlayer,
  callbacks: ReadonlyArray<Callback>
): LedgerEntry => ({
  ...transaction,
  player: { externalPlayerId: player.externalPlayerId, internalUserId: player.internalUserId },
  game: { code: transaction.gameCode, provider: transaction.providerCode },
  callbacks
})

/** A round as the books show it: with its player and its transactions. */
export const ledgerRound = (
  round: Round,
  player: PartnerPlayer,
  transactions: ReadonlyArray<LedgerEntry>
): LedgerRound => ({
  ...round,
  player: { externalPlayerId: player.externalPlayerId, internalUserId: player.internalUserId },
  currency: player.currency,
  transactions
})
