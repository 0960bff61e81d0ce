import { Schema } from "effect"
import type { Cents } from "./Money.ts"
import type {
  Refusal,
  RoundStatus,
  TransactionKind,
  TransactionNote,
  TransactionStatus,
  WalletAnswer,
  WalletTransaction
} from "./Wallet.ts"

/**
 * What the wallet's decisions write, in the terms its repository takes
 * (wallet/WalletRepo.ts): the transaction a call brings, how it ends, what
 * that does to its round, and the conflicts a write can meet.
 */

/** Another call already holds this (kind, transaction id): read it and replay, wait, or refuse. */
export class TransactionExists extends Schema.TaggedError<TransactionExists>()("TransactionExists", {
  kind: Schema.Literals(["bet", "refund"]),
  txnId: Schema.String
}) {}

/** The round changed between the decision and its write (another call created it): decide again. */
export class RoundChanged extends Schema.TaggedError<RoundChanged>()("RoundChanged", {}) {}

/** A transaction as the call brought it. */
export interface NewTransaction {
  readonly kind: TransactionKind
  readonly txnId: string
  readonly fingerprint: string
  readonly partnerId: number
  readonly playerId: number
  readonly roundId: string
  readonly gameCode: string | null
  readonly providerCode: string | null
  readonly bet: Cents
  readonly win: Cents
}

/** How a transaction ends, and what that does to the balance mirror. */
export interface Outcome {
  readonly status: Exclude<TransactionStatus, "pending">
  readonly refusal: Refusal | null
  readonly note: TransactionNote | null
  readonly amount: Cents
  readonly balanceAfter: Cents
  readonly answer: WalletAnswer
  /** The mirror's new value; null leaves it as it is. */
  readonly mirror: Cents | null
}

/** What a decided transaction does to its round: create it, or change the one locked for the decision. */
export type RoundWrite =
  | { readonly _tag: "Create"; readonly status: Exclude<RoundStatus, "open">; readonly refundedEarly: boolean; readonly addBet: Cents; readonly addWin: Cents }
  | { readonly _tag: "Update"; readonly roundRef: number; readonly refund: boolean; readonly addBet: Cents; readonly addWin: Cents }

export type OpenedBet =
  | { readonly _tag: "Opened"; readonly transaction: WalletTransaction }
  /** The round was refunded (perhaps before this bet arrived): nothing was written. */
  | { readonly _tag: "RoundRefunded" }

export interface TransactionFilter {
  readonly partnerId?: number | undefined
  readonly playerId?: number | undefined
  readonly txnId?: string | undefined
  readonly kind?: TransactionKind | undefined
  readonly roundId?: string | undefined
  readonly status?: TransactionStatus | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}
