import { Option } from "effect"
import { rollbackBody, winBody } from "./Callbacks.ts"
import type { Minor } from "./Money.ts"
import type { Aggregator } from "./Aggregator.ts"
import type { Environment } from "./Environment.ts"
import type { PartnerPlayer, PlayerState } from "./Partner.ts"
import { balanceAfterRefund, type Round, type TransactionKind, type WalletTransaction } from "./Wallet.ts"
import { accepted, type Credit } from "./WalletEvents.ts"
import { notification, partyOf, roundWrite, transactionOf } from "./WalletRecords.ts"
import type { Decided, RoundWrite } from "./WalletWrites.ts"

/**
 * The rules of the events that name a debit (a credit paying it, a rollback undoing it), apart from where the ledger
 * is kept: what each decides from the debit as its round shows it, and what that writes. A debit is a bet
 * row (kind `bet`); its credits and rollbacks are rows of its round naming it (`debitTxnId`).
 */

/** What the ledger is read for before an event naming a debit is decided (WalletRepo.debitLedger). */
export interface DebitLedgerQuery {
  readonly environment: Environment
  readonly aggregator: Aggregator
  /** The event's own transaction: its kind and id. */
  readonly kind: TransactionKind
  readonly txnId: string
  readonly debitTxnId: string
  /** The event's round: where a debit not seen yet is decided (a rollback's tombstone). */
  readonly roundId: string
  readonly playerId: number
}

/**
 * What one read of the ledger shows an event naming a debit (a credit or a rollback) before it is decided: the
 * player as they are, the event's own transaction if it was written before, the debit named (whoever's), and the
 * round it is decided on, with that round's transactions. The round is the debit's when the debit is the player's,
 * else the event's own (where a rollback of a debit not seen yet leaves its tombstone). One statement reads it all,
 * so it is one moment's view; the decision's write compares the round's version and the player's state.
 */
export interface DebitLedger {
  readonly player: PlayerState & { readonly callbacksWritten: number }
  readonly seen: WalletTransaction | undefined
  readonly debit: WalletTransaction | undefined
  readonly round: Option.Option<Round>
  readonly transactions: ReadonlyArray<WalletTransaction>
}

/** What the round shows of the debit an event names. */
export interface DebitState {
  /** The debit, if it came (none: not yet, or never). */
  readonly debit: WalletTransaction | undefined
  /** An applied rollback of it is already written (it was undone, or it came after its rollback and was refused). */
  readonly undone: boolean
  /** Its round was refunded whole (PlayFiver's refund): its stake is back already. */
  readonly roundRefunded: boolean
}

/** The debit's state from its round's transactions (read with the round, at one moment). */
export const debitState = (
  transactions: ReadonlyArray<WalletTransaction>,
  debitTxnId: string,
  round: Option.Option<Round>
): DebitState => ({
  debit: transactions.find((t) => t.kind === "bet" && t.txnId === debitTxnId),
  undone: transactions.some((t) => t.kind === "rollback" && t.debitTxnId === debitTxnId && t.status === "applied"),
  roundRefunded: Option.isSome(round) && round.value.status === "refunded"
})

/** A debit that is someone else's is no debit of this player's: nothing of it is told or touched. */
export const isPlayersDebit = (debit: WalletTransaction, player: { readonly id: number }) =>
  debit.playerId === player.id

/** What a credit naming a debit does. */
export type CreditDecision =
  /** The debit took its stake and stands: the credit lands on its round. */
  | { readonly _tag: "Pay" }
  /** The debit waits for its partner: decide once it is settled. */
  | { readonly _tag: "Wait"; readonly debit: WalletTransaction }
  /** No debit of this player took a stake (none came, it was refused, or it was rolled back): refused. */
  | { readonly _tag: "NoDebit" }
  /** Its round was refunded whole. */
  | { readonly _tag: "RoundRefunded" }

export const decideCredit = (state: DebitState, player: { readonly id: number }): CreditDecision => {
  const { debit } = state
  if (debit === undefined || !isPlayersDebit(debit, player)) return { _tag: "NoDebit" }
  if (debit.status === "pending") return { _tag: "Wait", debit }
  if (debit.status === "refused" || state.undone) return { _tag: "NoDebit" }
  if (state.roundRefunded) return { _tag: "RoundRefunded" }
  return { _tag: "Pay" }
}

/**
 * A credit paying a debit: the win credited through the outbox (a `win` notification under the credit's own id, so a
 * debit paid twice is notified twice), the mirror and the debit's round's wins raised by it. For a shadow player
 * (`shadow`), `mirror` is the partner's balance just asked, answered plus the win and kept nowhere.
 */
