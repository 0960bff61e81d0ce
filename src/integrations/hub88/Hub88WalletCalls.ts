import type { Credit, Debit, Refusal, Rollback, WalletOutcome } from "../../domain/WalletEvents.ts"
import type { BetRequest, RollbackRequest, Status, WinRequest } from "./Hub88Protocol.ts"
import type { Minor } from "../../domain/Money.ts"

/**
 * Hub88's money calls as the ledger's events (domain/WalletEvents.ts), and the ledger's outcomes as Hub88's statuses.
 * Pure. Hub88's `transaction_uuid` is the ledger's transaction id (so the partner's callbacks and lookups carry it),
 * its `round` the ledger's round; `user` is the user code this service gave the player at launch (Hub88Gateway
 * launches with it). Hub88 names no studio in a wallet call: the provider code is left empty.
 */

/** The user code a wallet call's `user` names: the digits the launch sent, else none. */
export const userCodeOfUser = (user: string): number | undefined =>
  /^[1-9]\d{0,14}$/.test(user) ? Number(user) : undefined

const fieldsOf = (userCode: number, request: { readonly transactionUuid: string; readonly round: string }) => ({
  aggregator: "hub88" as const,
  userCode,
  txnId: request.transactionUuid,
  roundId: request.round,
  providerCode: null
})

/**
 * A bet: a stake asked of the partner. A free bet (`is_free`) takes nothing from the player: its stake is 0, which the
 * ledger records without asking the partner, and a win naming it is paid as any other. Its amount is still what Hub88
 * sent (`freeStake`), so a repeat with another amount is RS_ERROR_DUPLICATE_TRANSACTION, not the same bet replayed.
 */
export const debitOf = (userCode: number, request: BetRequest, bet: Minor): Debit => ({
  _tag: "Debit",
  ...fieldsOf(userCode, request),
  gameCode: request.gameCode,
  ...(request.isFree ? { bet: 0n, freeStake: bet } : { bet })
})

/** A win: paying the bet it names (`reference_transaction_uuid`), on that bet's round. */
export const creditOf = (userCode: number, request: WinRequest, win: Minor): Credit => ({
  _tag: "Credit",
  ...fieldsOf(userCode, request),
  gameCode: request.gameCode,
  win,
  debitTxnId: request.referenceTransactionUuid
})

/**
 * A rollback: the stake of the bet it names given back, once (one before its bet leaves a tombstone). Hub88 rolls back
 * bets only, so one naming a win names no bet the ledger has: RS_OK and a tombstone, as the spec answers a rollback of
 * a transaction the operator cannot find; the win is never taken back.
 */
export const rollbackOf = (userCode: number, request: RollbackRequest): Rollback => ({
  _tag: "Rollback",
  ...fieldsOf(userCode, request),
  gameCode: request.gameCode,
  debitTxnId: request.referenceTransactionUuid
})

/**
 * A ledger refusal in Hub88's words, for the call it answers. A bet after its rollback (the ledger's
 * DEBIT_ROLLED_BACK) is a used id: RS_ERROR_DUPLICATE_TRANSACTION. A win or a rollback naming no bet of the player's
 * that took a stake (never seen, refused, or rolled back) is RS_ERROR_TRANSACTION_DOES_NOT_EXIST. A player the partner
 * does not know, or a partner that cannot be called, is RS_ERROR_USER_DISABLED.
 */
export const statusOfRefusal = (refusal: Refusal, call: "bet" | "win" | "rollback" | "balance"): Status => {
  switch (refusal) {
    case "INSUFFICIENT_USER_FUNDS":
      return "RS_ERROR_NOT_ENOUGH_MONEY"
    case "INVALID_USER":
      return "RS_ERROR_USER_DISABLED"
    case "DUPLICATE_TRANSACTION":
    case "DEBIT_ROLLED_BACK":
      return "RS_ERROR_DUPLICATE_TRANSACTION"
    case "DEBIT_NOT_FOUND":
    case "ROUND_NOT_FOUND":
      return "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
    case "ROUND_REFUNDED":
      // Hub88 never refunds a whole round; a win of one is of a bet given back.
      return call === "bet" ? "RS_ERROR_UNKNOWN" : "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
  }
}

/** The ledger's outcome as a status and the balance it carries (a refusal carries the real balance too). */
export const statusOf = (
  outcome: WalletOutcome,
  call: "bet" | "win" | "rollback" | "balance"
): { readonly status: Status; readonly balance: Minor } =>
  outcome._tag === "Accepted"
    ? { status: "RS_OK", balance: outcome.balance }
    : { status: statusOfRefusal(outcome.refusal, call), balance: outcome.balance }
