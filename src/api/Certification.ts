import { Effect, Option, Schema, Struct } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  CaseResult,
  Certification,
  type Certification as CertificationRecord,
  Exchange,
  ExchangeRequest,
  ExchangeResponse,
  Timing
} from "../domain/Certification.ts"
import { caseChecks, CaseKey, caseKeys, cases } from "../domain/CertificationCaseTexts.ts"
import { secondsUntil } from "../domain/CertificationRuns.ts"
import { storedCurrency } from "../domain/Currency.ts"
import type { Page, PageRequest } from "../domain/Paging.ts"
import { amountOnWire } from "../domain/Money.ts"
import { isStorable, StorableText } from "../domain/Text.ts"
import { Envelope, IsoDate } from "./Envelope.ts"
import { Conflict, ErrorMessages, Forbidden, NotFound, TooManyRequests, ValidationFailed } from "./Errors.ts"
import { encodeWith, page, PageMeta, PageQuery, PerPageQuery } from "./Paging.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { Amount } from "./Wallet.ts"

/**
 * Wallet certification for partners: with the test token, start a run of cases against the partner's test wallet
 * and read its report, case by case, with every request sent and every answer got (domain/Certification.ts). The
 * wire's run is the domain's renamed at the edge, amounts from minor units to the units of the run's currency (a
 * number for currencies of up to 3 decimals, a string beyond, as every amount of the contract), each case with what it
 * checks (in the run's amounts) and the fault it catches.
 */

const Balance = Schema.NullOr(Amount).annotate({ description: "In the run's `currency`" })

const ExchangeEntry = Exchange.mapFields(Struct.assign({
  sentAt: IsoDate,
  request: ExchangeRequest.pipe(Schema.encodeKeys({ bodyBytes: "body_bytes" })),
  response: Schema.NullOr(ExchangeResponse.pipe(Schema.encodeKeys({ bodyBytes: "body_bytes" })))
})).pipe(Schema.encodeKeys({ sentAt: "sent_at" }))

const TimingEntry = Timing.pipe(Schema.encodeKeys({
  p50Millis: "p50_ms",
  p99Millis: "p99_ms",
  maxMillis: "max_ms",
  timedOut: "timed_out",
  timeoutMillis: "timeout_ms"
}))

/** A case as the report shows it: the domain's result, with its title, what it checks and the fault it catches. */
const CaseView = Schema.Struct({
  key: CaseKey,
  title: Schema.String,
  checks: Schema.String,
  catches: Schema.String.annotate({ description: "The wallet fault this case catches; a failure names it" }),
  status: CaseResult.fields.status,
  reason: CaseResult.fields.reason.annotate({
    description: "Why it failed or was not run, in words; null when it passed"
  }),
  balanceBefore: Balance,
  expectedBalance: Balance,
  balanceAfter: Balance,
  timing: Schema.NullOr(TimingEntry).annotate({
    description: "Answer times of the run's calls (the Answer times case)"
  }),
  exchanges: Schema.Array(ExchangeEntry).annotate({
    description:
      "Every request the case sent (headers exactly as sent) and the answer (status and body), or why none " +
      "came, with how long it took and how the service reads it. Each body is kept to its first 2 KiB (cut on a " +
      "character's boundary); `body_bytes` is the whole body's size"
  }),
  finishedAt: IsoDate
}).pipe(Schema.encodeKeys({
  balanceBefore: "balance_before",
  expectedBalance: "expected_balance",
  balanceAfter: "balance_after",
  finishedAt: "finished_at"
}))

const runFields = {
  ...Struct.pick(Certification.fields, [
    "id",
    "status",
    "externalPlayerId",
    "currency",
    "callbackUrl",
    "partnerWallet",
    "startedBy",
    "startedVia",
    "summary"
  ]),
  timeoutMillis: Certification.fields.timeoutMillis,
  startedAt: IsoDate,
  finishedAt: Schema.NullOr(IsoDate),
  casesTotal: Schema.Int
}

