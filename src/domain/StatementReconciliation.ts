import type { Minor } from "./Money.ts"
import { type CurrencyTotals, type StatementLine, type StatementTotals, totalsFields } from "./Statements.ts"
import type { TransactionKind } from "./Wallet.ts"

/**
 * Reconciliation of a partner's books against a daily statement (domain/Statements.ts): which transactions are
 * missing on either side, which differ field by field, and how the totals of each currency compare. Pure.
 */

/** A transaction as the partner's books have it. The fields it leaves out are not compared. */
export interface PostedTransaction {
  readonly txnId: string
  readonly kind: TransactionKind
  readonly status?: "applied" | "refused" | undefined
  /** The currency its amounts were read in (the partner's, or the statement's transaction's when it sent none). */
  readonly currency?: string | undefined
  readonly bet?: Minor | undefined
  readonly win?: Minor | undefined
  readonly amount?: Minor | undefined
  readonly roundId?: string | undefined
  readonly externalPlayerId?: string | undefined
}

/** The partner's totals of one currency; those it leaves out are not compared. */
export type PostedCurrencyTotals = { readonly [K in keyof StatementTotals]?: Minor | undefined } & {
  readonly transactions?: number | undefined
}

/** The partner's totals of the day: its count of transactions, and totals per currency. */
export interface PostedTotals {
  readonly transactions?: number | undefined
  readonly currencies: ReadonlyMap<string, PostedCurrencyTotals>
}

/**
 * A field whose values differ: ours (the statement's) and the partner's. Amounts are minor units of `currency`
 * (set for every amount and every total of a currency).
 */
export interface Difference {
  readonly field: string
  readonly currency?: string | undefined
  readonly ours: string | number | bigint | boolean | null
  readonly theirs: string | number | bigint | boolean | null
}

export interface Reconciliation {
  readonly matched: number
  /** Our applied transactions the partner did not list (a refused one it need not have). */
  readonly missingAtPartner: ReadonlyArray<StatementLine>
  /** What the partner listed that is not in this statement. */
  readonly missingHere: ReadonlyArray<PostedTransaction>
  /** Transactions both list, with the fields that differ. */
  readonly different: ReadonlyArray<{ readonly line: StatementLine; readonly differences: ReadonlyArray<Difference> }>
  /** The totals the partner sent that differ from ours (a currency's, or the day's count of transactions). */
  readonly totals: ReadonlyArray<Difference>
}

const keyOf = (kind: string, txnId: string) => `${kind}\u0000${txnId}`

const comparedFields = ["status", "currency", "bet", "win", "amount", "roundId", "externalPlayerId"] as const
const amountFields: ReadonlySet<string> = new Set(["bet", "win", "amount"])

/** Wire names of the compared fields, as the partner sends them. */
export const postedFieldNames: Record<(typeof comparedFields)[number], string> = {
  status: "status",
  currency: "currency",
  bet: "bet",
  win: "win",
  amount: "amount",
  roundId: "round_id",
  externalPlayerId: "external_player_id"
}

const zeroTotals: StatementTotals = { bets: 0n, wins: 0n, refunds: 0n, rollbacks: 0n, net: 0n }

/**
 * The statement against the partner's books, transaction by transaction (a transaction is its kind and id), and
 * its totals currency by currency (a currency the partner sends that the day did not have is compared with zero).
 * Amounts of a line in another currency than ours are not compared: the currency differs, and that is reported.
 * Every listed difference is kept: the caller decides how many to show.
 */
export const reconcile = (
  ours: {
    readonly lines: ReadonlyArray<StatementLine>
    readonly currencies: ReadonlyArray<CurrencyTotals>
    readonly transactions: number
  },
  theirs: { readonly lines: ReadonlyArray<PostedTransaction>; readonly totals?: PostedTotals | undefined }
): Reconciliation => {
  const posted = new Map(theirs.lines.map((line) => [keyOf(line.kind, line.txnId), line]))
  const listed = new Set<string>()
  const missingAtPartner: Array<StatementLine> = []
  const different: Array<{ line: StatementLine; differences: ReadonlyArray<Difference> }> = []
  let matched = 0
  for (const line of ours.lines) {
    const key = keyOf(line.kind, line.txnId)
    listed.add(key)
    const their = posted.get(key)
    if (their === undefined) {
      if (line.status === "applied") missingAtPartner.push(line)
      continue
    }
    const sameCurrency = their.currency === undefined || their.currency === line.currency
    const differences = comparedFields.flatMap((field): Array<Difference> => {
      const value = their[field]
      if (value === undefined || value === line[field] || (amountFields.has(field) && !sameCurrency)) return []
      return [{
        field: postedFieldNames[field],
        ...(amountFields.has(field) ? { currency: line.currency } : {}),
        ours: line[field],
        theirs: value
      }]
    })
    if (differences.length === 0) matched++
    else different.push({ line, differences })
  }
  const missingHere = theirs.lines.filter((line) => !listed.has(keyOf(line.kind, line.txnId)))
  const totals: Array<Difference> = []
  if (theirs.totals?.transactions !== undefined && theirs.totals.transactions !== ours.transactions) {
    totals.push({ field: "transactions", ours: ours.transactions, theirs: theirs.totals.transactions })
  }
  const byCurrency = new Map(ours.currencies.map((entry) => [entry.currency, entry]))
  const postedCurrencies = [...(theirs.totals?.currencies ?? new Map<string, PostedCurrencyTotals>()).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const [currency, their] of postedCurrencies) {
    const entry = byCurrency.get(currency)
    const values = { ...(entry?.totals ?? zeroTotals), transactions: entry?.counts.transactions ?? 0 }
    for (const field of [...totalsFields, "transactions"] as const) {
      const value = their[field]
      if (value !== undefined && value !== values[field]) {
        totals.push({ field, currency, ours: values[field], theirs: value })
      }
    }
  }
  return { matched, missingAtPartner, missingHere, different, totals }
}
