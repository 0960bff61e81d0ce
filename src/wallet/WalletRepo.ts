import { Context, type Duration, Effect, Layer, type Option } from "effect"
import type { NewCallback } from "../domain/Callbacks.ts"
import type { PlayerIdentity } from "../domain/Partner.ts"
import type { Aggregator } from "../domain/Aggregator.ts"
import type { Environment } from "../domain/Environment.ts"
import type { PageRequest } from "../domain/Paging.ts"
import type { Round, TransactionKind, WalletTransaction } from "../domain/Wallet.ts"
import type { OpenRound, RoundFilter, TransactionFilter } from "../domain/WalletQueries.ts"
import type { DebitLedger, DebitLedgerQuery } from "../domain/WalletDebits.ts"
import type {
  DebitRolledBack,
  NewTransaction,
  OpenedBet,
  Outcome,
  PlayerAsDecided,
  RoundChanged,
  RoundWrite,
  TransactionExists
} from "../domain/WalletWrites.ts"
import * as WalletRepoMemory from "./WalletRepoMemory.ts"
import * as WalletRepoSql from "./WalletRepoSql.ts"

/**
 * The wallet's rounds and transactions (wallet_rounds, wallet_transactions):
 * the only code that reads or writes them. A decision is written with what
 * goes with it (the player's balance mirror, the partner callbacks and their
 * delivery queues) in one atomic step. The wallet's rules (Wallet.ts) speak
 * to it in these terms. `layerSql` keeps them in PostgreSQL (WalletRepoSql.ts),
 * `layerMemory` in memory (WalletRepoMemory.ts), for tests of those rules
 * and of the ledger's handlers.
 */
export class WalletRepo extends Context.Service<WalletRepo, {
  /**
   * Writes a bet `pending` before the partner is asked, and opens its round (creating it on the first bet):
   * one atomic step, in turn with everything else on that round, which also reads the player's state (its
   * mirror) as it writes; nothing when the player is gone. DebitRolledBack when the bet's rollback came first.
   */
  openBet(bet: NewTransaction, player: PlayerIdentity): Effect.Effect<OpenedBet, TransactionExists | DebitRolledBack>
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
  /** Runs `work` with the round (a player's round of one aggregator) locked (when it exists) in one database transaction: decisions on a round take turns. */
  withRoundLocked<A, E, R>(
    playerId: number,
    aggregator: Aggregator,
    roundId: string,
    work: (round: Option.Option<Round>) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R>
  /**
   * Records a transaction decided without a pending step, with its round, mirror and callbacks, atomically, only if
   * the round is still at the version it was decided on and the player as it was decided on (`player`); else it
   * writes nothing and fails RoundChanged (decide again on what is there). Its keys hold the races on a debit: a
   * stake written applied whose rollback came first fails DebitRolledBack; a tombstone beside its debit, or a second
   * undo of one debit, fails RoundChanged.
   */
  recordDecided(
    transaction: NewTransaction,
    outcome: Outcome,
    round: RoundWrite,
    callbacks: ReadonlyArray<NewCallback>,
    player: PlayerAsDecided
  ): Effect.Effect<WalletTransaction, TransactionExists | RoundChanged | DebitRolledBack>
  /**
   * What an event naming a debit is decided on, read at one moment (domain/WalletDebits.ts DebitLedger); none when
   * the player is gone.
   */
  debitLedger(query: DebitLedgerQuery): Effect.Effect<Option.Option<DebitLedger>>
  /**
   * How many callbacks the ledger wrote for the player: a decision on a shadow player's balance asked of its partner
   * holds only if none was written since it was asked.
   */
  callbacksWritten(playerId: number): Effect.Effect<number>
  /** A transaction by its kind and id, of one aggregator in one environment (each numbers its own). */
  findTransaction(
    environment: Environment,
    aggregator: Aggregator,
    kind: TransactionKind,
    txnId: string
  ): Effect.Effect<Option.Option<WalletTransaction>>
  /**
   * Which of these keys a transaction (of any kind) of the ledger holds: an aggregator's transaction id in one
   * environment. An unreadable call resent readable is settled so.
   */
  existingTxnIds(
    keys: ReadonlyArray<{ readonly environment: Environment; readonly aggregator: Aggregator; readonly txnId: string }>
  ): Effect.Effect<
    ReadonlyArray<{ readonly environment: Environment; readonly aggregator: Aggregator; readonly txnId: string }>
  >
  /** A round's pending bets, oldest first. */
  pendingBetsOf(roundRef: number): Effect.Effect<ReadonlyArray<WalletTransaction>>
  /** Bets pending for longer than `olderThan` (their instance crashed or hung), oldest first. */
  stalePendingBets(olderThan: Duration.Duration, limit: number): Effect.Effect<ReadonlyArray<WalletTransaction>>
  /** Every pending bet, oldest first. */
  pendingBets(limit: number): Effect.Effect<ReadonlyArray<WalletTransaction>>
  /** A partner's transactions of one environment created in [from, to), in the order they were created. */
  createdBetween(
    partnerId: number,
    environment: Environment,
    from: Date,
    to: Date
  ): Effect.Effect<ReadonlyArray<WalletTransaction>>
  /** The partner environments with a bet created in [from, to) still pending (their statement of the day waits for it). */
  pendingBetween(
    from: Date,
    to: Date
  ): Effect.Effect<ReadonlyArray<{ readonly partnerId: number; readonly environment: Environment }>>
  /** When the first transaction was created; none while the ledger is empty. */
  readonly firstCreatedAt: Effect.Effect<Option.Option<Date>>
  /**
   * Rounds open for longer than `olderThan`, oldest first: open since their oldest pending bet was written (a
   * round is open only while a bet of it waits), or since their last change when none is pending.
   */
  openRounds(olderThan: Duration.Duration, limit: number): Effect.Effect<ReadonlyArray<OpenRound>>
  transactions(filter: TransactionFilter, page: PageRequest): Effect.Effect<{
    readonly transactions: ReadonlyArray<WalletTransaction>
    readonly total: number
  }>
  rounds(filter: RoundFilter): Effect.Effect<ReadonlyArray<Round>>
  roundsByRef(refs: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Round>>
  transactionsOfRounds(refs: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<WalletTransaction>>
}>()("partner-api/wallet/WalletRepo") {
  static readonly layerSql = Layer.effect(WalletRepo, WalletRepoSql.make)
  /** With the callbacks it wrote (MemoryCallbacks), which tests read instead of the outbox. */
  static readonly layerMemory = Layer.unwrap(Effect.sync(() => {
    const callbacks: Array<WalletRepoMemory.MemoryCallback> = []
    return Layer.merge(
      Layer.succeed(WalletRepoMemory.MemoryCallbacks, callbacks),
      Layer.effect(WalletRepo, WalletRepoMemory.make(callbacks))
    )
  }))
}
