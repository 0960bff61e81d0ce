import { Context, Duration, Effect, Option, Semaphore } from "effect"
import type { NewCallback } from "../domain/Callbacks.ts"
import { type Aggregator, idsAcrossKinds } from "../domain/Aggregator.ts"
import type { PlayerIdentity } from "../domain/Partner.ts"
import type { Round, TransactionKind, WalletTransaction } from "../domain/Wallet.ts"
import type { DebitLedger, DebitLedgerQuery } from "../domain/WalletDebits.ts"
import {
  DebitRolledBack,
  type NewTransaction,
  type Outcome,
  type PlayerAsDecided,
  RoundChanged,
  type RoundWrite,
  storedAnswer,
  TransactionExists
} from "../domain/WalletWrites.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import { makeMemoryReads } from "./WalletRepoMemoryReads.ts"

export type MemoryCallback = NewCallback & { readonly transactionRef: number }

/** The callbacks the in-memory wallet wrote, with the transaction each belongs to. */
export class MemoryCallbacks extends Context.Service<MemoryCallbacks, Array<MemoryCallback>>()(
  "partner-api/wallet/MemoryCallbacks"
) {}

/**
 * WalletRepo in memory (its `layerMemory`), for tests of the wallet's rules without a
 * database: the same state machine, each step atomic (JavaScript runs one
 * at a time), decisions on one round taking turns on a semaphore, the mirror
 * kept by the players' own memory. Time is the effect Clock's.
 */