const runKeys = {
  externalPlayerId: "external_player_id",
  callbackUrl: "callback_url",
  partnerWallet: "partner_wallet",
  startedBy: "started_by",
  startedVia: "started_via",
  timeoutMillis: "timeout_ms",
  startedAt: "started_at",
  finishedAt: "finished_at",
  casesTotal: "cases_total"
} as const

export const CertificationCodec = Schema.Struct({ ...runFields, cases: Schema.Array(CaseView) }).pipe(
  Schema.encodeKeys(runKeys)
)

/** A run as the list shows it: the report without its cases. */
export const CertificationRunCodec = Schema.Struct(runFields).pipe(Schema.encodeKeys(runKeys))

/** A run as the report's codec takes it: each case with its catalog texts and its balances in the run's currency. */
export const certificationView = (run: CertificationRecord): typeof CertificationCodec.Type => {
  const currency = storedCurrency(run.currency)
  const onWire = (minor: bigint | null) => minor === null ? null : amountOnWire(minor, currency)
  return {
    ...run,
    casesTotal: caseKeys.length,
    cases: run.cases.map((result) => ({
      ...result,
      title: cases[result.key].title,
      checks: caseChecks(result.key, currency),
      catches: cases[result.key].catches,
      balanceBefore: onWire(result.balanceBefore),
      expectedBalance: onWire(result.expectedBalance),
      balanceAfter: onWire(result.balanceAfter)
    }))
  }
}

export const CertificationEntry = Schema.toEncoded(CertificationCodec)
export const CertificationRunEntry = Schema.toEncoded(CertificationRunCodec)

const exampleRun: typeof CertificationEntry.Type = {
  id: "cert_3f0c9a7d2e4f6a8b",
  status: "failed",
  external_player_id: "player-42",
  currency: "BRL",
  callback_url: "https://acme.example/test-wallet",
  partner_wallet: true,
  started_by: "partner acme-bets (test token)",
  started_via: "api",
  summary: "24 of 25 cases passed; failed: The same event 20 times at once.",
  timeout_ms: 3000,
  started_at: "2026-11-22T13:00:00.120Z",
  finished_at: "2026-11-22T13:00:01.870Z",
  cases_total: 25,
  cases: [{
    key: "bet",
    title: cases.bet.title,
    checks: caseChecks("bet", storedCurrency("BRL")),
    catches: cases.bet.catches,
    status: "passed",
    reason: null,
    balance_before: 150,
    expected_balance: 149,
    balance_after: 149,
    timing: null,
    exchanges: [{
      label: "bet 1.00 BRL (round cert_3f0c9a7d2e4f6a8b_bet)",
      sent_at: "2026-11-22T13:00:00.410Z",
      millis: 38,
      request: {
        headers: {
          "content-type": "application/json",
          "x-partner-event-id": "evt_cert_3f0c9a7d2e4f6a8b_003",
          "x-partner-timestamp": "1795355200",
          "x-partner-signature": "v1=8d2e…",
          "x-partner-certification": "cert_3f0c9a7d2e4f6a8b"
        },
        body: "{\"event_id\":\"evt_cert_3f0c9a7d2e4f6a8b_003\",\"kind\":\"bet\",…,\"amount\":1," +
          "\"certification\":{\"run\":\"cert_3f0c9a7d2e4f6a8b\",\"case\":\"bet\"}}",
        body_bytes: 297
      },
      response: { status: 200, body: "{\"balance\":149}", body_bytes: 15 },
      error: null,
      reading: "balance 149.00 BRL"
    }],
    finished_at: "2026-11-22T13:00:00.470Z"
  }]
}

const CertificationResponse = (identifier: string) =>
  Envelope(identifier, Schema.Struct({ certification: CertificationEntry }), { example: { certification: exampleRun } })

const { cases: _exampleCases, ...exampleSummary } = exampleRun

const ReportResponse = Envelope(
  "WalletCertificationResponse",
  Schema.Struct({
    certification: CertificationEntry,
    meta: Schema.optionalKey(PageMeta).annotate({
      description: "Only when `page` or `per_page` was given: the page of the cases answered, and `total`, the cases " +
        "finished so far"
    })
  }),
  { example: { certification: exampleRun } }
)

