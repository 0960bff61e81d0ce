import { Schema } from "effect"
import { randomBytes } from "node:crypto"
import { amountText, CaseKey, cases } from "./CertificationCaseTexts.ts"
import type { Currency } from "./Currency.ts"
import type { Minor } from "./Money.ts"
import type { PartnerAnswer } from "./Wallet.ts"

/**
 * Wallet certification: a run of cases the service sends to a partner's test wallet, signed as every callback is,
 * each case kept with the exact requests it sent and the answers it got. The partner's wallet is the other half of
 * the money path; these cases are how it shows it applies each event once, refuses what it must and loses nothing.
 * The rules here are pure: what each case checks and catches, how answers and timings are judged, how a run ends.
 */

/**
 * `not_run`: the service could not send the run's callbacks (the URL policy refused the address, its host did not
 * resolve, an error of the service's own): it says nothing of the wallet, and never counts against the partner.
 */
export const CertificationStatus = Schema.Literals(["running", "passed", "failed", "interrupted", "not_run"])
export type CertificationStatus = typeof CertificationStatus.Type

export const CaseStatus = Schema.Literals(["passed", "failed", "skipped"])
export type CaseStatus = typeof CaseStatus.Type

/** Who asked for a run: the partner with its test token, an operator in the console, or the admin CLI. */
export const StartedVia = Schema.Literals(["api", "console", "cli"])
export type StartedVia = typeof StartedVia.Type

/** The most of a request's or an answer's body a report keeps: a wallet padding its answers must not grow it. */
export const keptBodyBytes = 2048

/**
 * How much of its bodies a run keeps in all at `keptBodyBytes` each; past it, each body keeps `keptBodyBytesPastBudget`
 * (its beginning: the balance or the error a wallet answers). A run's exchanges are about a hundred, so the bound per
 * body alone would let a padding wallet grow a report with every case added; this one bounds the report.
 */
export const keptBodiesBudget = 96 * 1024
export const keptBodyBytesPastBudget = 256

/**
 * A body as a report keeps it: its first `limit` bytes (`keptBodyBytes` unless said), cut on a UTF-8 character's
 * boundary, and its size.
 */
export const keptBody = (
  body: string,
  limit: number = keptBodyBytes
): { readonly body: string; readonly bodyBytes: number } => {
  const bytes = new TextEncoder().encode(body)
  if (bytes.length <= limit) return { body, bodyBytes: bytes.length }
  let end = limit
  // A continuation byte (10xxxxxx) is the middle of a character: cut before the character instead.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--
  return { body: new TextDecoder().decode(bytes.subarray(0, end)), bodyBytes: bytes.length }
}

/** The whole body's size: larger than the body kept says that one is its beginning only. */
const BodyBytes = Schema.Int.annotate({
  description: `The whole body's size in bytes; when larger than \`body\`, that is its beginning only: its first ` +
    `${keptBodyBytes} bytes, or ${keptBodyBytesPastBudget} once the run has kept ${
      keptBodiesBudget / 1024
    } KiB of bodies`
})

export const ExchangeRequest = Schema.Struct({
  headers: Schema.Record(Schema.String, Schema.String),
  body: Schema.String,
  bodyBytes: BodyBytes
})

/** An answer: a body past 64 KiB is not read (null, and so is its size). */
export const ExchangeResponse = Schema.Struct({
  status: Schema.Int,
  body: Schema.NullOr(Schema.String),
  bodyBytes: Schema.NullOr(BodyBytes)
})

/** One request a run sent (as sent, its body cut to `keptBodyBytes`) and what came back (cut alike). */
export const Exchange = Schema.Struct({
  /** What the request was, in words: `bet 1.00 BRL (round cert_…_r1)`. */
  label: Schema.String,
  sentAt: Schema.Date,
  /** How long the answer took; the time-out when none came. */
  millis: Schema.Int,
  request: ExchangeRequest,
  /** The answer's status and body; null when none came. */
  response: Schema.NullOr(ExchangeResponse),
  /** Why no answer came (a time-out, a refused connection); null when one did. */
  error: Schema.NullOr(Schema.String),
  /** How the service reads the answer: `balance 99.00 BRL`, `refused: insufficient funds`, `acknowledged (2xx)`, … */
  reading: Schema.String
})
export type Exchange = typeof Exchange.Type

/** The answer times of a run's calls, against the time-out. */
export const Timing = Schema.Struct({
  calls: Schema.Int,
  p50Millis: Schema.Int,
  p99Millis: Schema.Int,
  maxMillis: Schema.Int,
  timedOut: Schema.Int,
  timeoutMillis: Schema.Int
})
export type Timing = typeof Timing.Type

