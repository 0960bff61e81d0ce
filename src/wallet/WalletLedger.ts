import { Context, Effect, Layer, Option } from "effect"
import type { Environment } from "../domain/Environment.ts"
import type { PageRequest } from "../domain/Paging.ts"
import {
  type LedgerEntry,
  ledgerEntry,
  type LedgerRound,
  ledgerRound,
  type TransactionKind,
  type TransactionStatus,
  type WalletTransaction
} from "../domain/Wallet.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import { OutboxRepo } from "./outbox/OutboxRepo.ts"
import { WalletRepo } from "./WalletRepo.ts"

export interface LedgerFilter {
  readonly externalPlayerId?: string | undefined
  readonly currency?: string | undefined
  readonly roundId?: string | undefined
  readonly kind?: TransactionKind | undefined
  readonly status?: TransactionStatus | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

/**
 * Whose ledger is read: one partner's players in the environment of its token (the partner API), or everyone's
 * (the operator), in one environment or both.
 */
export interface LedgerScope {
  readonly partnerId?: number | undefined
  /** Both environments when absent; a player named by its external id is looked up in live then. */
  readonly environment?: Environment | undefined
}

/** A partner's own ledger, in its token's environment. */
export const ledgerScopeOf = (partner: { readonly id: number; readonly environment: Environment }): LedgerScope => ({
  partnerId: partner.id,
  environment: partner.environment
})

/**
 * The wallet's books read back, for partners reconciling (only their own
 * players) and for operators: transactions, rounds and the callbacks each
 * caused, with their delivery state.
 */
export class WalletLedger extends Context.Service<WalletLedger, {
  transactions(scope: LedgerScope, filter: LedgerFilter, page: PageRequest): Effect.Effect<{
    readonly entries: ReadonlyArray<LedgerEntry>
    readonly total: number
  }>
  /** The bet and/or the refund carrying this transaction id. */
  transaction(scope: LedgerScope, txnId: string, kind?: TransactionKind): Effect.Effect<ReadonlyArray<LedgerEntry>>
  rounds(scope: LedgerScope, roundId: string, externalPlayerId?: string): Effect.Effect<ReadonlyArray<LedgerRound>>
  /** Bets waiting for a partner's answer, oldest first. */
  pending(limit: number): Effect.Effect<ReadonlyArray<LedgerEntry>>
}>()("partner-api/wallet/WalletLedger") {
  static readonly layer = Layer.effect(
    WalletLedger,
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const players = yield* PartnerPlayers
      const outbox = yield* OutboxRepo

      const entriesOf = Effect.fnUntraced(function*(transactions: ReadonlyArray<WalletTransaction>) {
        const [owners, callbacks] = yield* Effect.all([
          players.findByIds([...new Set(transactions.map((t) => t.playerId))]),
          outbox.ofTransactions(transactions.map((t) => t.ref))
        ], { concurrency: 2 })
        const byId = new Map(owners.map((player) => [player.id, player]))
        return transactions.map((transaction): LedgerEntry =>
          ledgerEntry(
            transaction,
            byId.get(transaction.playerId)!,
            callbacks.filter((callback) => callback.transactionRef === transaction.ref)
          )
        )
      })

      /** A player named by the partner's own id (its rows, one per currency); none means the filter matches nothing. */
      const playerFilter = (scope: LedgerScope, externalPlayerId: string | undefined) =>
        externalPlayerId === undefined || scope.partnerId === undefined
          ? Effect.succeed(Option.some<ReadonlyArray<number> | undefined>(undefined))
          : Effect.map(
            players.findAll(scope.partnerId, scope.environment ?? "live", externalPlayerId),
            (found) => found.length === 0 ? Option.none() : Option.some(found.map((player) => player.id))
          )

      const transactions = Effect.fn("WalletLedger.transactions")(
        function*(scope: LedgerScope, filter: LedgerFilter, page: PageRequest) {
          const playerIds = yield* playerFilter(scope, filter.externalPlayerId)
          if (Option.isNone(playerIds)) return { entries: [], total: 0 }
          const found = yield* repo.transactions(
            { ...filter, partnerId: scope.partnerId, environment: scope.environment, playerIds: playerIds.value },
            page
          )
          return { entries: yield* entriesOf(found.transactions), total: found.total }
        }
      )

      const transaction = Effect.fn("WalletLedger.transaction")(
        function*(scope: LedgerScope, txnId: string, kind?: TransactionKind) {
          const found = yield* repo.transactions(
            { partnerId: scope.partnerId, environment: scope.environment, txnId, kind },
            { page: 1, perPage: 10 }
          )
          // The bet before its refund: the order they happened in.
          return yield* entriesOf([...found.transactions].sort((a, b) => a.ref - b.ref))
        }
      )

      const rounds = Effect.fn("WalletLedger.rounds")(
        function*(scope: LedgerScope, roundId: string, externalPlayerId?: string) {
          const playerIds = yield* playerFilter(scope, externalPlayerId)
          if (Option.isNone(playerIds)) return []
          const found = yield* repo.rounds({
            partnerId: scope.partnerId,
            environment: scope.environment,
            playerIds: playerIds.value,
            roundId
          })
          const entries = yield* Effect.flatMap(repo.transactionsOfRounds(found.map((round) => round.ref)), entriesOf)
          const owners = yield* players.findByIds(found.map((round) => round.playerId))
          return found.map((round): LedgerRound =>
            ledgerRound(
              round,
              owners.find((player) => player.id === round.playerId)!,
              entries.filter((entry) => entry.roundRef === round.ref)
            )
          )
        }
      )

      return WalletLedger.of({
        transactions,
        transaction,
        rounds,
        pending: (limit) => Effect.flatMap(repo.pendingBets(limit), entriesOf)
      })
    })
  )
}
