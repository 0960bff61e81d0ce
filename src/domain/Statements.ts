import { Schema, SchemaGetter } from "effect"
import { createHash } from "node:crypto"
import { IsoDate } from "./IsoDate.ts"
import { Environment } from "./Environment.ts"
import { type Minor, toAmount } from "./Money.ts"
import { TransactionKind, type WalletTransaction } from "./Wallet.ts"

/**
 * Daily statements: for one partner, environment and UTC day, every wallet transaction created that day and
 * their totals, written once (after the day closed) as a JSON lines document, the bytes the partner API serves
 * and signs. A partner reconciles its own books against it: `reconcile` says which transactions are missing on
 * either side and which differ. Pure: the clock and the ledger are the caller's.
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

/** One transaction of the day, as the statement lists it. Amounts in cents. */
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
  bet: transaction.bet,
  win: transaction.win,
  amount: transaction.amount,
  createdAt: transaction.createdAt,
  settledAt: transaction.settledAt
})

/** Money totals of a day, in cents. */
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

export const totalsOf = (lines: ReadonlyArray<StatementLine>): { totals: StatementTotals; counts: StatementCounts } => {
  const totals = { bets: 0, wins: 0, refunds: 0, rollbacks: 0, net: 0 }
  const counts = { transactions: lines.length, bets: 0, refusedBets: 0, wins: 0, refunds: 0, rollbacks: 0 }
  for (const line of lines) {
    if (line.status === "applied") totals.net += line.amount
    // A rollback of one debit gives back as a refund does; a credit is a win paid apart from its stake.
    if (line.kind === "refund" || line.kind === "rollback") {
      if (line.status === "applied") {
        totals.refunds += line.amount
        counts.refunds++
      }
    } else if (line.kind === "credit") {
      if (line.status === "applied") {
        totals.wins += line.win
        counts.wins++
      }
    } else if (line.status === "applied") {
      totals.bets += line.bet
      totals.wins += line.win
      counts.bets++
      if (line.win > 0) counts.wins++
    } else {
      counts.refusedBets++
      if (line.rolledBack) {
        totals.rollbacks += line.bet
        counts.rollbacks++
      }
    }
  }
  return { totals, counts }
}

// ---- The document ----------------------------------------------------------------------------------------

/** An amount on the wire: currency units (a number with at most 2 places) from cents. */
const Units = Schema.Finite.pipe(Schema.decodeTo(Schema.Int, {
  decode: SchemaGetter.transform((units: number) => Math.round(units * 100)),
  encode: SchemaGetter.transform(toAmount)
}))

/** A transaction line of the document (`record: "transaction"`), from the domain's StatementLine. */
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
  bet: Units,
  win: Units,
  amount: Units,
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

const TotalsCodec = Schema.Struct({ bets: Units, wins: Units, refunds: Units, rollbacks: Units, net: Units })
const CountsCodec = Schema.Struct({
  transactions: Schema.Int,
  bets: Schema.Int,
  refusedBets: Schema.Int,
  wins: Schema.Int,
  refunds: Schema.Int,
  rollbacks: Schema.Int
}).pipe(Schema.encodeKeys({ refusedBets: "refused_bets" }))

/** The document's first line (`record: "statement"`): whose, which day, when computed, the totals. */
export const StatementSummaryCodec = Schema.Struct({
  record: Schema.tag("statement"),
  partner: Schema.String,
  environment: Environment,
  date: Schema.String,
  from: IsoDate,
  to: IsoDate,
  computedAt: IsoDate,
  totals: TotalsCodec,
  counts: CountsCodec
}).pipe(Schema.encodeKeys({ computedAt: "computed_at" }))
export type StatementSummary = typeof StatementSummaryCodec.Type

const encodeLine = Schema.encodeSync(StatementLineCodec)
const encodeSummary = Schema.encodeSync(StatementSummaryCodec)
const decodeLine = Schema.decodeUnknownSync(StatementLineCodec)
const decodeSummary = Schema.decodeUnknownSync(StatementSummaryCodec)

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
  const document = [encodeSummary(summary), ...lines.map((line) => encodeLine({ record: "transaction", ...line }))].map(
    (line) => `${JSON.stringify(line)}\n`
  ).join("")
  return { summary, lines, document, sha256: documentDigest(document) }
}

