/** The wallet certification's records as CertificationRepo stores and answers them: its rows, inputs and refusals. */
import { Duration, Schema, Struct } from "effect"
import { IsoDate } from "../../domain/IsoDate.ts"
import {
  CaseResult as CaseResultSchema,
  type Certification,
  Certification as CertificationSchema,
  Exchange,
  type StartedVia
} from "../../domain/Certification.ts"
import { runsLimitMessage } from "../../domain/CertificationRuns.ts"
import { IdFromBigInt, MinorFromNumeric } from "../../platform/SqlCodecs.ts"
import { rowsOf } from "../../platform/SqlRows.ts"

/** A run to record as started. */
export interface NewCertification {
  readonly id: string
  readonly partnerId: number
  readonly externalPlayerId: string
  /** The run's currency (its code). */
  readonly currency: string
  readonly callbackUrl: string
  /** Whether `callbackUrl` is the partner's own test callback URL (Certification.partnerWallet). */
  readonly partnerWallet: boolean
  readonly startedBy: string
  readonly startedVia: StartedVia
  readonly timeoutMillis: number
}

/** A run without its cases, as lists show it. */
export type CertificationSummary = Omit<Certification, "cases">

/**
 * The partner setting and what it is judged on: whether a passed run is required, and the latest verdict (passed or
 * failed) on the partner's own test wallet, with the URL it ran against.
 */
export interface CertificationRequirement {
  readonly required: boolean
  readonly latest: { readonly status: "passed" | "failed"; readonly callbackUrl: string } | null
}

/** An interrupted run claimed for recovery: whose test player it played with, and the balance it started from. */
export interface InterruptedRun {
  readonly id: string
  readonly partnerId: number
  readonly externalPlayerId: string
  readonly currency: string
  readonly startedAt: Date
  /** The balance the run's first case read (minor units); null when it read none, so nothing had moved. */
  readonly start: bigint | null
}

/** The partner has a run going: two would move the same test player's money under each other. */
export class CertificationInProgress extends Schema.TaggedError<CertificationInProgress>()("CertificationInProgress", {
  id: Schema.String
}) {
  override get message() {
    return `A wallet certification of this partner is running (${this.id}): wait for it to finish.`
  }
}

/** The partner started as many runs in the last hour as it may (CERTIFICATION_RUNS_PER_HOUR): when the next may. */
export class CertificationRunsLimited extends Schema.TaggedError<CertificationRunsLimited>()(
  "CertificationRunsLimited",
  { perHour: Schema.Int, nextAt: Schema.Date, now: Schema.Date }
) {
  override get message() {
    return runsLimitMessage(this.perHour, this.nextAt, this.now)
  }
}

/** A run with a page of its cases, and how many of its cases have finished in all. */
export interface CertificationReport {
  readonly run: Certification
  readonly casesFinished: number
}

// Exchanges are kept as the report shows them: JSON, dates as ISO strings.
export const ExchangesJson = Schema.Array(Exchange.mapFields(Struct.assign({ sentAt: IsoDate })))
export const encodeExchanges = Schema.encodeSync(ExchangesJson)

export const RunRow = Schema.Struct({
  ...Struct.omit(CertificationSchema.fields, ["cases"]),
  ref: IdFromBigInt,
  partnerId: IdFromBigInt
}).pipe(Schema.encodeKeys({
  id: "public_id",
  ref: "id",
  partnerId: "partner_id",
  externalPlayerId: "external_player_id",
  callbackUrl: "callback_url",
  partnerWallet: "partner_wallet",
  startedBy: "started_by",
  startedVia: "started_via",
  timeoutMillis: "timeout_ms",
  startedAt: "started_at",
  finishedAt: "finished_at"
}))

export const CaseRow = Schema.Struct({
  ...CaseResultSchema.fields,
  certificationRef: IdFromBigInt,
  balanceBefore: Schema.NullOr(MinorFromNumeric),
  expectedBalance: Schema.NullOr(MinorFromNumeric),
  balanceAfter: Schema.NullOr(MinorFromNumeric),
  exchanges: ExchangesJson
}).pipe(Schema.encodeKeys({
  certificationRef: "certification_id",
  key: "case_key",
  balanceBefore: "balance_before",
  expectedBalance: "expected_balance",
  balanceAfter: "balance_after",
  finishedAt: "finished_at"
}))

/** The public id of the run a partner has going. */
export const runningRows = rowsOf(Schema.Struct({ id: Schema.String }).pipe(Schema.encodeKeys({ id: "public_id" })))

export const summaryOf = ({ ref: _, ...summary }: typeof RunRow.Type): CertificationSummary => summary

/** Minor units as the numeric(40, 0) columns take them. */
export const amount = (minor: bigint | null) => minor === null ? null : minor.toString()

// A run stops after 3 calls without an answer, so no case takes more than a few time-outs: a run untouched for
// this long has no instance running it any more.
export const staleAfterOf = (timeout: Duration.Duration) =>
  Duration.max(Duration.minutes(5), Duration.times(timeout, 30))
/** How long an instance's claim on an interrupted run's recovery holds before another instance may take it over. */
export const recoveryClaim = Duration.minutes(10)

export const InterruptedRow = Schema.Struct({
  id: Schema.String,
  partnerId: IdFromBigInt,
  externalPlayerId: Schema.String,
  currency: Schema.String,
  startedAt: Schema.Date,
  start: Schema.NullOr(MinorFromNumeric)
}).pipe(Schema.encodeKeys({
  id: "public_id",
  partnerId: "partner_id",
  externalPlayerId: "external_player_id",
  startedAt: "started_at"
}))

export const abandoned = "The run stopped before it finished: the instance running it stopped. Start it again."
