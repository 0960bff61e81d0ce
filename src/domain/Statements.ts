import { Schema } from "effect"
import { createHash } from "node:crypto"
import { IsoDate } from "./IsoDate.ts"
import { Environment } from "./Environment.ts"
import { type Currency, knownCurrency, storedCurrency } from "./Currency.ts"
import { amountOnWire, type Minor } from "./Money.ts"
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

// ---- The document ----------------------------------------------------------------------------------------

/**
 * An amount in the document: its currency's units, a JSON number for currencies of up to 3 decimals and a decimal
 * string beyond (`amountOnWire`), exactly.
 */
export const WireAmount = Schema.Union([Schema.Finite, Schema.String]).annotate({
  description:
    "An amount in its currency's units: a JSON number for currencies of up to 3 decimals (12.5), a decimal string " +
    "for finer ones (\"0.00000001\" BTC)"
})
type WireAmount = typeof WireAmount.Type

/** A signed decimal with no bound, exactly, in minor units; undefined for text finer than the currency's unit. */
const exactMinorOf = (text: string, currency: Currency): Minor | undefined => {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text)
  if (match === null) return undefined
  const fraction = (match[3] ?? "").replace(/0+$/, "")
  if (fraction.length > currency.exponent) return undefined
  const minor = BigInt(match[2]!) * 10n ** BigInt(currency.exponent) +
    BigInt(fraction.padEnd(currency.exponent, "0") || "0")
  return match[1] === "-" ? -minor : minor
}

/** An amount of a stored document (ours, so one that cannot be read is a defect) in minor units. */
const minorFromWire = (value: WireAmount, currency: Currency): Minor => {
  const minor = exactMinorOf(typeof value === "number" ? String(value) : value, currency)
  if (minor === undefined) throw new Error(`Not an amount of ${currency.code}: ${value}`)
  return minor
}

/** A transaction line of the document (`record: "transaction"`), amounts as written (`lineOnWire`). */
export const StatementLineCodec = Schema.Struct({
  record: Schema.tag("transaction"),
  txnId: Schema.String,
  kind: TransactionKind,
  status: Schema.Literals(["applied", "refused"]),
  refusal: Schema.NullOr(Schema.String),
  note: Schema.NullOr(Schema.String),
  rolledBack: Schema.Boolean,
  externalPlayerId: Schema.String,
  roundId: Schema.String,
  gameCode: Schema.NullOr(Schema.String),
  providerCode: Schema.NullOr(Schema.String),
  currency: Schema.String.annotate({ description: "The currency of the line's amounts (its player's)" }),
  bet: WireAmount,
  win: WireAmount,
  amount: WireAmount,
  createdAt: IsoDate,
  settledAt: Schema.NullOr(IsoDate)
}).pipe(Schema.encodeKeys({
  txnId: "transaction_id",
  rolledBack: "rolled_back",
  externalPlayerId: "external_player_id",
  roundId: "round_id",
  gameCode: "game_code",
  providerCode: "provider_code",
  createdAt: "created_at",
  settledAt: "settled_at"
}))
export type StatementLineOnWire = typeof StatementLineCodec.Type

/** A line as the document writes it: amounts in its currency's units. */
export const lineOnWire = (line: StatementLine): StatementLineOnWire => {
  const currency = storedCurrency(line.currency)
  return {
    record: "transaction",
    ...line,
    bet: amountOnWire(line.bet, currency),
    win: amountOnWire(line.win, currency),
    amount: amountOnWire(line.amount, currency)
  }
}

const lineFromWire = ({ record: _record, ...line }: StatementLineOnWire): StatementLine => {
  const currency = storedCurrency(line.currency)
  return {
    ...line,
    bet: minorFromWire(line.bet, currency),
    win: minorFromWire(line.win, currency),
    amount: minorFromWire(line.amount, currency)
  }
}

const TotalsCodec = Schema.Struct({
  bets: WireAmount,
  wins: WireAmount,
  refunds: WireAmount,
  rollbacks: WireAmount,
  net: WireAmount
})
const CountsCodec = Schema.Struct({
  transactions: Schema.Int,
  bets: Schema.Int,
  refusedBets: Schema.Int,
  wins: Schema.Int,
  refunds: Schema.Int,
  rollbacks: Schema.Int
}).pipe(Schema.encodeKeys({ refusedBets: "refused_bets" }))

/** One currency's totals and counts in the summary. */
export const CurrencyTotalsCodec = Schema.Struct({ currency: Schema.String, totals: TotalsCodec, counts: CountsCodec })

/**
 * The document's first line (`record: "statement"`): whose, which day, when computed, the day's counts (every
 * currency's) and, per currency of the day (ordered by code), its totals and counts; a day without activity has none.
 */
/** Whose statement, of which day, and when it was computed: the summary's first fields, in every release. */
const summaryHead = {
  record: Schema.tag("statement"),
  partner: Schema.String,
  environment: Environment,
  date: Schema.String,
  from: IsoDate,
  to: IsoDate,
  computedAt: IsoDate
}

export const StatementSummaryCodec = Schema.Struct({
  ...summaryHead,
  counts: CountsCodec,
  currencies: Schema.Array(CurrencyTotalsCodec)
}).pipe(Schema.encodeKeys({ computedAt: "computed_at" }))
export type StatementSummaryOnWire = typeof StatementSummaryCodec.Type

/**
 * The summary of a document written before currencies (issue 33): one `totals` object, in the currency every
 * transaction then had (the deployment's DEFAULT_CURRENCY, which sql/0029 recorded in wallet_statement_totals).
 */
