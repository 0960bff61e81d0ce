import type { Minor } from "./Money.ts"
import { TransactionKind, type WalletTransaction } from "./Wallet.ts"

/**
 * Daily statements: for one partner, environment and UTC day, every wallet transaction created that day and
 * their totals per currency (never added across currencies), written once (after the day closed) as a JSON lines
 * document, the bytes the partner API serves and signs. A partner reconciles its own books against it
 * (domain/StatementReconciliation.ts). Pure: the clock and the ledger are the caller's.
 */

// ---- Days -------------------------------------------------------------------------------------------------

const dayPattern = /^\d{4}-\d{2}-\d{2}$/

/**
 * A UTC day, `2026-11-22`: a real calendar date (not `2026-02-30`) from 2000 to 9999 (PostgreSQL has no year 0, and
 * no statement predates the service), so any other is the contract's 422.
 */
export const isDay = (text: string): boolean => {
  if (!dayPattern.test(text) || text < "2000") return false
  const start = new Date(`${text}T00:00:00.000Z`)
  return !Number.isNaN(start.getTime()) && start.toISOString().slice(0, 10) === text
}

/** The day's first instant; the day runs to the next day's start, excluded. */
export const dayStart = (day: string): Date => new Date(`${day}T00:00:00.000Z`)
export const nextDay = (day: string): string =>
  new Date(dayStart(day).getTime() + 86_400_000).toISOString().slice(0, 10)
export const previousDay = (day: string): string =>
  new Date(dayStart(day).getTime() - 86_400_000).toISOString().slice(0, 10)
/** The UTC day an instant falls on. */
export const dayOf = (instant: Date | number): string => new Date(instant).toISOString().slice(0, 10)

// ---- Lines and totals ------------------------------------------------------------------------------------

/** One transaction of the day, as the statement lists it. Amounts in its currency's minor units. */
export interface StatementLine {
  readonly txnId: string
  readonly kind: TransactionKind
  readonly status: "applied" | "refused"
  readonly refusal: string | null
  readonly note: string | null
  /** A refused bet the partner was sent a rollback for (it gives the stake back if it took it). */
  readonly rolledBack: boolean
  readonly externalPlayerId: string
  readonly roundId: string
  readonly gameCode: string | null
  readonly providerCode: string | null
  /** The player's currency (its row of partner_players): the currency of every amount of the line. */
  readonly currency: string
  readonly bet: Minor
  readonly win: Minor
  /** The change to the player's balance (0 unless applied). */
  readonly amount: Minor
  readonly createdAt: Date
  readonly settledAt: Date | null
}

/** A settled transaction as a statement line (a day is closed only once none of its bets is pending). */
export const statementLine = (
  transaction: WalletTransaction,
  externalPlayerId: string,
  rolledBack: boolean
): StatementLine => ({
  txnId: transaction.txnId,
  kind: transaction.kind,
  status: transaction.status === "applied" ? "applied" : "refused",
  refusal: transaction.refusal,
  note: transaction.note,
  rolledBack,
  externalPlayerId,
  roundId: transaction.roundId,
  gameCode: transaction.gameCode,
  providerCode: transaction.providerCode,
  currency: transaction.currency,
  bet: transaction.bet,
  win: transaction.win,
  amount: transaction.amount,
  createdAt: transaction.createdAt,
  settledAt: transaction.settledAt
})

/** Money totals of a day in one currency, in its minor units. */
export interface StatementTotals {
  /** Stakes of the applied bets. */
  readonly bets: Minor
  /** Wins of the applied bets. */
  readonly wins: Minor
  /** What the applied refunds gave back (stakes back less wins taken back: negative when the wins were larger). */
  readonly refunds: Minor
  /** Stakes of the bets refused with a rollback: nothing moved here; the partner gives them back if it took them. */
  readonly rollbacks: Minor
  /** The players' net change: wins − bets + refunds (the sum of every applied transaction's amount). */
  readonly net: Minor
}

export const totalsFields = ["bets", "wins", "refunds", "rollbacks", "net"] as const

export interface StatementCounts {
  readonly transactions: number
  /** Applied bets. */
  readonly bets: number
  /** Refused bets (those rolled back among them). */
  readonly refusedBets: number
  /** Applied bets with a win. */
  readonly wins: number
  /** Applied refunds. */
  readonly refunds: number
  /** Refused bets with a rollback. */
  readonly rollbacks: number
}

/** One currency's part of a day: its money totals and its counts. */
export interface CurrencyTotals {
  readonly currency: string
  readonly totals: StatementTotals
  readonly counts: StatementCounts
}

const noCounts = (): { -readonly [K in keyof StatementCounts]: number } => ({
  transactions: 0,
  bets: 0,
  refusedBets: 0,
  wins: 0,
  refunds: 0,
  rollbacks: 0
})

/**
 * The day's counts (every currency's: counting is not adding money) and its totals, one entry per currency that had
 * a transaction, ordered by code. Amounts of two currencies are never added.
 */
export const totalsOf = (lines: ReadonlyArray<StatementLine>): {
  counts: StatementCounts
  currencies: ReadonlyArray<CurrencyTotals>
} => {
  const byCurrency = new Map<
    string,
    { totals: { -readonly [K in keyof StatementTotals]: Minor }; counts: ReturnType<typeof noCounts> }
  >()
  const all = noCounts()
  for (const line of lines) {
    let entry = byCurrency.get(line.currency)
    if (entry === undefined) {
      entry = { totals: { bets: 0n, wins: 0n, refunds: 0n, rollbacks: 0n, net: 0n }, counts: noCounts() }
      byCurrency.set(line.currency, entry)
    }
    const { counts, totals } = entry
    const count = (name: keyof StatementCounts) => {
      counts[name]++
      all[name]++
    }
    count("transactions")
    if (line.status === "applied") totals.net += line.amount
    // A rollback of one debit gives back as a refund does; a credit is a win paid apart from its stake.
    if (line.kind === "refund" || line.kind === "rollback") {
      if (line.status === "applied") {
        totals.refunds += line.amount
        count("refunds")
      }
    } else if (line.kind === "credit") {
      if (line.status === "applied") {
        totals.wins += line.win
        count("wins")
      }
    } else if (line.status === "applied") {
      totals.bets += line.bet
      totals.wins += line.win
      count("bets")
      if (line.win > 0n) count("wins")
    } else {
      count("refusedBets")
      if (line.rolledBack) {
        totals.rollbacks += line.bet
        count("rollbacks")
      }
    }
  }
  const currencies = [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, entry]) => ({ currency, ...entry }))
  return { counts: all, currencies }
}
