import { PgClient } from "@effect/sql-pg"
import { type Duration, Effect, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import type { HeldQueue, QueueRelease } from "../../domain/DeliveryQueue.ts"
import * as ChangeFeed from "../../platform/ChangeFeed.ts"
import { IdFromBigInt, interval } from "../../platform/SqlCodecs.ts"

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
 * unchanged: its lock is what a holder forgetting an emptied queue waits for (see `release`), so that a notification
 * committed meanwhile is seen.
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

const Claimed = Schema.Struct({ player_id: IdFromBigInt, attempts: Schema.Int })
const decodeClaimed = Schema.decodeUnknownEffect(Schema.Array(Claimed))
const QueueStats = Schema.Struct({ queued: Schema.Int, locked: Schema.Int, failing: Schema.Int })
const decodeQueueStats = Schema.decodeUnknownEffect(Schema.Array(QueueStats))

/** What undelivered notifications a player has: their queue's content. */
const undelivered = (sql: SqlClient.SqlClient, playerId: number) =>
  sql`SELECT 1 FROM partner_callbacks WHERE player_id = ${playerId} AND status <> 'delivered' AND kind <> 'bet'`

export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient

  const scheduleQueue = (playerId: number, mode: "preserve" | "now") =>
    queuesScheduling(sql, sql`VALUES (${playerId}::bigint)`, mode).pipe(Effect.asVoid, Effect.orDie)

  // One statement: the due queues no one holds, or whose holder kept them past `staleAfter` (a crashed instance);
  // their rows locked only while it runs (a writer's lock is skipped, not waited for).
  const claim = (holder: string, limit: number, staleAfter: Duration.Duration) =>
    sql`
      UPDATE partner_callback_queues queue
      SET locked_by = ${holder}, locked_at = now()
      FROM (
        SELECT player_id FROM partner_callback_queues
        WHERE next_attempt_at <= now() AND (locked_at IS NULL OR locked_at < now() - ${interval(staleAfter)}::interval)
        ORDER BY next_attempt_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ) due
      WHERE queue.player_id = due.player_id
      RETURNING queue.player_id, queue.attempts
    `.pipe(
      Effect.flatMap(decodeClaimed),
      Effect.map((rows) => rows.map((row): HeldQueue => ({ playerId: row.player_id, holder, attempts: row.attempts }))),
      Effect.orDie
    )

  const handBack = (queue: HeldQueue, attempts: number, next: Statement.Fragment) =>
    sql`
      UPDATE partner_callback_queues
      SET locked_by = NULL, locked_at = NULL, attempts = ${attempts}, next_attempt_at = ${next}
      WHERE player_id = ${queue.playerId} AND locked_by = ${queue.holder}
    `

  /**
   * An emptied queue is forgotten unless a notification was written meanwhile. The row is locked first, so the check
   * that follows (a statement of its own, with a fresh snapshot) sees whatever a writer that held it committed; a
   * writer that comes after waits for this transaction and writes the row anew.
   */
  const forget = (queue: HeldQueue) =>
    sql.withTransaction(Effect.gen(function*() {
      const held = yield* sql`
        SELECT 1 FROM partner_callback_queues
        WHERE player_id = ${queue.playerId} AND locked_by = ${queue.holder} FOR UPDATE
      `
      if (held.length === 0) return
      const forgotten = yield* sql`
        DELETE FROM partner_callback_queues
        WHERE player_id = ${queue.playerId} AND NOT EXISTS (${undelivered(sql, queue.playerId)})
        RETURNING player_id
      `
      if (forgotten.length === 0) yield* handBack(queue, 0, sql`now()`)
    }))

  const release = (queue: HeldQueue, release: QueueRelease) => {
    switch (release._tag) {
      case "Emptied":
        return forget(queue).pipe(Effect.orDie)
      case "Due":
        return handBack(queue, 0, sql`now()`).pipe(Effect.asVoid, Effect.orDie)
      case "BackingOff":
        return handBack(queue, release.attempts, sql`now() + ${interval(release.delay)}::interval`).pipe(
          Effect.asVoid,
          Effect.orDie
        )
      case "Parked":
        return handBack(queue, release.attempts, sql`NULL`).pipe(Effect.asVoid, Effect.orDie)
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