export const make = (callbacks: Array<MemoryCallback>) =>
  Effect.gen(function*() {
    const players = yield* PartnerPlayers
    const rounds = new Map<string, Round>()
    const transactions = new Map<string, WalletTransaction>()
    const locks = new Map<string, Semaphore.Semaphore>()
    let nextRef = 1
    // The SQL tables' keys: a round is a player's round of one aggregator, a transaction unique within one aggregator of
    // one environment.
    const roundKey = (playerId: number, aggregator: Aggregator, roundId: string) =>
      `${playerId}\u0000${aggregator}\u0000${roundId}`
    const txnKey = (t: { environment: string; aggregator: Aggregator; kind: string; txnId: string }) =>
      `${t.environment}\u0000${t.aggregator}\u0000${t.kind}\u0000${t.txnId}`
    const roundByRef = (ref: number) => [...rounds.values()].find((round) => round.ref === ref)
    // The SQL's keys on a debit: a debit (unless refused) and its tombstone hold one key; a debit is undone once.
    type Keyed = Pick<
      WalletTransaction,
      "environment" | "aggregator" | "kind" | "txnId" | "debitTxnId" | "status" | "note"
    >
    const debitKey = (t: Keyed) =>
      (t.kind === "bet" && t.status !== "refused") || (t.kind === "rollback" && t.note === "early_rollback")
        ? `${t.environment}\u0000${t.aggregator}\u0000${t.kind === "bet" ? t.txnId : t.debitTxnId}`
        : undefined
    const undoKey = (t: Keyed) =>
      t.kind === "rollback" && t.status === "applied" && t.note !== "already_rolled_back"
        ? `${t.environment}\u0000${t.aggregator}\u0000${t.debitTxnId}`
        : undefined
    // The SQL's key of an aggregator whose ids are one space for every kind (Hub88): its id, whatever the kind.
    const idKey = (t: Keyed) =>
      idsAcrossKinds(t.aggregator) ? `${t.environment}\u0000${t.aggregator}\u0000${t.txnId}` : undefined
    const taken = (key: (t: Keyed) => string | undefined, t: Keyed) => {
      const mine = key(t)
      return mine !== undefined && [...transactions.values()].some((other) => key(other) === mine)
    }

    const aged = (transaction: WalletTransaction, now: number): WalletTransaction => ({
      ...transaction,
      ageMillis: now - transaction.createdAt.getTime()
    })
    // Every write of a round raises its version, as the SQL's statements do (a new round's is 0).
    const putRound = (round: Round) => {
      const key = roundKey(round.playerId, round.aggregator, round.roundId)
      const before = rounds.get(key)
      rounds.set(key, { ...round, version: before === undefined ? 0 : before.version + 1 })
    }
    const callbacksOf = (playerId: number) => callbacks.filter((callback) => callback.playerId === playerId).length

    const write = (
      transaction: WalletTransaction,
      outcome: Outcome | undefined,
      written: ReadonlyArray<NewCallback>
    ) =>
      Effect.gen(function*() {
        transactions.set(txnKey(transaction), transaction)
        if (outcome?.mirror !== null && outcome?.mirror !== undefined) {
          yield* players.confirmBalance(transaction.playerId, outcome.mirror, Effect.succeed(true))
        }
        for (const callback of written) callbacks.push({ ...callback, transactionRef: transaction.ref })
        return transaction
      })

    const settled = (base: WalletTransaction, outcome: Outcome, now: number): WalletTransaction => ({
      ...base,
      status: outcome.status,
      refusal: outcome.refusal,
      note: outcome.note,
      amount: outcome.amount,
      balanceAfter: outcome.balanceAfter,
      answer: storedAnswer(outcome),
      settledAt: new Date(now)
    })

    const fresh = (transaction: NewTransaction, round: Round, now: number): WalletTransaction => ({
      ref: nextRef++,
      kind: transaction.kind,
      txnId: transaction.txnId,
      fingerprint: transaction.fingerprint,
      partnerId: transaction.partnerId,
      environment: transaction.environment,
      aggregator: transaction.aggregator,
      playerId: transaction.playerId,
      currency: transaction.currency,
      roundRef: round.ref,
      roundId: transaction.roundId,
      debitTxnId: transaction.debitTxnId,
      gameCode: transaction.gameCode,
      providerCode: transaction.providerCode,
      bet: transaction.bet,
      win: transaction.win,
      status: "pending",
      refusal: null,
      note: null,
      amount: 0n,
      balanceAfter: null,
      answer: null,
      createdAt: new Date(now),
      settledAt: null,
      ageMillis: 0
    })

    const newRound = (transaction: NewTransaction, now: number): Round => ({
      ref: nextRef++,
      partnerId: transaction.partnerId,
      environment: transaction.environment,
      playerId: transaction.playerId,
      aggregator: transaction.aggregator,
      roundId: transaction.roundId,
      status: "settled",
      pendingBets: 0,
      betTotal: 0n,
      winTotal: 0n,
      refundedEarly: false,
      createdAt: new Date(now),
      updatedAt: new Date(now),
      version: 0
    })

    const now = Effect.clockWith((clock) => Effect.succeed(clock.currentTimeMillisUnsafe()))
    const all = (now: number) => [...transactions.values()].map((t) => aged(t, now)).sort((a, b) => a.ref - b.ref)

    return {
      openBet: (bet: NewTransaction, _player: PlayerIdentity) =>
        Effect.gen(function*() {
          const at = yield* now
          if (transactions.has(txnKey(bet))) {
            return yield* new TransactionExists({ kind: "bet", txnId: bet.txnId })
          }
          if (taken(debitKey, { ...bet, status: "pending", note: null })) {
            return yield* new DebitRolledBack({ txnId: bet.txnId })
          }
          if (taken(idKey, { ...bet, status: "pending", note: null })) {
            return yield* new TransactionExists({ kind: "bet", txnId: bet.txnId })
          }
          const player = yield* players.findById(bet.playerId)
          const round = rounds.get(roundKey(bet.playerId, bet.aggregator, bet.roundId)) ?? newRound(bet, at)
          if (Option.isNone(player) || round.status === "refunded") {
            return { _tag: "NotOpened" as const }
          }
          putRound({ ...round, status: "open", pendingBets: round.pendingBets + 1, updatedAt: new Date(at) })
          const transaction = fresh(bet, round, at)
          transactions.set(txnKey(bet), transaction)
          // The memory ledger does not see the outbox: the player's delivery queue is always looked up.
          return { _tag: "Opened" as const, transaction, player: player.value, queued: true }
        }),
      settleBet: (
        bet: WalletTransaction,
        outcome: Outcome,
        written: ReadonlyArray<NewCallback>,
        options: { readonly olderThan?: Duration.Duration | undefined } = {}
      ) =>
        Effect.gen(function*() {
          const at = yield* now
          const current = transactions.get(txnKey(bet))
          if (current === undefined || current.status !== "pending") return false
          if (
            options.olderThan !== undefined && at - current.createdAt.getTime() < Duration.toMillis(options.olderThan)
          ) {
            return false
          }
          const round = roundByRef(current.roundRef)!
          const applied = outcome.status === "applied"
          putRound({
            ...round,
            pendingBets: round.pendingBets - 1,
            status: round.status === "refunded" ? "refunded" : round.pendingBets > 1 ? "open" : "settled",
            betTotal: round.betTotal + (applied ? current.bet : 0n),
            winTotal: round.winTotal + (applied ? current.win : 0n),
            updatedAt: new Date(at)
          })
          yield* write(settled(current, outcome, at), outcome, written)
          return true
        }),
      withRoundLocked: <A, E, R>(
        playerId: number,
        aggregator: Aggregator,
        roundId: string,
        work: (round: Option.Option<Round>) => Effect.Effect<A, E, R>
      ) => {
        const key = roundKey(playerId, aggregator, roundId)
        let lock = locks.get(key)
        if (lock === undefined) {
          lock = Semaphore.makeUnsafe(1)
          locks.set(key, lock)
        }
        return lock.withPermits(1)(Effect.suspend(() => work(Option.fromNullishOr(rounds.get(key)))))
      },
      recordDecided: (
        transaction: NewTransaction,
        outcome: Outcome,
        roundWrite: RoundWrite,
        written: ReadonlyArray<NewCallback>,
        asDecided: PlayerAsDecided
      ) =>
        Effect.gen(function*() {
          const at = yield* now
          // The decision's guard: the player as decided on, and (below) the round at its version.
          const player = Option.getOrUndefined(yield* players.findById(asDecided.playerId))
          if (
            player === undefined || player.balance !== asDecided.mirror ||
            (asDecided.callbacksWritten !== undefined && callbacksOf(player.id) !== asDecided.callbacksWritten)
          ) {
            return yield* new RoundChanged()
          }
          let round: Round
          if (roundWrite._tag === "Create") {
            if (rounds.has(roundKey(transaction.playerId, transaction.aggregator, transaction.roundId))) {
              return yield* new RoundChanged()
            }
            round = {
              ...newRound(transaction, at),
              status: roundWrite.status,
              refundedEarly: roundWrite.refundedEarly,
              betTotal: roundWrite.addBet,
              winTotal: roundWrite.addWin
            }
          } else {
            const current = roundByRef(roundWrite.roundRef)
            if (
              current === undefined || current.version !== roundWrite.version ||
              (roundWrite.refund && current.pendingBets > 0)
            ) {
              return yield* new RoundChanged()
            }
            // The SQL table's checks: a round's totals never go below 0.
            if (current.betTotal + roundWrite.addBet < 0 || current.winTotal + roundWrite.addWin < 0) {
              return yield* Effect.die(new Error("a round's totals would go below 0"))
            }
            round = {
              ...current,
              status: roundWrite.refund || current.status === "refunded"
                ? "refunded"
                : current.pendingBets > 0
                ? "open"
                : "settled",
              betTotal: current.betTotal + roundWrite.addBet,
              winTotal: current.winTotal + roundWrite.addWin,
              updatedAt: new Date(at)
            }
          }
          // As the SQL statement meets them: its round first, then the transaction's keys.
          if (transactions.has(txnKey(transaction))) {
            return yield* new TransactionExists({ kind: transaction.kind, txnId: transaction.txnId })
          }
          const keyed = { ...transaction, status: outcome.status, note: outcome.note }
          if (taken(debitKey, keyed)) {
            return yield* (transaction.kind === "bet"
              ? new DebitRolledBack({ txnId: transaction.txnId })
              : new RoundChanged())
          }
          if (taken(undoKey, keyed)) return yield* new RoundChanged()
          if (taken(idKey, keyed)) {
            return yield* new TransactionExists({ kind: transaction.kind, txnId: transaction.txnId })
          }
          putRound(round)
          return yield* write(settled(fresh(transaction, round, at), outcome, at), outcome, written)
        }),
      debitLedger: (query: DebitLedgerQuery) =>
        Effect.gen(function*() {
          const at = yield* now
          const player = yield* players.findById(query.playerId)
          if (Option.isNone(player)) return Option.none<DebitLedger>()
          const keyed = (kind: TransactionKind, txnId: string) =>
            Option.getOrUndefined(Option.map(
              Option.fromNullishOr(transactions.get(txnKey({ ...query, kind, txnId }))),
              (t) => aged(t, at)
            ))
          const debit = keyed("bet", query.debitTxnId)
          const round = Option.fromNullishOr(
            debit !== undefined && debit.playerId === query.playerId
              ? roundByRef(debit.roundRef)
              : rounds.get(roundKey(query.playerId, query.aggregator, query.roundId))
          )
          return Option.some<DebitLedger>({
            player: { ...player.value, callbacksWritten: callbacksOf(query.playerId) },
            seen: keyed(query.kind, query.txnId),
            debit,
            round,
            transactions: Option.isSome(round) ? all(at).filter((t) => t.roundRef === round.value.ref) : []
          })
        }),
      callbacksWritten: (playerId: number) => Effect.sync(() => callbacksOf(playerId)),
      ...makeMemoryReads({ rounds, transactions, roundByRef, txnKey, aged, all, now })
    }
  })