export const documentDigest = (document: string): Uint8Array => createHash("sha256").update(document).digest()

/** The summary of a stored document (its first line). */
export const summaryOf = (document: string): StatementSummary =>
  decodeSummary(JSON.parse(document.slice(0, document.indexOf("\n"))))

/** The transaction lines of a stored document, `offset` lines past the summary, at most `limit`. */
export const linesOf = (
  document: string,
  offset = 0,
  limit = Number.POSITIVE_INFINITY
): ReadonlyArray<StatementLine> => {
  const lines: Array<StatementLine> = []
  let start = document.indexOf("\n") + 1
  for (let index = 0; start < document.length && lines.length < limit; index++) {
    const end = document.indexOf("\n", start)
    if (index >= offset) lines.push(decodeLine(JSON.parse(document.slice(start, end))))
    start = end + 1
  }
  return lines
}

// ---- Reconciliation --------------------------------------------------------------------------------------

/** A transaction as the partner's books have it. The fields it leaves out are not compared. */
export interface PostedTransaction {
  readonly txnId: string
  readonly kind: TransactionKind
  readonly status?: "applied" | "refused" | undefined
  readonly bet?: Minor | undefined
  readonly win?: Minor | undefined
  readonly amount?: Minor | undefined
  readonly roundId?: string | undefined
  readonly externalPlayerId?: string | undefined
}

/** The partner's totals of the day; those it leaves out are not compared. */
export type PostedTotals = { readonly [K in keyof StatementTotals]?: Minor | undefined } & {
  readonly transactions?: number | undefined
}

/** A field whose values differ: ours (the statement's) and the partner's. Amounts in cents. */
export interface Difference {
  readonly field: string
  readonly ours: string | number | boolean | null
  readonly theirs: string | number | boolean | null
}

export interface Reconciliation {
  readonly matched: number
  /** Our applied transactions the partner did not list (a refused one it need not have). */
  readonly missingAtPartner: ReadonlyArray<StatementLine>
  /** What the partner listed that is not in this statement. */
  readonly missingHere: ReadonlyArray<PostedTransaction>
  /** Transactions both list, with the fields that differ. */
  readonly different: ReadonlyArray<{ readonly line: StatementLine; readonly differences: ReadonlyArray<Difference> }>
  /** The totals the partner sent that differ from ours. */
  readonly totals: ReadonlyArray<Difference>
}

const keyOf = (kind: string, txnId: string) => `${kind}\u0000${txnId}`

const comparedFields = ["status", "bet", "win", "amount", "roundId", "externalPlayerId"] as const

/** Wire names of the compared fields, as the partner sends them. */
export const postedFieldNames: Record<(typeof comparedFields)[number], string> = {
  status: "status",
  bet: "bet",
  win: "win",
  amount: "amount",
  roundId: "round_id",
  externalPlayerId: "external_player_id"
}

/**
 * The statement against the partner's books, transaction by transaction (a transaction is its kind and id).
 * Every listed difference is kept: the caller decides how many to show.
 */
export const reconcile = (
  ours: {
    readonly lines: ReadonlyArray<StatementLine>
    readonly totals: StatementTotals
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
    const differences = comparedFields.flatMap((field): Array<Difference> => {
      const value = their[field]
      return value === undefined || value === line[field]
        ? []
        : [{ field: postedFieldNames[field], ours: line[field], theirs: value }]
    })
    if (differences.length === 0) matched++
    else different.push({ line, differences })
  }
  const missingHere = theirs.lines.filter((line) => !listed.has(keyOf(line.kind, line.txnId)))
  const totals = Object.entries({ ...ours.totals, transactions: ours.transactions }).flatMap(
    ([field, value]): Array<Difference> => {
      const their = theirs.totals?.[field as keyof PostedTotals]
      return their === undefined || their === value ? [] : [{ field, ours: value, theirs: their }]
    }
  )
  return { matched, missingAtPartner, missingHere, different, totals }
}