export const CaseResult = Schema.Struct({
  key: CaseKey,
  status: CaseStatus,
  /** Why it failed (naming the fault it catches) or was not run; null when it passed. */
  reason: Schema.NullOr(Schema.String),
  /**
   * The test player's balance when the case began, what it should be at its end, and what it was: minor units of the
   * run's currency.
   */
  balanceBefore: Schema.NullOr(Schema.BigInt),
  expectedBalance: Schema.NullOr(Schema.BigInt),
  balanceAfter: Schema.NullOr(Schema.BigInt),
  /** The answer times (the slowness case only). */
  timing: Schema.NullOr(Timing),
  exchanges: Schema.Array(Exchange),
  finishedAt: Schema.Date
})
export type CaseResult = typeof CaseResult.Type

export const Certification = Schema.Struct({
  /** `cert_` and 16 hex digits. */
  id: Schema.String,
  partnerId: Schema.Int,
  externalPlayerId: Schema.String,
  /** The run's currency (its code): the test player's row it plays with, and every amount of its cases. */
  currency: Schema.String,
  /** Where the run sent its callbacks: the test callback URL, or the sandbox partner wallet's. */
  callbackUrl: Schema.String,
  /**
   * Whether `callbackUrl` was the partner's own test callback URL: only such a run certifies its wallet (and counts
   * for the live token's gate); one against the sandbox partner wallet, or another address of the service's own,
   * is practice.
   */
  partnerWallet: Schema.Boolean,
  /** The partner (`partner acme`), an operator's e-mail, or the CLI's `user@host`. */
  startedBy: Schema.String,
  startedVia: StartedVia,
  status: CertificationStatus,
  summary: Schema.NullOr(Schema.String),
  timeoutMillis: Schema.Int,
  startedAt: Schema.Date,
  finishedAt: Schema.NullOr(Schema.Date),
  /** The cases finished so far, in the run's order. */
  cases: Schema.Array(CaseResult)
})
export type Certification = typeof Certification.Type

/** A run's id: random, so its event ids meet no other run's, here or on another deployment calling the same wallet. */
export const newCertificationId = () => `cert_${randomBytes(8).toString("hex")}`

export const isCertificationId = (id: string) => /^cert_[0-9a-f]{16}$/.test(id)

/** The event id of a run's n-th callback: `evt_cert_<run>_<n>`, never the `evt_<hex>` of real traffic. */
export const certificationEventId = (runId: string, n: number) => `evt_${runId}_${String(n).padStart(3, "0")}`

/** Marks a body as a certification run's: the `certification` field, signed with the body. */
export const certificationHeader = "x-partner-certification"

/**
 * A callback body as the wallet sends it, made a certification run's: its event id (and a rollback's `rolls_back`)
 * replaced by the run's own, and `certification: {run, case}` added at the end. The keys keep their order.
 */
export const certificationBody = (
  body: string,
  run: { readonly id: string; readonly key: CaseKey },
  eventId: string,
  rollsBack?: string
) =>
  JSON.stringify({
    ...JSON.parse(body) as Record<string, unknown>,
    event_id: eventId,
    ...(rollsBack === undefined ? {} : { rolls_back: rollsBack }),
    certification: { run: run.id, case: run.key }
  })

/** A balance the wallet reported against the one expected, in words: nothing when they agree. */
export const compared = (
  what: string,
  observed: Minor | undefined,
  expected: Minor,
  currency: Currency
): ReadonlyArray<string> =>
  observed === undefined
    ? [`The balance ${what.replace(/,$/, "")} could not be read.`]
    : observed === expected
    ? []
    : [
      `${what[0].toUpperCase()}${what.slice(1)} the balance is ${amountText(observed, currency)}, not ` +
      `${amountText(expected, currency)} (${observed > expected ? "+" : ""}${
        amountText(observed - expected, currency)
      }).`
    ]

/** How the service reads a partner's answer to a balance or a bet (in `currency`, the call's), in words. */
export const answerReading = (answer: PartnerAnswer, currency: Currency): string => {
  switch (answer._tag) {
    case "Balance":
      return `balance ${amountText(answer.balance, currency)}`
    case "InsufficientFunds":
      return answer.balance === null
        ? "refused: insufficient funds"
        : `refused: insufficient funds (balance ${amountText(answer.balance, currency)})`
    case "UnknownPlayer":
      return "refused: unknown player"
    case "Unavailable":
      return `no usable answer: ${answer.reason}`
  }
}

/** The value at percentile `p` (0..100) of `values`, by the nearest-rank method; 0 for none. */
export const percentile = (values: ReadonlyArray<number>, p: number) => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** The answer times of these exchanges against the time-out; a call that got no answer in time counts as timed out. */
export const timingOf = (exchanges: ReadonlyArray<Exchange>, timeoutMillis: number, timedOut: number): Timing => {
  const millis = exchanges.map((exchange) => exchange.millis)
  return {
    calls: millis.length,
    p50Millis: percentile(millis, 50),
    p99Millis: percentile(millis, 99),
    maxMillis: millis.length === 0 ? 0 : Math.max(...millis),
    timedOut,
    timeoutMillis
  }
}

