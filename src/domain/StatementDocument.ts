/**
 * The statement document (domain/Statements.ts computes its lines and totals): its wire form, the JSON lines written
 * once and signed, and reading a stored one back, in either form (per currency, or from before currencies).
 */
import { Schema } from "effect"
import { createHash } from "node:crypto"
import { IsoDate } from "./IsoDate.ts"
import { Environment } from "./Environment.ts"
import { type Currency, knownCurrency, storedCurrency } from "./Currency.ts"
import { amountOnWire, type Minor } from "./Money.ts"
import { TransactionKind } from "./Wallet.ts"
import {
  type CurrencyTotals,
  dayStart,
  nextDay,
  type StatementCounts,
  type StatementLine,
  type StatementTotals,
  totalsOf
} from "./Statements.ts"

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
  /**
   * Only on a test statement of today closed so far (Statements.closeSoFar): it covers the day up to `closedUpTo`
   * (`to` too), and the day's own statement replaces it. Absent from every other statement, whose bytes stay as
   * they always were.
   */
  partial: Schema.optionalKey(Schema.Literal(true)),
  closedUpTo: Schema.optionalKey(IsoDate),
  counts: CountsCodec,
  currencies: Schema.Array(CurrencyTotalsCodec)
}).pipe(Schema.encodeKeys({ computedAt: "computed_at", closedUpTo: "closed_up_to" }))
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
  /** A statement of the day so far (test only): its lines are those before `closedUpTo`, which is also `to`. */
  readonly partial?: true
  readonly closedUpTo?: Date
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
    /** A statement of the day so far: up to this moment, marked partial. */
    readonly upTo?: Date | undefined
  },
  lines: ReadonlyArray<StatementLine>
): ComputedStatement => {
  const upTo = header.upTo
  const summary: StatementSummary = {
    record: "statement",
    partner: header.partner,
    environment: header.environment,
    date: header.date,
    from: dayStart(header.date),
    to: upTo ?? dayStart(nextDay(header.date)),
    computedAt: header.computedAt,
    ...(upTo === undefined ? {} : { partial: true as const, closedUpTo: upTo }),
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
