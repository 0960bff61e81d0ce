import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiError } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { servedApi } from "../../platform/QueryOnce.ts"
import { ErrorMessages, TooManyRequests, ValidationFailed } from "../../api/Errors.ts"
import { page } from "../../api/Paging.ts"
import { respond } from "../../api/Respond.ts"
import { CurrentPartner } from "../../api/Security.ts"
import { type PostedRecord, reconciliationMaxBytes } from "../../api/Statements.ts"
import {
  reconciliationAnswer,
  statementAnswer,
  statementDocument,
  statementNotReady,
  wantsDocument
} from "../../api/StatementsEdge.ts"
import { type Currency, knownCurrency } from "../../domain/Currency.ts"
import { type Minor, signedMinorOf } from "../../domain/Money.ts"
import { totalsFields } from "../../domain/Statements.ts"
import { linesOf } from "../../domain/StatementDocument.ts"
import type { PostedCurrencyTotals, PostedTotals, PostedTransaction } from "../../domain/StatementReconciliation.ts"
import { PartnerRateLimit } from "../../partners/PartnerRateLimit.ts"
import { validationErrors } from "../../platform/RequestRefusals.ts"
import { Statements } from "./Statements.ts"

const invalidBody = (message: string) =>
  new ValidationFailed({ message: ErrorMessages.invalidData, errors: { body: [message] } })

/** What the partner's lines are read against: the statement's currencies, and the currencies this service knows. */
interface PostedContext {
  /** The currency of the statement's transaction of a kind and id, if it lists it. */
  readonly currencyOf: (key: string) => string | undefined
  /** The day's currencies, by code. */
  readonly dayCurrencies: ReadonlyArray<string>
  /** A currency code the partner may name: any this service knows (a currency the day did not have totals zero). */
  readonly currency: (code: string) => Currency | undefined
}

type Amounts = { readonly [K in "bet" | "win" | "amount"]?: string }
type TotalsTexts = { readonly [K in (typeof totalsFields)[number]]?: string }

/**
 * What the partner posted, read line by line: its transactions (each its kind and id, once) and its totals, each
 * amount in its currency's minor units exactly. A line that cannot be read is a 422 naming it and its field (an
 * amount finer than its currency, a currency this service does not know); a body over the limit a 413.
 */
