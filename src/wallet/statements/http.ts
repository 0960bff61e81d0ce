import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiError } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { ErrorMessages, TooManyRequests, ValidationFailed } from "../../api/Errors.ts"
import { page } from "../../api/Paging.ts"
import { respond } from "../../api/Respond.ts"
import { CurrentPartner } from "../../api/Security.ts"
import {
  type PostedRecord,
  reconciliationAnswer,
  reconciliationMaxBytes,
  statementAnswer,
  statementDocument,
  statementNotReady,
  wantsDocument
} from "../../api/Statements.ts"
import type { PostedTotals, PostedTransaction } from "../../domain/Statements.ts"
import { PartnerRateLimit } from "../../partners/PartnerRateLimit.ts"
import { validationErrors } from "../../platform/RequestRefusals.ts"
import { Statements } from "./Statements.ts"

const invalidBody = (message: string) =>
  new ValidationFailed({ message: ErrorMessages.invalidData, errors: { body: [message] } })

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
            ? `The request body is larger than ${reconciliationMaxBytes}: send only the fields you want compared (the id, the amount), at most that large.`
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

/** What a reconciliation counts as against the partner's rate limit: its door's request and this many more. */
export const reconciliationRequests = 10

/** Daily statements for partners: always the calling partner's own, in its token's environment. */
export const StatementsHandlers = HttpApiBuilder.group(
  PartnerApi,
  "statements",
  Effect.fn(function*(handlers) {
    const statements = yield* Statements
    const rateLimit = yield* PartnerRateLimit
    // The partners whose reconciliation runs on this instance: one at a time each, as a run reads and compares the
    // partner's books in memory.
    const running = new Set<number>()
    const oneAtATime = <A, E, R>(partnerId: number, run: Effect.Effect<A, E, R>) =>
      Effect.suspend((): Effect.Effect<A, E | HttpServerResponse.HttpServerResponse, R> => {
        if (running.has(partnerId)) {
          return Effect.fail(HttpServerResponse.jsonUnsafe({
            success: false,
            message: "A reconciliation of this partner is already running: send the next one when it has answered."
          }, { status: 429, headers: { "retry-after": "1" } }))
        }
        running.add(partnerId)
        return Effect.ensuring(run, Effect.sync(() => running.delete(partnerId)))
      })
    const signed = (day: string) =>
      Effect.flatMap(Effect.service(CurrentPartner), (partner) => statements.readSigned(partner, day)).pipe(
        Effect.mapError(statementNotReady)
      )

    return handlers
      .handle("statement", ({ params, query, request }) =>
        wantsDocument(query.format, request.headers.accept)
          ? Effect.flatMap(signed(params.date), statementDocument)
          : respond(() => signed(params.date), statementAnswer(page(query))))
      .handle("reconcile", ({ params, payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          // The day first: a day without a statement is refused before the partner's books are read.
          const statement = yield* statements.read(partner, partner.environment, params.date).pipe(
            Effect.mapError(statementNotReady)
          )
          return yield* oneAtATime(
            partner.id,
            Effect.gen(function*() {
              yield* rateLimit.admit(partner, reconciliationRequests - 1).pipe(
                Effect.mapError((limited) => new TooManyRequests({ message: limited.message }))
              )
              const theirs = yield* readPosted(payload)
              return yield* respond(
                () => statements.reconcile(partner, params.date, statement, theirs),
                reconciliationAnswer
              )
            })
          )
        }).pipe(Effect.catchIf(HttpServerResponse.isHttpServerResponse, Effect.succeed)))
  })
)