const LegacySummaryCodec = Schema.Struct({
  ...summaryHead,
  totals: TotalsCodec,
  counts: CountsCodec
}).pipe(Schema.encodeKeys({ computedAt: "computed_at" }))

/** A statement's summary: the day's counts and one entry per currency, amounts in minor units. */
export interface StatementSummary {
  readonly record: "statement"
  readonly partner: string
  readonly environment: Environment
  readonly date: string
  readonly from: Date
  readonly to: Date
  readonly computedAt: Date
  readonly counts: StatementCounts
  readonly currencies: ReadonlyArray<CurrencyTotals>
}

const totalsOnWire = (totals: StatementTotals, currency: Currency) => ({
  bets: amountOnWire(totals.bets, currency),
  wins: amountOnWire(totals.wins, currency),
  refunds: amountOnWire(totals.refunds, currency),
  rollbacks: amountOnWire(totals.rollbacks, currency),
  net: amountOnWire(totals.net, currency)
})

const totalsFromWire = (totals: typeof TotalsCodec.Type, currency: Currency): StatementTotals => ({
  bets: minorFromWire(totals.bets, currency),
  wins: minorFromWire(totals.wins, currency),
  refunds: minorFromWire(totals.refunds, currency),
  rollbacks: minorFromWire(totals.rollbacks, currency),
  net: minorFromWire(totals.net, currency)
})

/** The summary as the document writes it: amounts in each currency's units. */
export const summaryOnWire = (summary: StatementSummary): StatementSummaryOnWire => ({
  ...summary,
  currencies: summary.currencies.map((entry) => ({
    ...entry,
    totals: totalsOnWire(entry.totals, storedCurrency(entry.currency))
  }))
})

const encodeLine = Schema.encodeSync(StatementLineCodec)
const encodeSummary = Schema.encodeSync(StatementSummaryCodec)
const decodeLine = Schema.decodeUnknownSync(StatementLineCodec)
const decodeSummary = Schema.decodeUnknownSync(StatementSummaryCodec)
const decodeLegacySummary = Schema.decodeUnknownSync(LegacySummaryCodec)

/** A statement as computed: its summary, its lines and its document (the bytes served and signed). */
export interface ComputedStatement {
  readonly summary: StatementSummary
  readonly lines: ReadonlyArray<StatementLine>
  /** JSON lines: the summary, then one line per transaction in the order they were created; each ends with `\n`. */
  readonly document: string
  readonly sha256: Uint8Array
}

/** The statement of `lines` (ordered by creation) for a partner's environment and day, computed at `computedAt`. */
export const computeStatement = (
  header: {
    readonly partner: string
    readonly environment: Environment
    readonly date: string
    readonly computedAt: Date
  },
  lines: ReadonlyArray<StatementLine>
): ComputedStatement => {
  const summary: StatementSummary = {
    record: "statement",
    partner: header.partner,
    environment: header.environment,
    date: header.date,
    from: dayStart(header.date),
    to: dayStart(nextDay(header.date)),
    computedAt: header.computedAt,
    ...totalsOf(lines)
  }
  const document = [encodeSummary(summaryOnWire(summary)), ...lines.map((line) => encodeLine(lineOnWire(line)))].map(
    (line) => `${JSON.stringify(line)}\n`
  ).join("")
  return { summary, lines, document, sha256: documentDigest(document) }
}

export const documentDigest = (document: string): Uint8Array => createHash("sha256").update(document).digest()

/**
 * The currency of a document written before currencies: the one its stored totals name (sql/0029 gave them the
 * deployment's DEFAULT_CURRENCY), none for a day without activity. Documents with currencies never need it.
 */
export type LegacyCurrency = string | undefined

const legacy = (code: LegacyCurrency): Currency => {
  const currency = code === undefined ? undefined : knownCurrency(code)
  if (currency === undefined) throw new Error("A statement written before currencies, with no currency recorded for it")
  return currency
}

/** The summary of a stored document (its first line), in either form: per currency, or from before currencies. */
export const summaryOf = (document: string, legacyCurrency?: LegacyCurrency): StatementSummary => {
  const json = JSON.parse(document.slice(0, document.indexOf("\n"))) as Record<string, unknown>
  if (!("totals" in json)) {
    const summary = decodeSummary(json)
    return {
      ...summary,
      currencies: summary.currencies.map((entry) => ({
        ...entry,
        totals: totalsFromWire(entry.totals, storedCurrency(entry.currency))
      }))
    }
  }
  const { totals, ...summary } = decodeLegacySummary(json)
  if (summary.counts.transactions === 0) return { ...summary, currencies: [] }
  const currency = legacy(legacyCurrency)
  return {
    ...summary,
    currencies: [{ currency: currency.code, totals: totalsFromWire(totals, currency), counts: summary.counts }]
  }
}

/** The transaction lines of a stored document, `offset` lines past the summary, at most `limit`. */
export const linesOf = (
  document: string,
  offset = 0,
  limit = Number.POSITIVE_INFINITY,
  legacyCurrency?: LegacyCurrency
): ReadonlyArray<StatementLine> => {
  const lines: Array<StatementLine> = []
  let start = document.indexOf("\n") + 1
  for (let index = 0; start < document.length && lines.length < limit; index++) {
    const end = document.indexOf("\n", start)
    if (index >= offset) {
      const json = JSON.parse(document.slice(start, end)) as Record<string, unknown>
      // A line written before currencies has none: its amounts are in the statement's one currency.
      lines.push(
        lineFromWire(decodeLine("currency" in json ? json : { ...json, currency: legacy(legacyCurrency).code }))
      )
    }
    start = end + 1
  }
  return lines
}
