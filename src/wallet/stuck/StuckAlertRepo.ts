import { Clock, Context, Duration, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Environment } from "../../domain/Environment.ts"
import { type StuckItem, StuckKind } from "../../domain/Stuck.ts"
import { IdFromBigInt, interval } from "../../platform/SqlCodecs.ts"

/** Where an item's operator alert stands: not wanted (no OPERATOR_ALERT_URL then), to send, sent, given up. */
export const AlertStatus = Schema.Literals(["off", "pending", "sent", "failed"])
export type AlertStatus = typeof AlertStatus.Type

/** A stuck item as the fleet recorded it when it first noticed it, with its alert's state. */
export const StuckAlert = Schema.Struct({
  id: IdFromBigInt,
  kind: StuckKind,
  ref: IdFromBigInt,
  partnerId: IdFromBigInt,
  environment: Environment,
  subject: Schema.String,
  externalPlayerId: Schema.NullOr(Schema.String),
  since: Schema.Date,
  detail: Schema.String,
  firstSeenAt: Schema.Date,
  lastSeenAt: Schema.Date,
  resolvedAt: Schema.NullOr(Schema.Date),
  alertStatus: AlertStatus,
  alertAttempts: Schema.Int,
  alertLastError: Schema.NullOr(Schema.String),
  alertNextAt: Schema.NullOr(Schema.Date),
  alertedAt: Schema.NullOr(Schema.Date)
}).pipe(Schema.encodeKeys({
  ref: "item_ref",
  partnerId: "partner_id",
  externalPlayerId: "external_player_id",
  firstSeenAt: "first_seen_at",
  lastSeenAt: "last_seen_at",
  resolvedAt: "resolved_at",
  alertStatus: "alert_status",
  alertAttempts: "alert_attempts",
  alertLastError: "alert_last_error",
  alertNextAt: "alert_next_at",
  alertedAt: "alerted_at"
}))
export type StuckAlert = typeof StuckAlert.Type

const columns = `id, kind, item_ref, partner_id, environment, subject, external_player_id, since, detail, first_seen_at,
  last_seen_at, resolved_at, alert_status, alert_attempts, alert_last_error, alert_next_at, alerted_at`
const decodeAlerts = Schema.decodeUnknownEffect(Schema.Array(StuckAlert))

/** An item the fleet had not seen before (its row was just inserted): the one sighting that alerts. */
const Recorded = Schema.Struct({
  kind: StuckKind,
  subject: Schema.String,
  partnerId: IdFromBigInt,
  environment: Environment,
  inserted: Schema.Boolean
}).pipe(Schema.encodeKeys({ partnerId: "partner_id" }))
export type NewlyStuck = typeof Recorded.Type
const decodeRecorded = Schema.decodeUnknownEffect(Schema.Array(Recorded))

/**
 * The stuck items the fleet noticed (stuck_alerts), the only code that reads or writes them. An item is one
 * row, keyed by its kind and the id of its own row: whichever instance records it first inserts it, every other
 * sighting only says it is still there. Its alert is sent from that one row, claimed for a while by whoever
 * sends it, so an item's alert goes out once however many instances look.
 */