const RunsResponse = Envelope(
  "WalletCertificationsResponse",
  Schema.Struct({ certifications: Schema.Array(CertificationRunEntry), meta: PageMeta }),
  { example: { certifications: [exampleSummary], meta: { page: 1, per_page: 50, total: 1 } } }
)

const pagingQuery = { page: Schema.optional(PageQuery), per_page: Schema.optional(PerPageQuery) }

/** The test player a run plays with, as partners and operators name it. */
export const TestPlayerField = Schema.Trim.check(
  isStorable,
  Schema.isMinLength(1, { message: "The :attribute field is required." }),
  Schema.isMaxLength(255, { message: "The :attribute field must not be greater than 255 characters." })
).annotate({
  description: "The test player the run plays with: one of the partner's test players, launched once with the test " +
    "token in the run's currency (the partner's default). Left as it was found: every case gives back what it moved.",
  examples: ["player-42"]
})

const StartRequest = Schema.Struct({ external_player_id: TestPlayerField }).annotate({
  identifier: "WalletCertificationRequest",
  examples: [{ external_player_id: "player-42" }]
})

const howToTellThem = "Certification callbacks are told apart from real wallet traffic by their event ids " +
  "(`evt_cert_<run>_<n>`, never `evt_<hex>`), by the `certification: {run, case}` field at the end of their body " +
  "(signed with it) and by the `X-Partner-Certification: <run>` header. They are signed as every callback is, with " +
  "the test webhook secret, and none of them is written to the wallet's ledger."

export class CertificationGroup extends HttpApiGroup.make("certifications")
  .add(
    HttpApiEndpoint.post("start", "/wallet/certifications", {
      payload: StartRequest,
      success: CertificationResponse("WalletCertificationStarted"),
      error: [Forbidden, Conflict, TooManyRequests]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Certify the partner's test wallet: start a run of cases (test token only)",
      description: "Starts a run in the background and answers it at once (`status: running`, no case yet); read it " +
        "with GET /wallet/certifications/{certification_id} as its cases finish. The run sends its cases to the test " +
        "callback URL (or the sandbox partner wallet when there is none): balance, win, bet, refund, rollback, the same " +
        `event twice and 20 times at once, a rollback before its bet, a bad signature, a stale timestamp, a signature of ` +
        "another body, insufficient funds, an unknown player, another currency, amounts to the minor unit, a zero " +
        "bet, conservation and answer times. The run plays in the partner's default currency, with the test player's " +
        "balance in it, and every amount scales with that currency (a bet of 1.00 BRL is 1 JPY, or 1 BTC). " +
        `${howToTellThem} A live token is refused (403); a player that is not one of the partner's test players in ` +
        "that currency is a 422 on `external_player_id`; a run already going for the partner is a 409. At most " +
        "CERTIFICATION_RUNS_PER_HOUR runs (6 by default) start in any rolling hour, counting the ones your operator " +
        "started: past them a 429 says when the next may start (a UTC time, and minutes from now), and `Retry-After` " +
        "in seconds. Runs are kept 90 days (each partner's latest verdict on its own wallet longer)."
    }))
  )
  .add(
    HttpApiEndpoint.get("list", "/wallet/certifications", {
      query: pagingQuery,
      success: RunsResponse,
      error: Forbidden
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The partner's certification runs, newest first, without their cases (test token only)",
      description:
        "Each run's status, summary, currency, callback URL, who started it and when, paged with `page` and " +
        "`per_page`. Read a run's cases with GET /wallet/certifications/{certification_id}. Runs older than 90 days " +
        "are pruned, but for the latest verdict on the partner's own wallet."
    }))
  )
  .add(
    HttpApiEndpoint.get("show", "/wallet/certifications/:certification_id", {
      params: { certification_id: StorableText },
      query: pagingQuery,
      success: ReportResponse,
      error: [Forbidden, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "A certification run's report, case by case (test token only)",
      description: "The run's status (`running`, `passed`, `failed`, `interrupted`), its summary, and each case " +
        "finished so far in the run's order: what it checks, the fault it catches, passed, failed (with why) or not " +
        "run, the test player's balance before, expected and after (in the run's `currency`), and every request sent " +
        "and answer got, each body kept to its first 2 KiB with its whole size in `body_bytes`. The whole report " +
        "unless `page` or `per_page` is given: then that page of the cases, in the run's order, and `meta`. 404 for " +
        "another partner's run."
    }))
  )
  .annotateMerge(OpenApi.annotations({
    description: "Wallet certification: the service checks the partner's test wallet the way its real traffic will " +
      "use it, before the partner goes live."
  }))
{}