const readPosted = (posted: Stream.Stream<typeof PostedRecord.Type, unknown>, context: PostedContext) =>
  Effect.gen(function*() {
    const lines = new Map<string, PostedTransaction & { readonly line: number }>()
    let transactions: number | undefined
    const totals = new Map<string, PostedCurrencyTotals>()
    let line = 0
    const refuse = (field: string, message: string) => Effect.fail(invalidBody(`Line ${line}: ${field}: ${message}`))
    /** A named currency, or a 422 on `field`. */
    const currencyNamed = (field: string, code: string) => {
      const currency = context.currency(code)
      return currency === undefined
        ? refuse(field, `The ${field} field must be a currency this service knows (like BRL, JPY or BTC).`)
        : Effect.succeed(currency)
    }
    /** Amounts read in `currency`, or a 422 naming the first that is finer than its unit. */
    const amountsIn = <K extends string>(
      prefix: string,
      texts: { readonly [F in K]?: string },
      currency: Currency
    ) =>
      Effect.suspend(() => {
        const read: Partial<Record<K, Minor>> = {}
        for (const [field, text] of Object.entries(texts) as Array<[K, string | undefined]>) {
          if (text === undefined) continue
          const minor = signedMinorOf(text, currency)
          if (minor === undefined) {
            return refuse(
              `${prefix}${field}`,
              `The ${prefix}${field} field must be an amount in ${currency.code}, with at most ${currency.exponent} ` +
                "decimal places."
            )
          }
          read[field] = minor
        }
        return Effect.succeed(read)
      })
    const readTotals = (prefix: string, texts: TotalsTexts | undefined, currency: Currency, count?: number) =>
      Effect.map(amountsIn(prefix, texts ?? {}, currency), (read): PostedCurrencyTotals => ({
        ...read,
        transactions: count
      }))
    const failure = yield* posted.pipe(
      Stream.runForEach((record) =>
        Effect.gen(function*() {
          line++
          if (record.record === "statement") {
            transactions = record.counts?.transactions
            for (const [index, entry] of (record.currencies ?? []).entries()) {
              const field = `currencies.${index}.currency`
              const currency = yield* currencyNamed(field, entry.currency)
              if (totals.has(currency.code)) {
                return yield* refuse(field, `The currency ${currency.code} was already listed on this line.`)
              }
              totals.set(
                currency.code,
                yield* readTotals(`currencies.${index}.totals.`, entry.totals, currency, entry.counts?.transactions)
              )
            }
            if (record.totals !== undefined) {
              // Totals with no currency: the day's one currency's.
              if (context.dayCurrencies.length !== 1) {
                return yield* refuse(
                  "totals",
                  "The day has several currencies (or none): send each currency's totals under currencies."
                )
              }
              const currency = yield* currencyNamed("totals", context.dayCurrencies[0]!)
              if (!totals.has(currency.code)) {
                totals.set(currency.code, yield* readTotals("totals.", record.totals, currency))
              }
            }
            return
          }
          const kind = record.kind ?? "bet"
          const key = `${kind}\u0000${record.transaction_id}`
          const earlier = lines.get(key)
          if (earlier !== undefined) {
            return yield* invalidBody(
              `Line ${line}: the ${kind} ${record.transaction_id} was already listed on line ${earlier.line}.`
            )
          }
          const texts: Amounts = {
            ...(record.bet === undefined ? {} : { bet: record.bet }),
            ...(record.win === undefined ? {} : { win: record.win }),
            ...(record.amount === undefined ? {} : { amount: record.amount })
          }
          // The line's currency: the one it names, else its transaction's in the statement, else the day's only one.
          const code = record.currency ?? context.currencyOf(key) ??
            (context.dayCurrencies.length === 1 ? context.dayCurrencies[0] : undefined)
          // None of those (a transaction the statement does not list, on a day of several currencies or none): it can
          // only be missing here, where its amounts are not compared, so they are left unread.
          const read: Partial<Record<keyof Amounts, Minor>> = code === undefined
            ? {}
            : yield* amountsIn("", texts, yield* currencyNamed("currency", code))
          lines.set(key, {
            line,
            txnId: record.transaction_id,
            kind,
            status: record.status,
            currency: record.currency,
            ...read,
            roundId: record.round_id,
            externalPlayerId: record.external_player_id
          })
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
    const postedTotals: PostedTotals | undefined = transactions === undefined && totals.size === 0
      ? undefined
      : { transactions, currencies: totals }
    return { lines: [...lines.values()], totals: postedTotals }
  })

/** What a reconciliation counts as against the partner's rate limit: its door's request and this many more. */
export const reconciliationRequests = 10

/** Daily statements for partners: always the calling partner's own, in its token's environment. */
export const StatementsHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
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
              const ours = linesOf(statement.document, 0, Number.POSITIVE_INFINITY, statement.legacyCurrency)
              const byKey = new Map(ours.map((line) => [`${line.kind}\u0000${line.txnId}`, line.currency]))
              const dayCurrencies = statement.summary.currencies.map((entry) => entry.currency)
              const theirs = yield* readPosted(payload, {
                currencyOf: (key) => byKey.get(key),
                dayCurrencies,
                currency: knownCurrency
              })
              return yield* respond(
                () => statements.reconcile(partner, params.date, statement, theirs),
                reconciliationAnswer
              )
            })
          )
        }).pipe(Effect.catchIf(HttpServerResponse.isHttpServerResponse, Effect.succeed)))
  })
)