export const creditRecords = (
  credit: Credit,
  debit: WalletTransaction,
  player: PartnerPlayer,
  slug: string,
  round: Round,
  mirror: Minor,
  at: Date,
  shadow: boolean
): Decided & { readonly round: RoundWrite } => {
  const balanceAfter = mirror + credit.win
  const kept = shadow ? null : balanceAfter
  const txn = transactionOf({ ...credit, roundId: debit.roundId })
  return {
    outcome: {
      status: "applied",
      refusal: null,
      note: null,
      amount: credit.win,
      balanceAfter: kept,
      answer: accepted(balanceAfter),
      mirror: kept
    },
    round: roundWrite(Option.some(round), { refund: false, addWin: credit.win }),
    callbacks: credit.win > 0n
      ? [notification(player, "win", credit, winBody(partyOf(player, slug), txn, credit.win, kept, at))]
      : []
  }
}

/** What a rollback naming a debit does. */
export type DebitRollbackDecision =
  /** The debit has not come: the rollback is its tombstone (the debit is refused when it comes). Nothing moves. */
  | { readonly _tag: "Tombstone" }
  /** The debit waits for its partner: decide once it is settled. */
  | { readonly _tag: "Wait"; readonly debit: WalletTransaction }
  /** Someone else's debit: refused, nothing told. */
  | { readonly _tag: "NoDebit" }
  /** Undone before (by another rollback, or its round's refund): nothing moves again. */
  | { readonly _tag: "AlreadyRolledBack" }
  /** Refused: it took nothing, so nothing is given back (a partner that could not answer was sent a rollback then). */
  | { readonly _tag: "DebitRefused" }
  /** Its stake back, exactly, once. */
  | { readonly _tag: "Undo"; readonly debit: WalletTransaction }

export const decideDebitRollback = (state: DebitState, player: { readonly id: number }): DebitRollbackDecision => {
  const { debit } = state
  if (debit === undefined) return { _tag: "Tombstone" }
  if (!isPlayersDebit(debit, player)) return { _tag: "NoDebit" }
  if (debit.status === "pending") return { _tag: "Wait", debit }
  if (state.undone || state.roundRefunded) return { _tag: "AlreadyRolledBack" }
  if (debit.status === "refused") return { _tag: "DebitRefused" }
  return { _tag: "Undo", debit }
}

/**
 * A rollback's records, from its decision (Tombstone, AlreadyRolledBack, DebitRefused or Undo) and the player's mirror
 * (for a shadow player, the partner's balance just asked). An undo gives the stake back through the outbox as the
 * `rollback` notification partners know (naming the debit's bet, so the partner gives back what it took), raises the
 * mirror by it and takes it off its round's stakes.
 */
export const debitRollbackRecords = (
  decision: Exclude<DebitRollbackDecision, { readonly _tag: "Wait" | "NoDebit" }>,
  player: PartnerPlayer,
  slug: string,
  round: Option.Option<Round>,
  mirror: Minor,
  at: Date,
  shadow: boolean
): Decided & { readonly round: RoundWrite } => {
  const nothing = (note: "early_rollback" | "already_rolled_back" | "debit_refused") => ({
    outcome: {
      status: "applied" as const,
      refusal: null,
      note,
      amount: 0n,
      balanceAfter: shadow ? null : mirror,
      answer: accepted(mirror),
      mirror: null
    },
    round: roundWrite(round, { refund: false, addWin: 0n }),
    callbacks: []
  })
  switch (decision._tag) {
    case "Tombstone":
      return nothing("early_rollback")
    case "AlreadyRolledBack":
      return nothing("already_rolled_back")
    case "DebitRefused":
      return nothing("debit_refused")
    case "Undo": {
      const { debit } = decision
      const balanceAfter = balanceAfterRefund(mirror, debit.bet)
      const kept = shadow ? null : balanceAfter
      const written = roundWrite(round, { refund: false, addWin: 0n })
      return {
        outcome: {
          status: "applied",
          refusal: null,
          note: null,
          amount: debit.bet,
          balanceAfter: kept,
          answer: accepted(balanceAfter),
          mirror: kept
        },
        round: written._tag === "Update" ? { ...written, addBet: -debit.bet } : written,
        callbacks: debit.bet === 0n ? [] : [
          notification(
            player,
            "rollback",
            debit,
            rollbackBody(partyOf(player, slug), transactionOf(debit), debit.bet, at)
          )
        ]
      }
    }
  }
}
