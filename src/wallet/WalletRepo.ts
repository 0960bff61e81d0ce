import { Context, type Duration, type Effect, type Option, Schema } from "effect"
import type { Cents } from "../domain/Money.ts"
import type { PageRequest } from "../domain/Paging.ts"
import type {
  Refusal,
  Round,
  RoundStatus,
  TransactionKind,
  TransactionNote,
  TransactionStatus,
  WalletAnswer,
  WalletTransaction
} from "../domain/Wallet.ts"
import type { NewCallback } from "./outbox/OutboxRepo.ts"


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

/**
 * The wallet's rounds and transactions (wallet_rounds, wallet_transactions):
 * the only code that reads or writes them. A decision is written with what
 * goes with it (the player's balance mirror, the partner callbacks and their
 * delivery lines) in one atomic step. The wallet's rules (Wallet.ts) speak
 * to it in these terms. Implemented over PostgreSQL by WalletRepoSql, and in
 * memory, for tests of those rules, by WalletRepoMemory.
 */
export class WalletRepo extends Context.Service<WalletRepo, {
  /**
   * Writes a bet `pending` before the partner is asked, and opens its round (creating it on the first bet):
   * one atomic step, in turn with everything else on that round.
   */
  openBet(bet: NewTransaction): Effect.Effect<OpenedBet, TransactionExists>
  /**
   * Ends a pending bet, with its callbacks, its round's totals and the mirror, in one atomic step. False
   * when it was no longer pending (someone settled it first) or, with `olderThan`, not pending that long.
   */
  settleBet(
    bet: WalletTransaction,
    outcome: Outcome,
    callbacks: ReadonlyArray<NewCallback>,
    options?: { readonly olderThan?: Duration.Duration | undefined }
  ): Effect.Effect<boolean>
  /** Runs `work` with the round locked (when it exists) in one database transaction: decisions on a round take turns. */
  withRoundLocked<A, E, R>(
    playerId: number,
    roundId: string,
    work: (round: Option.Option<Round>) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R>
  /** Records a transaction decided without a pending step, with its round, mirror and callbacks, atomically. */
  recordDecided(
    transaction: NewTransaction,
    outcome: Outcome,
    round: RoundWrite,
    callbacks: ReadonlyArray<NewCallback>
  ): Effect.Effect<WalletTransaction, TransactionExists | RoundChanged>
  findTransaction(kind: TransactionKind, txnId: string): Effect.Effect<Option.Option<WalletTransaction>>
  /** A round's pending bets, oldest first. */
  pendingBetsOf(roundRef: number): Effect.Effect<ReadonlyArray<WalletTransaction>>
  /** Bets pending for longer than `olderThan` (their instance crashed or hung), oldest first. */
  stalePendingBets(olderThan: Duration.Duration, limit: number): Effect.Effect<ReadonlyArray<WalletTransaction>>
  /** Every pending bet, oldest first. */
  pendingBets(limit: number): Effect.Effect<ReadonlyArray<WalletTransaction>>
  transactions(filter: TransactionFilter, page: PageRequest): Effect.Effect<{
    readonly transactions: ReadonlyArray<WalletTransaction>
    readonly total: number
  }>
  rounds(filter: { readonly partnerId?: number | undefined; readonly playerId?: number | undefined; readonly roundId: string }): Effect.Effect<ReadonlyArray<Round>>
  roundsByRef(refs: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Round>>
  transactionsOfRounds(refs: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<WalletTransaction>>
}>()("partner-api/wallet/WalletRepo") {}
