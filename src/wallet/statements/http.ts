import { Effect, Schema, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiError, HttpApiSchema } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { ok } from "../../api/Envelope.ts"
import { ErrorMessages, NotFound, ValidationFailed } from "../../api/Errors.ts"
import { encodeWith, page } from "../../api/Paging.ts"
import { CurrentPartner } from "../../api/Security.ts"
import type { PostedRecord } from "../../api/Statements.ts"
import { toAmount } from "../../domain/Money.ts"
import {
  type Difference,
  linesOf,
  type PostedTotals,
  type PostedTransaction,
  StatementLineCodec,
  StatementSummaryCodec
} from "../../domain/Statements.ts"
import { validationErrors } from "../../platform/RequestRefusals.ts"
import { statementDigestHeader, Statements, statementSignatureHeader } from "./Statements.ts"

/** How many transactions each list of a reconciliation's answer shows (its counts say how many there are). */
const listedDifferences = 1000

const moneyFields = new Set(["bet", "win", "amount", "bets", "wins", "refunds", "rollbacks", "net"])

/** A difference on the wire: amounts in currency units. */
const differenceEntry = (difference: Difference) => {
  const units = (value: Difference["ours"]) => moneyFields.has(difference.field) && typeof value === "number" ? toAmount(value) : value
  return { field: difference.field, ours: units(difference.ours), theirs: units(difference.theirs) }
}

/** Whether the client asked for the document itself: `format=jsonl`, or no format and an Accept naming JSON lines. */
const wantsDocument = (format: "json" | "jsonl" | undefined, accept: string | undefined) =>
  format === "jsonl" || (format === undefined && /application\/(x-ndjson|jsonl)/i.test(accept ?? ""))

const invalidBody = (message: string) => new ValidationFailed({ message: ErrorMessages.invalidData, errors: { body: [message] } })

/**
 * What the partner posted, read line by line: its transactions (each its kind and id, once) and its totals.
 * A line that cannot be read is a 422 naming it; a body over the limit a 413.
 */
const readPosted = (posted: Stream.Stream<typeof PostedRecord.Type, unknown>) =>
  Effect.gen(function*() {
    const lines = new Map<string, PostedTransaction & { readonly line: number }>()
    let totals: PostedTotals | undefined
    let line = 0
    const failure = yield* posted.pipe(
      Stream.runForEach((record) =>
        Effect.suspend(() => {
          line++
          if (record.record === "statement") {
            totals = { ...record.totals, transactions: record.counts?.transactions }
            return Effect.void
          }
          const kind = record.kind ?? "bet"
          const key = `${kind}\u0000${record.transaction_id}`
          const earlier = lines.get(key)
          if (earlier !== undefined) {
            return Effect.fail(invalidBody(
              `Line ${line}: the ${kind} ${record.transaction_id} was already listed on line ${earlier.line}.`
            ))
          }
          lines.set(key, {
            line,
            txnId: record.transaction_id,
            kind,
            status: record.status,
            bet: record.bet,
            win: record.win,
            amount: record.amount,
            roundId: record.round_id,
            externalPlayerId: record.external_player_id
          })
          return Effect.void
        })
      ),
      Effect.flip,
      Effect.option
    )
    if (failure._tag === "Some") {
      const error = failure.value
      if (error instanceof ValidationFailed) return yield* error
      if (HttpApiError.HttpApiPayloadTooLarge.is(error)) {
        return yield* Effect.fail(HttpServerResponse.jsonUnsafe({
          success: false,
          message: error.limit === "maxBytes"
            ? "The request body is larger than 64 MiB: reconcile the day in one call per environment, at most that large."
            : `Line ${line + 1} is longer than 16 KiB.`
        }, { status: 413 }))
      }
      if (HttpApiError.HttpApiSchemaError.is(error)) {
        const errors = validationErrors(error.cause.issue)
        const details = Object.entries(errors).flatMap(([field, messages]) =>
          field === "body" ? messages : messages.map((message) => `${field}: ${message}`)
        )
        return yield* invalidBody(`Line ${line + 1}: ${details.join(" ")}`)
      }
      return yield* Effect.die(error)
    }
    return { lines: [...lines.values()], totals }
  })

/** Daily statements for partners: always the calling partner's own, in its token's environment. */
export const StatementsHandlers = HttpApiBuilder.group(
  PartnerApi,
  "statements",
  Effect.fn(function*(handlers) {
    const statements = yield* Statements
    const summaryEntry = encodeWith(StatementSummaryCodec)
    const lineEntries = encodeWith(Schema.Array(StatementLineCodec))
    const notReady = (error: { readonly message: string }) => new NotFound({ message: error.message })

    return handlers
      .handle("statement", Effect.fn("StatementsHandlers.statement")(function*({ params, query, request }) {
        const partner = yield* CurrentPartner
        const statement = yield* statements.read(partner, partner.environment, params.date).pipe(Effect.mapError(notReady))
        const signature = yield* statements.signature(partner.id, partner.environment, statement.document)
        const sha256 = Buffer.from(statement.sha256).toString("hex")
        if (wantsDocument(query.format, request.headers.accept)) {
          return HttpApiSchema.withHeaders({
            body: Stream.succeed(new TextEncoder().encode(statement.document)),
            headers: { [statementSignatureHeader]: signature, [statementDigestHeader]: sha256 }
          })
        }
        const paging = page(query)
        const lines = linesOf(statement.document, (paging.page - 1) * paging.perPage, paging.perPage)
        return ok(partner, {
          statement: yield* summaryEntry(statement.summary),
          document: {
            sha256,
            bytes: Buffer.byteLength(statement.document),
            lines: statement.summary.counts.transactions + 1
          },
          signature,
          transactions: yield* lineEntries(lines.map((line) => ({ record: "transaction" as const, ...line }))),
          meta: { page: paging.page, per_page: paging.perPage, total: statement.summary.counts.transactions }
        })
      }))
      .handle("reconcile", Effect.fn("StatementsHandlers.reconcile")(function*({ params, payload }) {
        const partner = yield* CurrentPartner
        const theirs = yield* readPosted(payload)
        const { reconciliation, summary } = yield* statements.reconcile(partner, partner.environment, params.date, theirs).pipe(
          Effect.mapError(notReady)
        )
        const first = <A>(list: ReadonlyArray<A>) => list.slice(0, listedDifferences)
        const reconciled = reconciliation.missingAtPartner.length === 0 && reconciliation.missingHere.length === 0 &&
          reconciliation.different.length === 0 && reconciliation.totals.length === 0
        return ok(partner, {
          date: params.date,
          environment: partner.environment,
          reconciled,
          counts: {
            ours: summary.counts.transactions,
            theirs: theirs.lines.length,
            matched: reconciliation.matched,
            missing_at_partner: reconciliation.missingAtPartner.length,
            missing_here: reconciliation.missingHere.length,
            different: reconciliation.different.length
          },
          totals: reconciliation.totals.map(differenceEntry),
          missing_at_partner: yield* lineEntries(first(reconciliation.missingAtPartner).map((line) => ({ record: "transaction" as const, ...line }))),
          missing_here: first(reconciliation.missingHere).map((line) => ({ transaction_id: line.txnId, kind: line.kind })),
          different: first(reconciliation.different).map(({ differences, line }) => ({
            transaction_id: line.txnId,
            kind: line.kind,
            differences: differences.map(differenceEntry)
          }))
        })
      }, Effect.catchIf(HttpServerResponse.isHttpServerResponse, Effect.succeed)))
  })
)
