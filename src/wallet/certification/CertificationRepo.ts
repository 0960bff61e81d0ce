import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import {
  type CaseResult,
  type Certification,
  CertificationStatus,
  StartedVia as StartedViaSchema
} from "../../domain/Certification.ts"
import { nextRunAt, runsWindow } from "../../domain/CertificationRuns.ts"
import { type Page, pageOf, type PageRequest, pageWindow } from "../../domain/Paging.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import {
  abandoned,
  amount,
  CaseRow,
  CertificationInProgress,
  type CertificationReport,
  type CertificationRequirement,
  CertificationRunsLimited,
  type CertificationSummary,
  encodeExchanges,
  InterruptedRow,
  type InterruptedRun,
  type NewCertification,
  recoveryClaim,
  runningRows,
  RunRow,
  staleAfterOf,
  summaryOf
} from "./CertificationRows.ts"

// What the repository's callers name with it.
export {
  abandoned,
  CertificationInProgress,
  type CertificationReport,
  type CertificationRequirement,
  CertificationRunsLimited,
  type CertificationSummary,
  type InterruptedRun,
  type NewCertification,
  recoveryClaim,
  staleAfterOf
} from "./CertificationRows.ts"

/**
 * The wallet certification's tables: its runs, their cases and the partners that require a passed run before their
 * live token is issued. The only place their SQL lives. A run still `running` that no case has touched for longer
 * than a run could take (its instance died) reads as `interrupted`, and is closed as such when the partner starts
 * another.
 */