// The edge: who may start or read a run, and a run as the contract writes it.

const testTokenOnly = new Forbidden({
  message: "Wallet certification runs against your test environment: call it with your test token (pak_test_…). " +
    "A live token neither starts nor reads a run."
})

/** `run` for a test token's partner; a live token's is refused (403), whatever it asks. */
export const asTestPartner = <A, E, R>(
  partner: { readonly environment: string },
  run: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Forbidden, R> => partner.environment === "test" ? run : Effect.fail(testTokenOnly)

/** Who started a run through the partner API, as the console lists it. */
export const apiStarter = (partner: { readonly slug: string }) => ({
  name: `partner ${partner.slug} (test token)`,
  via: "api" as const
})

const encodeCertification = Schema.encodeEffect(CertificationCodec)

/** A run, as both endpoints answer it. */
export const certificationAnswer = (run: CertificationRecord) =>
  Effect.map(Effect.orDie(encodeCertification(certificationView(run))), (certification) => ({ certification }))

/** A run without its cases as the list answers it. */
export const runView = (run: Omit<CertificationRecord, "cases">): typeof CertificationRunCodec.Type => ({
  ...run,
  casesTotal: caseKeys.length
})

const encodeRuns = encodeWith(Schema.Array(CertificationRunCodec))

/** A page of runs, as the list answers it. */
export const runsAnswer = (found: Page<Omit<CertificationRecord, "cases">>) =>
  Effect.map(encodeRuns(found.results.map(runView)), (certifications) => ({
    certifications,
    meta: { page: found.page, per_page: found.perPage, total: found.total }
  }))

/** How a report is asked for: whole (as clients have always read it) unless `page` or `per_page` is given. */
export const reportPaging = (
  query: { readonly page?: number | undefined; readonly per_page?: number | undefined }
): PageRequest | undefined => query.page === undefined && query.per_page === undefined ? undefined : page(query)

/** A report as `show` answers it: the whole run, or a page of its cases and `meta`. */
export const reportAnswer = (report: { readonly run: CertificationRecord; readonly page?: Page<unknown> }) =>
  Effect.map(certificationAnswer(report.run), (answer) =>
    report.page === undefined
      ? answer
      : { ...answer, meta: { page: report.page.page, per_page: report.page.perPage, total: report.page.total } })

/** The run found, or a 404. */
export const foundRun = <A>(run: Option.Option<A>) =>
  Option.match(run, {
    onNone: () => Effect.fail(new NotFound({ message: "Certification run not found." })),
    onSome: Effect.succeed
  })

/** Why a run does not start, as the contract answers it: an unknown test player is a 422, a run going a 409. */
export const startRefusals = {
  UnknownTestPlayer: (unknown: { readonly message: string }) =>
    Effect.fail(
      new ValidationFailed({ message: ErrorMessages.invalidData, errors: { external_player_id: [unknown.message] } })
    ),
  CertificationInProgress: (running: { readonly message: string }) =>
    Effect.fail(new Conflict({ message: running.message })),
  // A 429 with Retry-After: the header on the answer, the time of day and minutes in the message.
  CertificationRunsLimited: (limited: { readonly message: string; readonly nextAt: Date; readonly now: Date }) =>
    Effect.andThen(
      HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.succeed(
          HttpServerResponse.setHeader(response, "retry-after", String(secondsUntil(limited.nextAt, limited.now)))
        )
      ),
      Effect.fail(new TooManyRequests({ message: limited.message }))
    )
}