export class StuckAlertRepo extends Context.Service<StuckAlertRepo, {
  /**
   * Records what is stuck now: new items get a row (their alert `pending` when `alerting`, else `off`); those
   * known are marked seen again (and unresolved, if they had been resolved: the same item, never a second alert).
   * The items new to the fleet.
   */
  record(items: ReadonlyArray<StuckItem>, alerting: boolean): Effect.Effect<ReadonlyArray<NewlyStuck>>
  /** Marks resolved the unresolved items of `kind` not among `seen` (refs): they are no longer stuck. */
  resolveUnseen(kind: StuckKind, seen: ReadonlyArray<number>): Effect.Effect<void>
  /** Claims alerts due for sending (each for `lease`: no one else sends it meanwhile), oldest first. */
  claimDue(limit: number, lease: Duration.Duration): Effect.Effect<ReadonlyArray<StuckAlert>>
  markSent(id: number): Effect.Effect<void>
  /** A failed attempt: tried again after `retryAfter`, or given up for good (`failed`) when it is null. */
  markFailed(id: number, error: string, retryAfter: Duration.Duration | null): Effect.Effect<void>
  /** The items still stuck and those resolved within `resolvedWithin`, newest first. */
  recent(resolvedWithin: Duration.Duration, limit: number): Effect.Effect<ReadonlyArray<StuckAlert>>
}>()("partner-api/wallet/StuckAlertRepo") {
  static readonly layerSql = Layer.effect(
    StuckAlertRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const selected = sql.literal(columns)

      const record = (items: ReadonlyArray<StuckItem>, alerting: boolean) => {
        if (items.length === 0) return Effect.succeed([])
        const rows = items.map((item) => ({
          kind: item.kind,
          item_ref: item.ref,
          partner_id: item.partnerId,
          environment: item.environment,
          subject: item.subject,
          external_player_id: item.externalPlayerId,
          since: item.since.toISOString(),
          detail: item.detail
        }))
        return sql`
          INSERT INTO stuck_alerts (kind, item_ref, partner_id, environment, subject, external_player_id, since, detail,
                                    alert_status, alert_next_at)
          SELECT r.kind, r.item_ref, r.partner_id, r.environment, r.subject, r.external_player_id, r.since, r.detail,
                 ${alerting ? "pending" : "off"}, CASE WHEN ${alerting} THEN now() END
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(kind text, item_ref bigint, partner_id bigint,
            environment text, subject text, external_player_id text, since timestamptz, detail text)
          ON CONFLICT (kind, item_ref) DO UPDATE SET last_seen_at = now(), resolved_at = NULL
          RETURNING kind, subject, partner_id, environment, (xmax = 0) AS inserted
        `.pipe(
          Effect.flatMap(decodeRecorded),
          Effect.map((recorded) => recorded.filter((row) => row.inserted)),
          Effect.orDie
        )
      }

      const recent = SqlSchema.findAll({
        Request: Schema.Struct({ withinMillis: Schema.Number, limit: Schema.Int }),
        Result: StuckAlert,
        execute: ({ limit, withinMillis }) =>
          sql`
            SELECT ${selected} FROM stuck_alerts
            WHERE resolved_at IS NULL OR resolved_at > now() - ${`${withinMillis} milliseconds`}::interval
            ORDER BY (resolved_at IS NULL) DESC, first_seen_at DESC, id DESC
            LIMIT ${limit}
          `
      })

      return StuckAlertRepo.of({
        record,
        resolveUnseen: (kind, seen) =>
          sql`
            UPDATE stuck_alerts SET resolved_at = now()
            WHERE kind = ${kind} AND resolved_at IS NULL AND item_ref <> ALL(${seen}::bigint[])
          `.pipe(Effect.asVoid, Effect.orDie),
        claimDue: (limit, lease) =>
          sql`
            UPDATE stuck_alerts SET alert_next_at = now() + ${interval(lease)}::interval
            WHERE id IN (
              SELECT id FROM stuck_alerts WHERE alert_status = 'pending' AND alert_next_at <= now()
              ORDER BY alert_next_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
            )
            RETURNING ${selected}
          `.pipe(Effect.flatMap(decodeAlerts), Effect.orDie),
        markSent: (id) =>
          sql`
            UPDATE stuck_alerts
            SET alert_status = 'sent', alerted_at = now(), alert_attempts = alert_attempts + 1, alert_next_at = NULL,
                alert_last_error = NULL
            WHERE id = ${id}
          `.pipe(Effect.asVoid, Effect.orDie),
        markFailed: (id, error, retryAfter) =>
          (retryAfter === null
            ? sql`
              UPDATE stuck_alerts
              SET alert_status = 'failed', alert_attempts = alert_attempts + 1, alert_last_error = ${error}, alert_next_at = NULL
              WHERE id = ${id}
            `
            : sql`
              UPDATE stuck_alerts
              SET alert_attempts = alert_attempts + 1, alert_last_error = ${error},
                  alert_next_at = now() + ${interval(retryAfter)}::interval
              WHERE id = ${id}
            `).pipe(Effect.asVoid, Effect.orDie),
        recent: (within, limit) => Effect.orDie(recent({ withinMillis: Duration.toMillis(within), limit }))
      })
    })
  )

  /**
   * The same rules over memory, for tests without PostgreSQL: one row per kind and ref (a sighting of a known item
   * marks it seen and unresolved, never a second alert), claims oldest-due first for their lease, times by the Clock.
   * Its partners are not checked (the SQL's foreign key is).
   */
  static readonly layerMemory = Layer.sync(StuckAlertRepo, () => {
    const rows: Array<StuckAlert> = []
    let nextId = 1
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const save = (row: StuckAlert, change: Partial<StuckAlert>) => {
      rows[rows.indexOf(row)] = { ...row, ...change }
    }
    const byId = (id: number) => rows.find((row) => row.id === id)
    return StuckAlertRepo.of({
      record: (items, alerting) =>
        Effect.map(now, (at) => {
          const keys = items.map((item) => `${item.kind}:${item.ref}`)
          // One statement cannot touch a row twice (ON CONFLICT DO UPDATE refuses it), and nothing is written then.
          if (new Set(keys).size !== keys.length) {
            throw new Error("ON CONFLICT DO UPDATE command cannot affect row a second time")
          }
          const inserted: Array<NewlyStuck> = []
          for (const item of items) {
            const known = rows.find((row) => row.kind === item.kind && row.ref === item.ref)
            if (known !== undefined) {
              save(known, { lastSeenAt: at, resolvedAt: null })
              continue
            }
            rows.push({
              id: nextId++,
              kind: item.kind,
              ref: item.ref,
              partnerId: item.partnerId,
              environment: item.environment,
              subject: item.subject,
              externalPlayerId: item.externalPlayerId,
              since: item.since,
              detail: item.detail,
              firstSeenAt: at,
              lastSeenAt: at,
              resolvedAt: null,
              alertStatus: alerting ? "pending" : "off",
              alertAttempts: 0,
              alertLastError: null,
              alertNextAt: alerting ? at : null,
              alertedAt: null
            })
            inserted.push({
              kind: item.kind,
              subject: item.subject,
              partnerId: item.partnerId,
              environment: item.environment,
              inserted: true
            })
          }
          return inserted
        }),
      resolveUnseen: (kind, seen) =>
        Effect.map(now, (at) => {
          for (const row of rows) {
            if (row.kind === kind && row.resolvedAt === null && !seen.includes(row.ref)) save(row, { resolvedAt: at })
          }
        }),
      claimDue: (limit, lease) =>
        Effect.map(now, (at) => {
          const due = rows
            .filter((row) =>
              row.alertStatus === "pending" && row.alertNextAt !== null && row.alertNextAt.getTime() <= at.getTime()
            )
            .sort((a, b) => a.alertNextAt!.getTime() - b.alertNextAt!.getTime() || a.id - b.id)
            .slice(0, limit)
          const until = new Date(at.getTime() + Duration.toMillis(lease))
          for (const row of due) save(row, { alertNextAt: until })
          return due.map((row) => byId(row.id)!)
        }),
      markSent: (id) =>
        Effect.map(now, (at) => {
          const row = byId(id)
          if (row !== undefined) {
            save(row, {
              alertStatus: "sent",
              alertedAt: at,
              alertAttempts: row.alertAttempts + 1,
              alertNextAt: null,
              alertLastError: null
            })
          }
        }),
      markFailed: (id, error, retryAfter) =>
        Effect.map(now, (at) => {
          const row = byId(id)
          if (row === undefined) return
          save(
            row,
            retryAfter === null
              ? {
                alertStatus: "failed",
                alertAttempts: row.alertAttempts + 1,
                alertLastError: error,
                alertNextAt: null
              }
              : {
                alertAttempts: row.alertAttempts + 1,
                alertLastError: error,
                alertNextAt: new Date(at.getTime() + Duration.toMillis(retryAfter))
              }
          )
        }),
      recent: (within, limit) =>
        Effect.map(now, (at) =>
          rows
            .filter((row) =>
              row.resolvedAt === null || row.resolvedAt.getTime() > at.getTime() - Duration.toMillis(within)
            )
            .sort((a, b) =>
              Number(b.resolvedAt === null) - Number(a.resolvedAt === null) ||
              b.firstSeenAt.getTime() - a.firstSeenAt.getTime() || b.id - a.id
            )
            .slice(0, limit))
    })
  })
}
