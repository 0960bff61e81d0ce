import { Clock, Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
import type { Actor, AuditEntry } from "../domain/Admin.ts"
import { IdFromBigInt } from "../platform/SqlCodecs.ts"

const AuditRow = Schema.Struct({
  id: IdFromBigInt,
  at: Schema.Date,
  actor: Schema.String,
  via: Schema.Literals(["console", "cli", "portal"]),
  action: Schema.String,
  target: Schema.String,
  before: Schema.Unknown,
  after: Schema.Unknown
})

export interface AuditFilter {
  readonly target?: string | undefined
  readonly actor?: string | undefined
  /** Only changes of this action (the portal's delivery log reads its test callbacks this way). */
  readonly action?: string | undefined
  /** Only changes whose `after` has these top-level values (`environment: "test"`), as jsonb's `@>` compares. */
  readonly afterHas?: Readonly<Record<string, string>> | undefined
  readonly limit: number
}

/** The audit trail (admin_audit): appended to, never changed. */
export class AuditRepo extends Context.Service<AuditRepo, {
  record(
    actor: Actor,
    change: { action: string; target: string; before?: unknown; after?: unknown }
  ): Effect.Effect<void>
  /**
   * Runs a change and the `record` of it in one transaction, so neither is kept without the other (a
   * database failure is a defect, as elsewhere).
   */
  atomically<A, E, R>(changeAndRecord: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** Newest first. */
  list(filter: AuditFilter): Effect.Effect<ReadonlyArray<AuditEntry>>
}>()("partner-api/identity/AuditRepo") {
  static readonly layerSql = Layer.effect(
    AuditRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const list = SqlSchema.findAll({
        Request: Schema.Struct({
          target: Schema.NullOr(Schema.String),
          actor: Schema.NullOr(Schema.String),
          action: Schema.NullOr(Schema.String),
          afterHas: Schema.NullOr(Schema.String),
          limit: Schema.Int
        }),
        Result: AuditRow,
        execute: ({ action, actor, afterHas, limit, target }) =>
          sql`
            SELECT id, at, actor, via, action, target, before, after FROM admin_audit
            WHERE (${target}::text IS NULL OR target = ${target}) AND (${actor}::text IS NULL OR actor = ${actor})
              AND (${action}::text IS NULL OR action = ${action})
              AND (${afterHas}::jsonb IS NULL OR after @> ${afterHas}::jsonb)
            ORDER BY at DESC, id DESC LIMIT ${limit}
          `
      })
      const json = (value: unknown) => value === undefined || value === null ? null : JSON.stringify(value)
      return AuditRepo.of({
        atomically: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, Effect.die)) as Effect.Effect<A, E, R>,
        record: (actor, change) =>
          sql`
            INSERT INTO admin_audit (actor, via, action, target, before, after)
            VALUES (${actor.name}, ${actor.via}, ${change.action}, ${change.target},
                    ${json(change.before)}::jsonb, ${json(change.after)}::jsonb)
          `.pipe(Effect.asVoid, Effect.orDie),
        list: (filter) =>
          list({
            target: filter.target ?? null,
            actor: filter.actor ?? null,
            action: filter.action ?? null,
            afterHas: filter.afterHas === undefined ? null : JSON.stringify(filter.afterHas),
            limit: filter.limit
          }).pipe(Effect.orDie)
      })
    })
  )

  /**
   * The trail over memory, for tests without PostgreSQL. `atomically` runs the change as it is: memory
   * has no transaction to roll back, so a test of "no row without its change" needs the SQL layer.
   */
  static readonly layerMemory = Layer.sync(AuditRepo, () => {
    const entries: Array<AuditEntry> = []
    // Stored as the database would hand it back: JSON, so no reference to a live object is kept.
    const json = (value: unknown) => value === undefined || value === null ? null : JSON.parse(JSON.stringify(value))
    return AuditRepo.of({
      atomically: (effect) => effect,
      record: (actor, change) =>
        Effect.map(Clock.currentTimeMillis, (millis) => {
          entries.push({
            id: entries.length + 1,
            at: new Date(millis),
            actor: actor.name,
            via: actor.via,
            action: change.action,
            target: change.target,
            before: json(change.before),
            after: json(change.after)
          })
        }),
      list: (filter) =>
        Effect.sync(() =>
          entries
            .filter((entry) =>
              (filter.target === undefined || entry.target === filter.target) &&
              (filter.actor === undefined || entry.actor === filter.actor) &&
              (filter.action === undefined || entry.action === filter.action) &&
              Object.entries(filter.afterHas ?? {}).every(([key, value]) =>
                (entry.after as Record<string, unknown> | null)?.[key] === value
              )
            )
            .sort((a, b) => b.at.getTime() - a.at.getTime() || b.id - a.id)
            .slice(0, filter.limit)
        )
    })
  })
}
