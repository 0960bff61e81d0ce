import { PgClient } from "@effect/sql-pg"
import { type Duration, Effect, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { Callback } from "../../domain/Callbacks.ts"
import { drainBatch, type HeldQueue, type QueueRelease } from "../../domain/DeliveryQueue.ts"
import { Environment } from "../../domain/Environment.ts"
import * as ChangeFeed from "../../platform/ChangeFeed.ts"
import { IdFromBigInt, interval } from "../../platform/SqlCodecs.ts"
import type { ClaimedQueue, QueueHead, RunMarks } from "./OutboxShape.ts"

/**
 * The players' delivery queues over PostgreSQL (partner_callback_queues), part of OutboxRepo.layerSql: a row per
 * player with notifications to deliver, claimed by a worker (locked_by, locked_at). Its SQL is here and nowhere else; the
 * wallet's statements schedule queues through `queuesScheduling`.
 */

/** Announced (NOTIFY, at commit) by every statement that makes a queue due: the workers wake and claim. */
export const callbacksWrittenChannel = "partner_callbacks_written"

/**
 * The statement (or the body of a WITH part) that makes the queues of the players `players` selects (a column
 * `player_id`) due, and announces it: see OutboxRepoShape.scheduleQueue for `mode`. It always writes the row, even
 * unchanged: its lock is what a holder forgetting an emptied queue waits for, and its new version (xmin) what tells that
 * holder a notification was committed meanwhile (see `forget`).
 */
export const queuesScheduling = (sql: SqlClient.SqlClient, players: Statement.Fragment, mode: "preserve" | "now") => {
  const keepsItsTime = sql.literal(
    mode === "preserve" ? "queue.attempts = 0 AND queue.next_attempt_at IS NOT NULL" : "false"
  )
  return sql`
    INSERT INTO partner_callback_queues AS queue (player_id)
    ${players}
    ON CONFLICT (player_id) DO UPDATE
    SET attempts = 0, next_attempt_at = CASE WHEN ${keepsItsTime} THEN queue.next_attempt_at ELSE now() END
    RETURNING queue.player_id, pg_notify(${callbacksWrittenChannel}, '')
  `
}

/** What delivering the head of a delivery queue needs. */
export const HeadRow = Schema.Struct({
  id: IdFromBigInt,
  eventId: Schema.String,
  kind: Callback.fields.kind,
  body: Schema.String,
  partnerId: IdFromBigInt,
  environment: Environment
}).pipe(Schema.encodeKeys({ eventId: "event_id", partnerId: "partner_id" }))
const decodeHeads = Schema.decodeUnknownEffect(Schema.Array(HeadRow))

/** A claimed queue's row, once per notification of its head batch (once with a NULL id when the batch is empty). */
const ClaimedRow = Schema.Struct({
  player_id: IdFromBigInt,
  attempts: Schema.Int,
  lease: Schema.String,
  id: Schema.NullOr(Schema.Unknown)
})
const decodeClaimed = Schema.decodeUnknownEffect(Schema.Array(ClaimedRow))
const QueueStats = Schema.Struct({ queued: Schema.Int, locked: Schema.Int, failing: Schema.Int })
const decodeQueueStats = Schema.decodeUnknownEffect(Schema.Array(QueueStats))

/** A player's undelivered notifications (`player`: their id, or a column): their delivery queue's content. */
export const undelivered = (sql: SqlClient.SqlClient, player: Statement.Fragment) =>
  sql`
    SELECT id, event_id, kind, body, partner_id, environment FROM partner_callbacks
    WHERE player_id = ${player} AND status <> 'delivered' AND kind <> 'bet'
  `

/** Marks notifications delivered: a statement, or the body of a WITH part. */
export const deliveredMarking = (sql: SqlClient.SqlClient, ids: ReadonlyArray<number>) =>
  sql`
    UPDATE partner_callbacks
    SET status = 'delivered', attempts = attempts + 1, last_error = NULL, delivered_at = now()
    WHERE id = ANY(${ids}::bigint[])
  `

/** Marks a failed attempt (see OutboxRepoShape.markFailed): a statement, or the body of a WITH part. */
export const failedMarking = (sql: SqlClient.SqlClient, failed: NonNullable<RunMarks["failed"]>) =>
  sql`
    UPDATE partner_callbacks
    SET attempts = attempts + 1, last_error = ${failed.error}, status = ${failed.final ? "failed" : "pending"}
    WHERE id = ${failed.id} AND status <> 'delivered'
  `

const noMarks: RunMarks = { delivered: [] }

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient

  const scheduleQueue = (playerId: number, mode: "preserve" | "now") =>
    queuesScheduling(sql, sql`VALUES (${playerId}::bigint)`, mode).pipe(Effect.asVoid, Effect.orDie)

  /** The claimed queues from the claim's rows (ordered by player, then by notification: a queue's rows in a run). */
  const claimedFrom = (holder: string) =>
    Effect.fnUntraced(function*(raw: ReadonlyArray<unknown>) {
      const rows = yield* decodeClaimed(raw)
      const heads = yield* decodeHeads(raw.filter((_, i) => rows[i].id !== null))
      const queues: Array<ClaimedQueue & { readonly batch: Array<QueueHead> }> = []
      let next = 0
      for (const row of rows) {
        let queue = queues.at(-1)
        if (queue?.playerId !== row.player_id) {
          queue = { playerId: row.player_id, holder, attempts: row.attempts, lease: row.lease, batch: [] }
          queues.push(queue)
        }
        if (row.id !== null) queue.batch.push(heads[next++])
      }
      return queues
    })

  // One statement: the due queues no one holds, or whose holder kept them past `staleAfter` (a crashed instance),
  // their rows locked only while it runs (a writer's lock is skipped, not waited for), each with its head batch.
  // The batch is read in the statement's snapshot, taken when it began: a notification whose writer committed after
  // that, and before the claim locked its queue's row, is not in it, so an emptied batch is not an emptied queue
  // (`forget` looks again). The lease is the row's version as the claim wrote it (xmin, the claim's transaction).
  const claim = (holder: string, limit: number, staleAfter: Duration.Duration) => {
    const stale = sql`now() - ${interval(staleAfter)}::interval`
    return sql`
      WITH claimed AS (
        UPDATE partner_callback_queues queue
        SET locked_by = ${holder}, locked_at = now()
        FROM (
          SELECT player_id FROM partner_callback_queues
          WHERE next_attempt_at <= now() AND (locked_at IS NULL OR locked_at < ${stale})
          ORDER BY next_attempt_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) due
        WHERE queue.player_id = due.player_id
        RETURNING queue.player_id, queue.attempts, queue.xmin::text AS lease
      )
      SELECT claimed.player_id, claimed.attempts, claimed.lease, head.*
      FROM claimed
      LEFT JOIN LATERAL (${undelivered(sql, sql`claimed.player_id`)} ORDER BY id LIMIT ${drainBatch}) head ON true
      ORDER BY claimed.player_id, head.id
    `.pipe(Effect.flatMap(claimedFrom(holder)), Effect.orDie)
  }

  /** The run's marks, as the WITH parts of its release's statement. */
  const marking = (marks: RunMarks) => [
    ...(marks.delivered.length === 0 ? [] : [sql`delivered AS (${deliveredMarking(sql, marks.delivered)})`]),
    ...(marks.failed === undefined ? [] : [sql`failed AS (${failedMarking(sql, marks.failed)})`])
  ]

  const handBack = (queue: HeldQueue, marks: RunMarks, attempts: number, next: Statement.Fragment) =>
    sql`
      ${sql.csv("WITH", marking(marks))}
      UPDATE partner_callback_queues
      SET locked_by = NULL, locked_at = NULL, attempts = ${attempts}, next_attempt_at = ${next}
      WHERE player_id = ${queue.playerId} AND locked_by = ${queue.holder}
    `

  /**
   * An emptied queue is forgotten (its row deleted) unless a notification is left, or handed back due at once, in one
   * statement with the run's marks. A notification is written with its queue's row (queuesScheduling), so:
   * - one committed before this statement began is in its snapshot: NOT EXISTS sees it (not the marks this statement
   *   writes, hence the notifications they mark left out by id);
   * - one whose writer holds the row when the DELETE reaches it is not in the snapshot, but the DELETE waits for the
   *   writer, then checks its conditions again on the row as the writer left it (READ COMMITTED's recheck), whose
   *   xmin is no longer the lease: nothing is deleted, and the UPDATE hands the queue back;
   * - one whose writer comes after the DELETE waits for this statement and writes the row anew.
   * A row written since the claim by anyone else (a catch-up's scheduling) is kept too: one more run finds it empty.
   */
  const forget = (queue: HeldQueue, marks: RunMarks) => {
    const forgotten = sql`
      forgotten AS (
        DELETE FROM partner_callback_queues
        WHERE player_id = ${queue.playerId} AND locked_by = ${queue.holder} AND xmin = ${queue.lease}::xid
          AND NOT EXISTS (${undelivered(sql, sql`${queue.playerId}`)} AND id <> ALL(${marks.delivered}::bigint[]))
        RETURNING player_id
      )
    `
    // The hand-back reads `forgotten`, so it runs after the DELETE, and only when nothing was deleted.
    return sql`
      ${sql.csv("WITH", [...marking(marks), forgotten])}
      UPDATE partner_callback_queues
      SET locked_by = NULL, locked_at = NULL, attempts = 0, next_attempt_at = now()
      WHERE player_id = ${queue.playerId} AND locked_by = ${queue.holder} AND NOT EXISTS (SELECT 1 FROM forgotten)
    `
  }

  const release = (queue: HeldQueue, release: QueueRelease, marks: RunMarks = noMarks) => {
    switch (release._tag) {
      case "Emptied":
        return forget(queue, marks).pipe(Effect.asVoid, Effect.orDie)
      case "Due":
        return handBack(queue, marks, 0, sql`now()`).pipe(Effect.asVoid, Effect.orDie)
      case "BackingOff":
        return handBack(queue, marks, release.attempts, sql`now() + ${interval(release.delay)}::interval`).pipe(
          Effect.asVoid,
          Effect.orDie
        )
      case "Parked":
        return handBack(queue, marks, release.attempts, sql`NULL`).pipe(Effect.asVoid, Effect.orDie)
    }
  }

  /** The queues, for the backlog: not held, held (or left held by a crashed instance), and not held after failed runs. */
  const stats = sql`
    SELECT count(*) FILTER (WHERE locked_at IS NULL)::int AS queued,
           count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS locked,
           count(*) FILTER (WHERE locked_at IS NULL AND attempts > 0)::int AS failing
    FROM partner_callback_queues
  `.pipe(Effect.flatMap(decodeQueueStats), Effect.map(([row]) => row))

  return {
    scheduleQueue,
    claim,
    release,
    whenWritten: (wake: Effect.Effect<void>) =>
      ChangeFeed.onChange(callbacksWrittenChannel, wake).pipe(Effect.provideService(PgClient.PgClient, pg)),
    stats
  }
})