/** What is wrong with these answer times, in words; none when every call was answered within the time-out. */
export const timingProblems = (timing: Timing): ReadonlyArray<string> => {
  const figures =
    `p50 ${timing.p50Millis} ms, p99 ${timing.p99Millis} ms, slowest ${timing.maxMillis} ms over ${timing.calls} ` +
    `calls, against the ${timing.timeoutMillis} ms time-out.`
  if (timing.timedOut > 0) {
    return [
      `${timing.timedOut} of ${timing.calls} calls got no answer within the ${timing.timeoutMillis} ms time-out (${figures}) ` +
      "The service refuses a bet the wallet does not answer in time and rolls it back."
    ]
  }
  if (timing.p99Millis >= timing.timeoutMillis) return [`Answers came at the time-out's edge: ${figures}`]
  return []
}

/** A run's end from its cases: passed when none failed (skipped cases fail a run too: something stopped them). */
export const outcome = (results: ReadonlyArray<Pick<CaseResult, "key" | "status">>): {
  readonly status: "passed" | "failed"
  readonly summary: string
} => {
  const failed = results.filter((result) => result.status === "failed").map((result) => cases[result.key].title)
  const skipped = results.filter((result) => result.status === "skipped").length
  const passed = results.length - failed.length - skipped
  const counts = `${passed} of ${results.length} cases passed`
  if (failed.length === 0 && skipped === 0) return { status: "passed", summary: `${counts}.` }
  return {
    status: "failed",
    summary: `${counts}${failed.length === 0 ? "" : `; failed: ${failed.join(", ")}`}` +
      `${skipped === 0 ? "" : `; ${skipped} not run`}.`
  }
}

/** What the live token's gate is judged on: the setting, the live callback URL, and the latest verdict on the wallet. */
export interface GateEvidence {
  readonly required: boolean
  readonly liveCallbackUrl: string | null
  /** The latest run that passed or failed against the partner's own test wallet (partnerWallet), if any. */
  readonly latest: { readonly status: "passed" | "failed"; readonly callbackUrl: string } | null
}

/** A URL's host name, lower-cased; null when it is no URL. */
const hostOf = (url: string) => URL.canParse(url) ? new URL(url).hostname.toLowerCase() : null

/**
 * Why the partner's live token may not be issued now, whoever asks; null when it may. Under the setting, a run proves
 * only the wallet it ran against: the latest verdict on the partner's own test wallet must be a pass, and the live
 * callback URL must be on the host that passed (a wallet certified on one host says nothing of another). Runs against
 * the sandbox partner wallet, runs the service could not send and interrupted runs are no verdict.
 */
export const liveTokenRefusal = (slug: string, evidence: GateEvidence): string | null => {
  if (!evidence.required) return null
  const issued = `The live token of ${slug} is issued only after a passed wallet certification of its own test wallet`
  const rerun = `run one (partners certify ${slug} --player <test player>, or the Certification page) with its own ` +
    "test callback URL set"
  const { latest } = evidence
  if (latest === null) {
    return `${issued}, and it has none yet (a run against the sandbox partner wallet, or one the service could not ` +
      `send, is no verdict): ${rerun}.`
  }
  if (latest.status === "failed") return `${issued}, and its latest run against it failed: ${rerun}.`
  const certified = hostOf(latest.callbackUrl)
  if (evidence.liveCallbackUrl === null) {
    return `${issued}, on the host it passed on (${certified}), and ${slug} has no live callback URL: set one there.`
  }
  const live = hostOf(evidence.liveCallbackUrl)
  if (live !== certified) {
    return `${issued}, on the host it passed on: its wallet passed on ${certified}, and its live callback URL is on ` +
      `${live}. Set the live callback URL on ${certified}, or certify the wallet on ${live}.`
  }
  return null
}

/**
 * Who may issue a live token while the partner requires a passed run: an operator, or in the portal only the
 * partner's owner; null when `actor` may. (Without the setting, the portal's role matrix decides alone.)
 */
export const liveTokenIssuerRefusal = (
  slug: string,
  required: boolean,
  actor: { readonly via: string; readonly role?: string | undefined }
): string | null =>
  required && actor.via === "portal" && actor.role !== "owner"
    ? `While ${slug}'s live token requires a passed wallet certification, only its owner (or an operator) may ` +
      "issue it: ask the owner of the account."
    : null

/** A live token an operator asked for is withheld: the partner requires a passed run and has none (liveTokenRefusal). */
export class LiveTokenWithheld extends Schema.TaggedError<LiveTokenWithheld>()("LiveTokenWithheld", {
  message: Schema.String
}) {}

/** How a case words what it sees in the run's currency: a balance compared, an answer read, an amount said. */
export const wordsIn = (currency: Currency) => ({
  compared: (what: string, observed: Minor | undefined, expected: Minor) =>
    compared(what, observed, expected, currency),
  reading: (answer: PartnerAnswer) => answerReading(answer, currency),
  say: (minor: Minor) => amountText(minor, currency)
})
