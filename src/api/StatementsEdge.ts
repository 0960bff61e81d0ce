/**
 * The statements' edge (their contract is ./Statements.ts): a statement, its document and a reconciliation as the
 * contract writes them.
 */
import { Effect, Schema, Stream } from "effect"
import { HttpApiSchema } from "effect/http-api"
import type { Environment } from "../domain/Environment.ts"
import { storedCurrency } from "../domain/Currency.ts"
import { amountOnWire, type Minor } from "../domain/Money.ts"
import type { PageRequest } from "../domain/Paging.ts"
import type { Difference, Reconciliation } from "../domain/StatementReconciliation.ts"
import type { StatementLine } from "../domain/Statements.ts"
import {
  type LegacyCurrency,
  lineOnWire,
  linesOf,
  StatementLineCodec,
  type StatementSummary,
  StatementSummaryCodec,
  summaryOnWire
} from "../domain/StatementDocument.ts"
import { NotFound } from "./Errors.ts"
import { encodeWith } from "./Paging.ts"

/** The statement's signature (Statements: signStatement) and its document's SHA-256, in hex. */
export const statementSignatureHeader = "x-statement-signature"
export const statementDigestHeader = "x-statement-sha256"

/** A statement as read and signed (Statements.readSigned). */
interface SignedStatement {
  readonly summary: StatementSummary
  readonly document: string
  readonly sha256: Uint8Array
  readonly signature: string
  readonly legacyCurrency: LegacyCurrency
}

/** Whether the client asked for the document itself: `format=jsonl`, or no format and an Accept naming JSON lines. */
export const wantsDocument = (format: "json" | "jsonl" | undefined, accept: string | undefined) =>
  format === "jsonl" || (format === undefined && /application\/(x-ndjson|jsonl)/i.test(accept ?? ""))

/** The document itself, byte for byte, its signature and digest in the headers. */
export const statementDocument = (statement: SignedStatement) =>
  Effect.succeed(HttpApiSchema.withHeaders({
    body: Stream.succeed(new TextEncoder().encode(statement.document)),
    headers: {
      [statementSignatureHeader]: statement.signature,
      [statementDigestHeader]: Buffer.from(statement.sha256).toString("hex")
    }
  }))

const encodeSummary = encodeWith(StatementSummaryCodec)
/** The summary as the document writes it: amounts in each currency's units. */
export const summaryEntry = (summary: StatementSummary) => encodeSummary(summaryOnWire(summary))
const lineEntries = encodeWith(Schema.Array(StatementLineCodec))
/** Transaction lines as the document writes them. */
export const transactionLines = (lines: ReadonlyArray<StatementLine>) => lineEntries(lines.map(lineOnWire))

/** The statement as JSON: its summary, the document's digest and size, its signature and a page of its transactions. */
export const statementAnswer = (paging: PageRequest) => (statement: SignedStatement) =>
  Effect.all({
    statement: summaryEntry(statement.summary),
    document: Effect.succeed({
      sha256: Buffer.from(statement.sha256).toString("hex"),
      bytes: Buffer.byteLength(statement.document),
      lines: statement.summary.counts.transactions + 1
    }),
    signature: Effect.succeed(statement.signature),
    transactions: transactionLines(
      linesOf(statement.document, (paging.page - 1) * paging.perPage, paging.perPage, statement.legacyCurrency)
    ),
    meta: Effect.succeed({ page: paging.page, per_page: paging.perPage, total: statement.summary.counts.transactions })
  })

/** How many transactions each list of a reconciliation's answer shows (its counts say how many there are). */
const listedDifferences = 1000

/** A difference on the wire: amounts in their currency's units (as the document writes them). */
const differenceEntry = (difference: Difference) => {
  const currency = difference.currency === undefined ? undefined : storedCurrency(difference.currency)
  const onWire = (value: Difference["ours"]) =>
    typeof value !== "bigint" ? value : currency === undefined ? value.toString() : amountOnWire(value, currency)
  return {
    field: difference.field,
    ...(difference.currency === undefined ? {} : { currency: difference.currency }),
    ours: onWire(difference.ours),
    theirs: onWire(difference.theirs)
  }
}

/** A reconciliation (Statements.reconcile) as the contract answers it: the counts, and the first of each list. */
export const reconciliationAnswer = (reconciled: {
  readonly day: string
  readonly environment: Environment
  readonly summary: StatementSummary
  readonly posted: number
  readonly reconciliation: Reconciliation
}) => {
  const { reconciliation } = reconciled
  const first = <A>(list: ReadonlyArray<A>) => list.slice(0, listedDifferences)
  return Effect.map(transactionLines(first(reconciliation.missingAtPartner)), (missingAtPartner) => ({
    date: reconciled.day,
    environment: reconciled.environment,
    reconciled: reconciliation.missingAtPartner.length === 0 && reconciliation.missingHere.length === 0 &&
      reconciliation.different.length === 0 && reconciliation.totals.length === 0,
    counts: {
      ours: reconciled.summary.counts.transactions,
      theirs: reconciled.posted,
      matched: reconciliation.matched,
      missing_at_partner: reconciliation.missingAtPartner.length,
      missing_here: reconciliation.missingHere.length,
      different: reconciliation.different.length
    },
    totals: reconciliation.totals.map(differenceEntry),
    missing_at_partner: missingAtPartner,
    missing_here: first(reconciliation.missingHere).map((line) => ({ transaction_id: line.txnId, kind: line.kind })),
    different: first(reconciliation.different).map(({ differences, line }) => ({
      transaction_id: line.txnId,
      kind: line.kind,
      differences: differences.map(differenceEntry)
    }))
  }))
}

/** A day without a statement (yet): a 404 saying why. */
export const statementNotReady = (error: { readonly message: string }) => new NotFound({ message: error.message })

/** A day's statement as a listing holds it (the console's and the portal's): its totals, one per currency. */
export interface ListedDay {
  readonly environment: Environment
  readonly day: string
  readonly transactions: number
  readonly currencies: ReadonlyArray<{
    readonly currency: string
    readonly transactions: number
    readonly bets: Minor
    readonly wins: Minor
    readonly refunds: Minor
    readonly rollbacks: Minor
    readonly net: Minor
  }>
  readonly computedAt: Date
}

/** A listed day on the wire, of `partner` (its slug): one entry per currency of the day, never added across them. */
export const listingOf = (partner: string, statement: ListedDay) => ({
  partner,
  environment: statement.environment,
  date: statement.day,
  transactions: statement.transactions,
  currencies: statement.currencies.map((totals) => {
    const currency = storedCurrency(totals.currency)
    return {
      currency: totals.currency,
      transactions: totals.transactions,
      totals: {
        bets: amountOnWire(totals.bets, currency),
        wins: amountOnWire(totals.wins, currency),
        refunds: amountOnWire(totals.refunds, currency),
        rollbacks: amountOnWire(totals.rollbacks, currency),
        net: amountOnWire(totals.net, currency)
      }
    }
  }),
  computedAt: statement.computedAt
})