export class CertificationRepo extends Context.Service<CertificationRepo, {
  /**
   * Records a run as running; fails when the partner has one running already, or when the partner itself starts it
   * (`api`) and has started CERTIFICATION_RUNS_PER_HOUR runs (anyone's) in the last hour. The count and the insert are
   * one step under the partner's lock, so concurrent starts cannot both take the last place.
   */
  insert(run: NewCertification): Effect.Effect<CertificationSummary, CertificationInProgress | CertificationRunsLimited>
  /** Records a finished case of the run (its `position` in the run's order), and that the run is alive. */
  recordCase(id: string, position: number, result: CaseResult): Effect.Effect<void>
  finish(id: string, status: Exclude<CertificationStatus, "running">, summary: string): Effect.Effect<void>
  /** A run with its cases so far: the partner's own (`partnerId`), or any (the operator's). */
  find(id: string, partnerId?: number): Effect.Effect<Option.Option<Certification>>
  /** A run with a page of its cases (in the run's order): the partner's own. */
  findPage(id: string, partnerId: number, cases: PageRequest): Effect.Effect<Option.Option<CertificationReport>>
  /** The partner's latest runs, newest first, without their cases. */
  list(partnerId: number, limit: number): Effect.Effect<ReadonlyArray<CertificationSummary>>
  /** A page of the partner's runs, newest first, without their cases. */
  listPage(partnerId: number, page: PageRequest): Effect.Effect<Page<CertificationSummary>>
  /**
   * Deletes the runs (with their cases) started longer ago than `olderThan`, but for each partner's latest verdict on
   * its own wallet, which `requirement` judges its live token on; how many were deleted.
   */
  prune(olderThan: Duration.Duration): Effect.Effect<number>
  requirement(partnerId: number): Effect.Effect<CertificationRequirement>
  /**
   * Claims one run that ended before its last case (interrupted, or not_run) and is not yet recovered (closing it
   * first if its instance died while it ran), for this
   * instance to put its test player's balance back; a claim lapses after a while, for another instance to take over.
   */
  readonly claimInterrupted: Effect.Effect<Option.Option<InterruptedRun>>
  /** Records a claimed run as recovered, adding `note` (what recovery did) to its summary. */
  recovered(id: string, note: string): Effect.Effect<void>
  /** Turns the setting on or off; whether it changed. */
  setRequired(partnerId: number, required: boolean): Effect.Effect<boolean>
  /**
   * Serializes, within the calling transaction, what decides on the partner's live token: the setting changing and
   * a live token being issued, so neither acts on what the other is changing.
   */
  lockPartner(partnerId: number): Effect.Effect<void>
}>()("partner-api/wallet/certification/CertificationRepo") {
  static readonly layerSql = Layer.effect(
    CertificationRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { certificationRunsPerHour, timeout } = yield* CallbacksConfig
      const staleAfter = staleAfterOf(timeout)
      const stale = sql`r.status = 'running' AND r.updated_at < now() - make_interval(secs => ${
        Duration.toSeconds(staleAfter)
      })`
      const runColumns = sql`
        r.id, r.public_id, r.partner_id, r.external_player_id, r.currency, r.callback_url, r.partner_wallet,
        r.started_by, r.started_via,
        CASE WHEN ${stale} THEN 'interrupted' ELSE r.status END AS status,
        CASE WHEN ${stale} THEN ${abandoned} ELSE r.summary END AS summary,
        r.timeout_ms, r.started_at, r.finished_at`

      const insertRun = SqlSchema.findOneOption({
        Request: Schema.Struct({
          id: Schema.String,
          partnerId: Schema.Int,
          externalPlayerId: Schema.String,
          currency: Schema.String,
          callbackUrl: Schema.String,
          partnerWallet: Schema.Boolean,
          startedBy: Schema.String,
          startedVia: StartedViaSchema,
          timeoutMillis: Schema.Int
        }),
        Result: RunRow,
        execute: (run) =>
          sql`
            INSERT INTO wallet_certifications AS r
              (public_id, partner_id, external_player_id, currency, callback_url, partner_wallet, started_by, started_via,
               timeout_ms)
            VALUES (${run.id}, ${run.partnerId}, ${run.externalPlayerId}, ${run.currency}, ${run.callbackUrl},
                    ${run.partnerWallet}, ${run.startedBy}, ${run.startedVia}, ${run.timeoutMillis})
            ON CONFLICT (partner_id) WHERE status = 'running' DO NOTHING
            RETURNING ${runColumns}
          `
      })

      const lockPartner = (partnerId: number) =>
        // Keyed apart from every other advisory lock of the service by the table's own oid.
        sql`SELECT pg_advisory_xact_lock('wallet_certification_requirements'::regclass::oid::int, ${partnerId}::int)`
          .pipe(Effect.asVoid, Effect.orDie)

      const startsInWindow = SqlSchema.findAll({
        Request: Schema.Int,
        Result: Schema.Struct({ now: Schema.Date, startedAt: Schema.NullOr(Schema.Date) }).pipe(
          Schema.encodeKeys({ startedAt: "started_at" })
        ),
        // The transaction's now() with each start: one clock for the count and the message.
        execute: (partnerId) =>
          sql`
            SELECT now() AS now, r.started_at FROM (SELECT 1) AS one
            LEFT JOIN wallet_certifications r ON r.partner_id = ${partnerId}
              AND r.started_at > now() - make_interval(secs => ${Duration.toSeconds(runsWindow)})
          `
      })

      const insert = (run: NewCertification) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lockPartner(run.partnerId)
          // The run of an instance that died is closed first, so it does not hold the partner's turn forever.
          yield* sql`
            UPDATE wallet_certifications r SET status = 'interrupted', summary = ${abandoned}, finished_at = now()
            WHERE r.partner_id = ${run.partnerId} AND ${stale}
          `
          if (run.startedVia === "api") {
            const rows = yield* startsInWindow(run.partnerId)
            const now = rows[0].now
            const starts = rows.flatMap((row) => row.startedAt === null ? [] : [row.startedAt])
            const nextAt = nextRunAt(starts, certificationRunsPerHour, now)
            if (nextAt !== null) {
              return yield* new CertificationRunsLimited({ perHour: certificationRunsPerHour, nextAt, now })
            }
          }
          const inserted = yield* insertRun(run)
          if (Option.isSome(inserted)) return summaryOf(inserted.value)
          const [running] = yield* runningRows(
            sql`SELECT public_id FROM wallet_certifications WHERE partner_id = ${run.partnerId} AND status = 'running'`
          )
          return yield* new CertificationInProgress({ id: running?.id ?? "another run" })
        })).pipe(Effect.catchTags({ SqlError: Effect.die, SchemaError: Effect.die }))

      const recordCase = (id: string, position: number, result: CaseResult) =>
        sql`
          WITH run AS (
            UPDATE wallet_certifications SET updated_at = now() WHERE public_id = ${id} RETURNING id
          )
          INSERT INTO wallet_certification_cases
            (certification_id, position, case_key, status, reason, balance_before, expected_balance, balance_after,
             timing, exchanges, finished_at)
          SELECT run.id, ${position}, ${result.key}, ${result.status}, ${result.reason}, ${
          amount(result.balanceBefore)
        },
                 ${amount(result.expectedBalance)}, ${amount(result.balanceAfter)},
                 ${result.timing === null ? null : JSON.stringify(result.timing)}::jsonb,
                 ${JSON.stringify(encodeExchanges(result.exchanges))}::jsonb, ${result.finishedAt}
          FROM run
        `.pipe(Effect.asVoid, Effect.orDie)

      const finish = (id: string, status: Exclude<CertificationStatus, "running">, summary: string) =>
        sql`
          UPDATE wallet_certifications SET status = ${status}, summary = ${summary}, finished_at = now(), updated_at = now()
          WHERE public_id = ${id} AND status = 'running'
        `.pipe(Effect.asVoid, Effect.orDie)

      const findRun = SqlSchema.findOneOption({
        Request: Schema.Struct({ id: Schema.String, partnerId: Schema.NullOr(Schema.Int) }),
        Result: RunRow,
        execute: ({ id, partnerId }) =>
          sql`SELECT ${runColumns} FROM wallet_certifications r
              WHERE r.public_id = ${id} AND (${partnerId}::bigint IS NULL OR r.partner_id = ${partnerId})`
      })
      const casesOf = SqlSchema.findAll({
        Request: Schema.Int,
        Result: CaseRow,
        execute: (ref) =>
          sql`
            SELECT certification_id, position, case_key, status, reason, balance_before, expected_balance, balance_after,
                   timing, exchanges, finished_at
            FROM wallet_certification_cases WHERE certification_id = ${ref} ORDER BY position
          `
      })
      const find = (id: string, partnerId?: number) =>
        Effect.gen(function*() {
          const run = yield* findRun({ id, partnerId: partnerId ?? null })
          if (Option.isNone(run)) return Option.none<Certification>()
          const found = yield* casesOf(run.value.ref)
          return Option.some<Certification>({
            ...summaryOf(run.value),
            cases: found.map(({ certificationRef: _, ...result }) => result)
          })
        }).pipe(Effect.orDie)

      const casesPage = SqlSchema.findAll({
        Request: Schema.Struct({ ref: Schema.Int, limit: Schema.Int, offset: Schema.Int }),
        Result: CaseRow,
        execute: ({ limit, offset, ref }) =>
          sql`
            SELECT certification_id, position, case_key, status, reason, balance_before, expected_balance, balance_after,
                   timing, exchanges, finished_at
            FROM wallet_certification_cases WHERE certification_id = ${ref} ORDER BY position
            LIMIT ${limit} OFFSET ${offset}
          `
      })
      const casesCount = SqlSchema.findOne({
        Request: Schema.Int,
        Result: Schema.Struct({ n: Schema.Int }),
        execute: (ref) => sql`SELECT count(*)::int AS n FROM wallet_certification_cases WHERE certification_id = ${ref}`
      })
      const findPage = (id: string, partnerId: number, cases: PageRequest) =>
        Effect.gen(function*() {
          const run = yield* findRun({ id, partnerId })
          if (Option.isNone(run)) return Option.none<CertificationReport>()
          const found = yield* casesPage({ ref: run.value.ref, ...pageWindow(cases) })
          const { n } = yield* casesCount(run.value.ref)
          return Option.some<CertificationReport>({
            run: { ...summaryOf(run.value), cases: found.map(({ certificationRef: _, ...result }) => result) },
            casesFinished: n
          })
        }).pipe(Effect.orDie)

      const runsPage = SqlSchema.findAll({
        Request: Schema.Struct({ partnerId: Schema.Int, limit: Schema.Int, offset: Schema.Int }),
        Result: RunRow,
        execute: ({ limit, offset, partnerId }) =>
          sql`SELECT ${runColumns} FROM wallet_certifications r WHERE r.partner_id = ${partnerId}
              ORDER BY r.id DESC LIMIT ${limit} OFFSET ${offset}`
      })
      const runsCount = SqlSchema.findOne({
        Request: Schema.Int,
        Result: Schema.Struct({ n: Schema.Int }),
        execute: (partnerId) =>
          sql`SELECT count(*)::int AS n FROM wallet_certifications WHERE partner_id = ${partnerId}`
      })
      const listPage = (partnerId: number, page: PageRequest) =>
        Effect.all([runsPage({ partnerId, ...pageWindow(page) }), runsCount(partnerId)]).pipe(
          Effect.map(([rows, { n }]) => pageOf(page, rows.map(summaryOf), n)),
          Effect.orDie
        )

      const prune = (olderThan: Duration.Duration) =>
        sql`
          DELETE FROM wallet_certifications r
          WHERE r.started_at < now() - make_interval(secs => ${Duration.toSeconds(olderThan)})
            AND r.id IS DISTINCT FROM (
              SELECT latest.id FROM wallet_certifications latest
              WHERE latest.partner_id = r.partner_id AND latest.partner_wallet AND latest.status IN ('passed', 'failed')
              ORDER BY latest.id DESC LIMIT 1
            )
          RETURNING r.id
        `.pipe(Effect.map((rows) => rows.length), Effect.orDie)

      const list = SqlSchema.findAll({
        Request: Schema.Struct({ partnerId: Schema.Int, limit: Schema.Int }),
        Result: RunRow,
        execute: ({ limit, partnerId }) =>
          sql`SELECT ${runColumns} FROM wallet_certifications r WHERE r.partner_id = ${partnerId} ORDER BY r.id DESC LIMIT ${limit}`
      })

      const requirement = SqlSchema.findOne({
        Request: Schema.Int,
        Result: Schema.Struct({
          required: Schema.Boolean,
          latest: Schema.NullOr(
            Schema.Struct({ status: Schema.Literals(["passed", "failed"]), callbackUrl: Schema.String })
          )
        }),
        execute: (partnerId) =>
          sql`
            SELECT EXISTS (SELECT 1 FROM wallet_certification_requirements WHERE partner_id = ${partnerId}) AS required,
                   (SELECT json_build_object('status', status, 'callbackUrl', callback_url) FROM wallet_certifications
                    WHERE partner_id = ${partnerId} AND partner_wallet AND status IN ('passed', 'failed')
                    ORDER BY id DESC LIMIT 1) AS latest
          `
      })

      // A claim lapses after this long: the instance recovering the run died, and another takes it over.
      const claimFor = sql`make_interval(secs => ${Duration.toSeconds(recoveryClaim)})`
      const claimInterrupted = SqlSchema.findOneOption({
        Request: Schema.Void,
        Result: InterruptedRow,
        execute: () =>
          sql`
            WITH candidate AS (
              SELECT r.id FROM wallet_certifications r
              WHERE r.recovered_at IS NULL AND (r.status IN ('interrupted', 'not_run') OR ${stale})
                AND (r.recovery_started_at IS NULL OR r.recovery_started_at < now() - ${claimFor})
              ORDER BY r.id LIMIT 1
              FOR UPDATE SKIP LOCKED
            )
            UPDATE wallet_certifications r
            SET recovery_started_at = now(),
                summary = CASE WHEN r.status = 'running' THEN ${abandoned} ELSE r.summary END,
                status = CASE WHEN r.status = 'running' THEN 'interrupted' ELSE r.status END,
                finished_at = COALESCE(r.finished_at, now())
            FROM candidate WHERE r.id = candidate.id
            RETURNING r.public_id, r.partner_id, r.external_player_id, r.currency, r.started_at,
              (SELECT c.balance_after FROM wallet_certification_cases c
               WHERE c.certification_id = r.id AND c.case_key = 'balance' AND c.status = 'passed') AS start
          `
      })

      const setRequired = (partnerId: number, required: boolean) =>
        (required
          ? sql`INSERT INTO wallet_certification_requirements (partner_id) VALUES (${partnerId}) ON CONFLICT DO NOTHING RETURNING partner_id`
          : sql`DELETE FROM wallet_certification_requirements WHERE partner_id = ${partnerId} RETURNING partner_id`)
          .pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)

      return CertificationRepo.of({
        insert,
        recordCase,
        finish,
        find,
        findPage,
        list: (partnerId, limit) =>
          list({ partnerId, limit }).pipe(Effect.map((rows) => rows.map(summaryOf)), Effect.orDie),
        listPage,
        prune,
        requirement: (partnerId) => Effect.orDie(requirement(partnerId)),
        claimInterrupted: Effect.orDie(claimInterrupted(undefined)),
        recovered: (id, note) =>
          sql`
            UPDATE wallet_certifications
            SET recovered_at = now(), summary = concat_ws(' ', summary, ${note}::text), updated_at = now()
            WHERE public_id = ${id}
          `.pipe(Effect.asVoid, Effect.orDie),
        setRequired,
        lockPartner
      })
    })
  )
}
