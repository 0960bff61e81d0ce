import { Duration, Effect, Option } from "effect"
import type { Aggregator } from "../domain/Aggregator.ts"
import type { Environment } from "../domain/Environment.ts"
import type { PageRequest } from "../domain/Paging.ts"
import type { Round, TransactionKind, WalletTransaction } from "../domain/Wallet.ts"
import type { OpenRound, RoundFilter, TransactionFilter } from "../domain/WalletQueries.ts"

/** The memory ledger's state and its views, as WalletRepoMemory.ts keeps them. */
export interface MemoryLedger {
  readonly rounds: Map<string, Round>
  readonly transactions: Map<string, WalletTransaction>
  readonly roundByRef: (ref: number) => Round | undefined
  readonly txnKey: (t: { environment: string; aggregator: Aggregator; kind: string; txnId: string }) => string
  readonly aged: (transaction: WalletTransaction, now: number) => WalletTransaction
  /** Every transaction, aged at `now`, in the order written. */
  readonly all: (now: number) => ReadonlyArray<WalletTransaction>
  readonly now: Effect.Effect<number>
}

/**
 * The memory twin's reads (its writes in WalletRepoMemory.ts), answering as WalletRepoReads.ts's SQL does: a
 * transaction or a round by its keys, pending bets, a partner's day, open rounds, and the books partners and
 * operators page through.
 */
export const makeMemoryReads = ({ aged, all, now, roundByRef, rounds, transactions, txnKey }: MemoryLedger) => {
  const matches = (filter: TransactionFilter) => (t: WalletTransaction) =>
    (filter.partnerId === undefined || t.partnerId === filter.partnerId) &&
    (filter.environment === undefined || t.environment === filter.environment) &&
    (filter.playerIds === undefined || filter.playerIds.includes(t.playerId)) &&
    (filter.currency === undefined || t.currency === filter.currency) &&
    (filter.txnId === undefined || t.txnId === filter.txnId) &&
    (filter.kind === undefined || t.kind === filter.kind) &&
    (filter.roundId === undefined || t.roundId === filter.roundId) &&
    (filter.status === undefined || t.status === filter.status) &&
    (filter.from === undefined || t.createdAt >= filter.from) &&
    (filter.to === undefined || t.createdAt <= filter.to)

  return {
    findTransaction: (environment: Environment, aggregator: Aggregator, kind: TransactionKind, txnId: string) =>
      Effect.map(
        now,
        (at) =>
          Option.map(
            Option.fromNullishOr(transactions.get(txnKey({ environment, aggregator, kind, txnId }))),
            (t) => aged(t, at)
          )
      ),
    existingTxnIds: (
      keys: ReadonlyArray<
        { readonly environment: Environment; readonly aggregator: Aggregator; readonly txnId: string }
      >
    ) =>
      Effect.sync(() =>
        keys.filter((key) =>
          [...transactions.values()].some((t) =>
            t.environment === key.environment && t.aggregator === key.aggregator && t.txnId === key.txnId
          )
        )
      ),
    pendingBetsOf: (roundRef: number) =>
      Effect.map(now, (at) => all(at).filter((t) => t.roundRef === roundRef && t.status === "pending")),
    stalePendingBets: (olderThan: Duration.Duration, limit: number) =>
      Effect.map(
        now,
        (at) =>
          all(at).filter((t) => t.status === "pending" && t.ageMillis >= Duration.toMillis(olderThan)).slice(0, limit)
      ),
    pendingBets: (limit: number) =>
      Effect.map(now, (at) => all(at).filter((t) => t.status === "pending").slice(0, limit)),
    createdBetween: (partnerId: number, environment: Environment, from: Date, to: Date) =>
      Effect.map(
        now,
        (at) =>
          all(at).filter((t) =>
            t.partnerId === partnerId && t.environment === environment && t.createdAt >= from && t.createdAt < to
          )
      ),
    pendingBetween: (from: Date, to: Date) =>
      Effect.sync(() => {
        const pending = [...transactions.values()].filter((t) =>
          t.status === "pending" && t.createdAt >= from && t.createdAt < to
        )
        const keys = new Set(pending.map((t) => `${t.partnerId}:${t.environment}`))
        return [...keys].map((key) => ({
          partnerId: Number(key.split(":")[0]),
          environment: key.split(":")[1] as Environment
        }))
      }),
    firstCreatedAt: Effect.sync(() =>
      Option.fromNullishOr(
        [...transactions.values()].map((t) => t.createdAt).sort((a, b) => a.getTime() - b.getTime())[0]
      )
    ),
    openRounds: (olderThan: Duration.Duration, limit: number) =>
      Effect.map(
        now,
        (at) =>
          [...rounds.values()].filter((round) => round.status === "open").map((round): OpenRound => {
            const pending = all(at).find((t) => t.roundRef === round.ref && t.status === "pending")
            return { round, openSince: pending?.createdAt ?? round.updatedAt }
          }).filter((open) => at - open.openSince.getTime() >= Duration.toMillis(olderThan))
            .sort((a, b) => a.openSince.getTime() - b.openSince.getTime()).slice(0, limit)
      ),
    transactions: (filter: TransactionFilter, page: PageRequest) =>
      Effect.map(now, (at) => {
        const found = all(at).filter(matches(filter)).reverse()
        return {
          transactions: found.slice((page.page - 1) * page.perPage, page.page * page.perPage),
          total: found.length
        }
      }),
    rounds: (filter: RoundFilter) =>
      Effect.sync(() =>
        [...rounds.values()].filter((round) =>
          round.roundId === filter.roundId &&
          (filter.partnerId === undefined || round.partnerId === filter.partnerId) &&
          (filter.environment === undefined || round.environment === filter.environment) &&
          (filter.playerIds === undefined || filter.playerIds.includes(round.playerId))
        )
      ),
    roundsByRef: (refs: ReadonlyArray<number>) => Effect.sync(() => refs.flatMap((ref) => roundByRef(ref) ?? [])),
    transactionsOfRounds: (refs: ReadonlyArray<number>) =>
      Effect.map(now, (at) => all(at).filter((t) => refs.includes(t.roundRef)))
  }
}
