import { createHash } from "node:crypto"
import type { Aggregator } from "./Aggregator.ts"
import type { Minor } from "./Money.ts"

/**
 * The one language the ledger (wallet/Wallet.ts) speaks: every aggregator's wallet protocol decodes its calls into
 * these events, and encodes the ledger's outcome into its own answer. Amounts are exact, in the player's currency's minor units; ids are the
 * aggregator's, exact strings, unique within that aggregator only.
 */

/** What every event that moves money carries: whose call, which player, which transaction, round and game. */
export interface BetFields {
  /** Whose call it is: its ids are unique within that aggregator only. */
  readonly aggregator: Aggregator
  /** The user code this service gave the player at launch. */
  readonly userCode: number
  readonly txnId: string
  readonly roundId: string
  readonly gameCode: string | null
  readonly providerCode: string | null
}

/** The player's balance, asked. */
export interface Balance {
  readonly _tag: "Balance"
  readonly userCode: number
}

/** A stake, with no win: the partner is asked to take it. */
export interface Debit extends BetFields {
  readonly _tag: "Debit"
  readonly bet: Minor
  /**
   * A free bet's amount (Hub88's `is_free`): staked for the player by the aggregator, so `bet` is 0 and nothing is
   * taken or asked, but it is the bet's content all the same: a repeat naming another amount is another transaction
   * wearing a used id. Only the fingerprint reads it; no row keeps it.
   */
  readonly freeStake?: Minor
}

/**
 * A win. It pays the debit `debitTxnId` names (of the same player and aggregator; it lands on that debit's round),
 * or, with none, is a free win on its own round (nothing taken, the win credited).
 */
export interface Credit extends BetFields {
  readonly _tag: "Credit"
  readonly win: Minor
  readonly debitTxnId: string | null
}

/**
 * An undo. Of the debit `debitTxnId` names: exactly its stake back, once, however many rollbacks name it (one that
 * comes before its debit leaves a tombstone, and the debit is refused when it comes). With none, PlayFiver's refund:
 * the whole round undone.
 */
export interface Rollback extends BetFields {
  readonly _tag: "Rollback"
  readonly debitTxnId: string | null
}

/** A stake and its win in one (PlayFiver's WinBet): the stake asked of the partner, the win a notification. */
export interface DebitAndCredit extends BetFields {
  readonly _tag: "DebitAndCredit"
  readonly bet: Minor
  readonly win: Minor
}

export type WalletEvent = Balance | Debit | Credit | Rollback | DebitAndCredit
/** The events that are transactions of the ledger. */
export type MoneyEvent = Exclude<WalletEvent, Balance>
/** The events that ask the partner to take a stake, and how much they win. */
export type StakeEvent = Debit | DebitAndCredit

/** An event's win: 0 for a plain debit. */
export const winOf = (event: StakeEvent): Minor => event._tag === "DebitAndCredit" ? event.win : 0n

/**
 * The ledger's refusals, as its rows keep them and the partner's books show them (each aggregator's protocol says
 * them in its own codes: integrations/). The partner's two (no funds, no such player), and the ledger's own
 * (documented in docs/architecture.md): a bet of a round already refunded, a transaction id already used with another
 * payload, a credit naming no debit that took a stake, a debit that came after its rollback. ROUND_NOT_FOUND is only
 * read back: refunds of unknown rounds answered it before they became tombstones.
 */
export type Refusal =
  | "INSUFFICIENT_USER_FUNDS"
  | "INVALID_USER"
  | "ROUND_REFUNDED"
  | "DUPLICATE_TRANSACTION"
  | "ROUND_NOT_FOUND"
  | "DEBIT_NOT_FOUND"
  | "DEBIT_ROLLED_BACK"
export const refusals = [
  "INSUFFICIENT_USER_FUNDS",
  "INVALID_USER",
  "ROUND_REFUNDED",
  "DUPLICATE_TRANSACTION",
  "ROUND_NOT_FOUND",
  "DEBIT_NOT_FOUND",
  "DEBIT_ROLLED_BACK"
] as const satisfies ReadonlyArray<Refusal>

/** What the ledger answers, whoever asked: accepted with the player's balance, or refused (with the balance too). */
export type WalletOutcome =
  | { readonly _tag: "Accepted"; readonly balance: Minor }
  | { readonly _tag: "Refused"; readonly refusal: Refusal; readonly balance: Minor }

export const accepted = (balance: Minor): WalletOutcome => ({ _tag: "Accepted", balance })
export const refused = (refusal: Refusal, balance: Minor): WalletOutcome => ({ _tag: "Refused", refusal, balance })

/**
 * What a transaction carries that money depends on: the player, the round, the amounts (a free bet's too, though it
 * takes nothing), the debit it names and the game. A repeat of a transaction id must carry the same, or it is another transaction wearing a used id. PlayFiver's
 * two (a stake and its win, a round's refund) hash as they did before the union, so their repeats still replay; a
 * plain debit is a stake with no win.
 */
export const fingerprint = (event: MoneyEvent): string =>
  createHash("sha256").update(JSON.stringify(fingerprinted(event))).digest("base64url")

/**
 * An amount as fingerprints hash it: the number of minor units, as cents were hashed before currencies (so a repeat
 * of a transaction recorded then still replays), and as text past what a double holds exactly.
 */
const hashed = (amount: Minor): number | string =>
  amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : amount.toString()

const fingerprinted = (event: MoneyEvent) => {
  switch (event._tag) {
    case "Debit":
    case "DebitAndCredit":
      return [
        "bet",
        event.userCode,
        event.roundId,
        hashed(event.bet),
        hashed(winOf(event)),
        event.gameCode,
        event.providerCode,
        // Appended only for a free bet, so every other stake's fingerprint stays what its rows keep.
        ...(event._tag === "Debit" && event.freeStake !== undefined ? [{ free: hashed(event.freeStake) }] : [])
      ]
    case "Credit":
      return [
        "credit",
        event.userCode,
        event.roundId,
        hashed(event.win),
        event.debitTxnId,
        event.gameCode,
        event.providerCode
      ]
    case "Rollback":
      return event.debitTxnId === null
        ? ["refund", event.userCode, event.roundId, event.gameCode, event.providerCode]
        : ["rollback", event.userCode, event.roundId, event.debitTxnId, event.gameCode, event.providerCode]
  }
}

/** The ledger's kind of transaction an event is written as. */
export const kindOf = (event: MoneyEvent) => {
  switch (event._tag) {
    case "Debit":
    case "DebitAndCredit":
      return "bet" as const
    case "Credit":
      return "credit" as const
    case "Rollback":
      return event.debitTxnId === null ? "refund" as const : "rollback" as const
  }
}

/** The name an event goes by in the wallet's metrics: PlayFiver's calls keep the names operators' dashboards know. */
export const metricNameOf = (event: WalletEvent): string => {
  switch (event._tag) {
    case "DebitAndCredit":
      return "WinBet"
    case "Rollback":
      return event.debitTxnId === null ? "Refund" : "Rollback"
    default:
      return event._tag
  }
}
