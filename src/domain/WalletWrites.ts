import { Schema } from "effect"
import type { Aggregator } from "./Aggregator.ts"
import type { Environment } from "./Environment.ts"
import type { Minor } from "./Money.ts"
import type { PartnerPlayer } from "./Partner.ts"
import {
  type RoundStatus,
  type StoredOutcome,
  TransactionKind,
  type TransactionNote,
  type TransactionStatus,
  type WalletTransaction
} from "./Wallet.ts"
import type { Refusal, WalletOutcome } from "./WalletEvents.ts"
import type { NewCallback } from "./Callbacks.ts"

/**
 * What a wallet decision asks the ledger's repository to write (WalletRepo), and how a write can be refused: the
 * transaction as the call brought it, how it ends, what it does to its round, the player as it was decided on. The
 * rules that produce them are in WalletRecords.ts.
 */

/**
 * Another call already holds this (kind, transaction id), or, for an aggregator whose ids are one space for every kind
 * (Hub88: domain/Aggregator.ts idsAcrossKinds), this id under another kind: read it and replay, wait, or refuse.
 */
export class TransactionExists extends Schema.TaggedError<TransactionExists>()("TransactionExists", {
  kind: TransactionKind,
  txnId: Schema.String
}) {}

/** A debit whose rollback came first (its tombstone holds the debit's id): it is refused, never taken. */
export class DebitRolledBack extends Schema.TaggedError<DebitRolledBack>()("DebitRolledBack", {
  txnId: Schema.String
}) {}

/** The round changed between the decision and its write (another call created it): decide again. */
export class RoundChanged extends Schema.TaggedError<RoundChanged>()("RoundChanged", {}) {}

/** A transaction as the call brought it. */
export interface NewTransaction {
  readonly aggregator: Aggregator
  readonly kind: TransactionKind
  readonly txnId: string
  readonly fingerprint: string
  readonly partnerId: number
  readonly environment: Environment
  readonly playerId: number
  /** The player's currency, which every amount of it is in. */
  readonly currency: string
  readonly roundId: string
  /** The debit a credit pays or a rollback undoes. */
  readonly debitTxnId: string | null
  readonly gameCode: string | null
  readonly providerCode: string | null
  readonly bet: Minor
  readonly win: Minor
}

/** How a transaction ends, and what that does to the balance mirror. */
export interface Outcome {
  readonly status: Exclude<TransactionStatus, "pending">
  readonly refusal: Refusal | null
  readonly note: TransactionNote | null
  readonly amount: Minor
  /** Null for a shadow player: the service keeps no balance of theirs. */
  readonly balanceAfter: Minor | null
  /** What the aggregator is told now (in its protocol's words); kept as `storedAnswer` says. */
  readonly answer: WalletOutcome
  /** The mirror's new value; null leaves it as it is. */
  readonly mirror: Minor | null
}

/**
 * The answer as it is kept for replays: whole, or, for a shadow player (no balance after), without the balance,
 * which is the partner's own and only passes through.
 */
export const storedAnswer = ({ answer, balanceAfter }: Pick<Outcome, "answer" | "balanceAfter">): StoredOutcome => {
  const refusal = answer._tag === "Refused" ? answer.refusal : null
  return balanceAfter === null ? { refusal } : { refusal, balance: answer.balance }
}

/** What a decided transaction does to its round: create it, or change the one locked for the decision. */
export type RoundWrite =
  | {
    readonly _tag: "Create"
    readonly status: Exclude<RoundStatus, "open">
    readonly refundedEarly: boolean
    readonly addBet: Minor
    readonly addWin: Minor
  }
  | {
    readonly _tag: "Update"
    readonly roundRef: number
    /** The round's version the decision was taken on: a round written since is not written again. */
    readonly version: number
    readonly refund: boolean
    readonly addBet: Minor
    readonly addWin: Minor
  }

export type OpenedBet =
  /** With the player as the same step read it: its mirror (or none, a shadow player) when the bet was written. */
  | {
    readonly _tag: "Opened"
    readonly transaction: WalletTransaction
    readonly player: PartnerPlayer
    /**
     * Whether the player had undelivered notifications (wins, refunds, rollbacks) as the bet was written: only then
     * is their delivery queue looked up and delivered before the partner is asked.
     */
    readonly queued: boolean
  }
  /** The round was refunded (perhaps before this bet arrived), or the player is no longer there: nothing was written. */
  | { readonly _tag: "NotOpened" }

/**
 * The player as a decision took them, compared again by the decision's write under the player's row lock: the mirror
 * it started from (null for a shadow player), and for a shadow player whose balance was asked of its partner, how many
 * callbacks of theirs had been written then (a decision written since may not be in the answer). A write whose player
 * changed writes nothing, and the decision is taken again.
 */
export interface PlayerAsDecided {
  readonly playerId: number
  readonly mirror: Minor | null
  /** Not compared when absent: a shadow player asked often enough is taken as asked, so their calls are answered. */
  readonly callbacksWritten?: number | undefined
}

/** What one decision writes: how its transaction ends and the callbacks recorded with it. */
export interface Decided {
  readonly outcome: Outcome
  readonly callbacks: ReadonlyArray<NewCallback>
}
