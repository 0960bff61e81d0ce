import { Context, Effect, Layer, Schema, Struct } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { Callback, CallbackStatus } from "../../domain/Callbacks.ts"
import { Environment } from "../../domain/Environment.ts"
import { IdFromBigInt, MinorFromNumeric } from "../../platform/SqlCodecs.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { MemoryCallbacks } from "../WalletRepoMemory.ts"
import * as OutboxRepoMemory from "./OutboxRepoMemory.ts"
import type { Backlog, OutboxRepoShape } from "./OutboxShape.ts"

export type { Backlog, CallbackFilter, QueueHead } from "./OutboxShape.ts"

/** The job queue's task that delivers one player's notifications, oldest first. */
export const deliveryTask = "partner_callbacks"

/** One job (and one job queue) per player: their notifications go one at a time, in order. */
export const playerQueuePrefix = "partner-callbacks:player:"

/**
 * The SQL expression that schedules a player's delivery queue (`playerId`, a bigint) and is its job's id. The job
 * is keyed by the player: add_job updates it while no worker holds it, and adds a new job when one does (that run
 * may have read the queue before this statement's notification was committed). add_job looks first (is the job
 * held?) and writes after; a worker that takes the job in between leaves the write doing nothing, and the job's id
 * null: the held run ends without the new notification and no job is left to deliver it. That happens when a worker
 * takes a job at the commit this statement waited for (two decisions of one player at once). Asked again, add_job
 * then sees the job held and adds the new one.
 */
export const deliveryJobId = (
  sql: SqlClient.SqlClient,
  playerId: Statement.Fragment,
  maxAttempts: number,
  mode: "preserve_run_at" | "replace"
) => {
  const added = () =>
    sql`(SELECT job.id FROM graphile_worker.add_job(
      ${deliveryTask},
      json_build_object('player_id', ${playerId}),
      queue_name => ${playerQueuePrefix} || ${playerId},
      max_attempts => ${maxAttempts}::smallint,
      job_key => ${playerQueuePrefix} || ${playerId},
      job_key_mode => ${mode}
    ) AS job)`
  // COALESCE asks the second time only when the first came back without a job.
  return sql`COALESCE(${added()}, ${added()})`
}

/** A partner_callbacks row (next_attempt_at from its player's job) is a domain Callback: ids as bigint, columns in snake_case. */
const CallbackRow = Callback.mapFields(Struct.assign({
  id: IdFromBigInt,
  partnerId: IdFromBigInt,
  playerId: IdFromBigInt,
  transactionRef: Schema.NullOr(IdFromBigInt)
})).pipe(Schema.encodeKeys({
  eventId: "event_id",
  partnerId: "partner_id",
  playerId: "player_id",
  txnId: "txn_id",
  transactionRef: "transaction_ref",
  lastError: "last_error",
  createdAt: "created_at",
  deliveredAt: "delivered_at",
  nextAttemptAt: "next_attempt_at"
}))

/** What delivering the head of a delivery queue needs. */
const HeadRow = Schema.Struct({
  id: IdFromBigInt,
  eventId: Schema.String,
  kind: Callback.fields.kind,
  body: Schema.String,
  partnerId: IdFromBigInt,
  environment: Environment
}).pipe(Schema.encodeKeys({ eventId: "event_id", partnerId: "partner_id" }))

const Backlog = Schema.Struct({
  pending: Schema.Int,
  failed: Schema.Int,
  oldest_pending_seconds: Schema.Finite,
  queued: Schema.Int,
  locked: Schema.Int,
  failing: Schema.Int
})
const decodeBacklog = Schema.decodeUnknownEffect(Schema.Array(Backlog))
/** The transactions a rollback was written for; a requeued notification's player. */
const decodeRefs = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ ref: IdFromBigInt })))
const decodePlayers = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ player_id: IdFromBigInt })))

/**
 * The outbox's rows (partner_callbacks) and its players' delivery queues in
 * the job queue (graphile-worker's add_job): what is delivered, and how. The
 * rows are written by the ledger (WalletRepoSql), in the statement of the
 * wallet decision that caused them, so a crash keeps both or neither.
 */
export class OutboxRepo extends Context.Service<OutboxRepo, OutboxRepoShape>()("partner-api/wallet/OutboxRepo") {
  /** Over the memory wallet repository's callbacks (MemoryCallbacks), without a job queue. */
  static readonly layerMemory = Layer.effect(
    OutboxRepo,
    Effect.flatMap(
      Effect.service(MemoryCallbacks),
      (written) => Effect.map(OutboxRepoMemory.make(written), OutboxRepo.of)
    )
  )

  static readonly layerSql = Layer.effect(
    OutboxRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const config = yield* CallbacksConfig

      const scheduleQueue = (playerId: number, mode: "preserve_run_at" | "replace") =>
        sql`SELECT ${deliveryJobId(sql, sql`${playerId}::bigint`, config.maxAttempts, mode)} AS id`.pipe(
          Effect.asVoid,
          Effect.orDie
        )

      const queueOf = SqlSchema.findAll({
        Request: Schema.Struct({ playerId: Schema.Int, limit: Schema.Int }),
        Result: HeadRow,
        execute: ({ limit, playerId }) =>
          sql`
            SELECT id, event_id, kind, body, partner_id, environment FROM partner_callbacks
            WHERE player_id = ${playerId} AND status <> 'delivered' AND kind <> 'bet'
            ORDER BY id
            LIMIT ${limit}
          `
      })

      // The amounts are read from the bodies this service wrote (numbers of at most two places), as numeric: exact.
      // Bodies state amounts in the currency's units (a number or a decimal string): summed exactly, then in minor units.
      const owedTo = SqlSchema.findOne({
        Request: Schema.Struct({ playerId: Schema.Int, exponent: Schema.Int }),
        Result: Schema.Struct({ owed: MinorFromNumeric }),
        execute: ({ exponent, playerId }) =>
          sql`
            SELECT (COALESCE(sum((body::jsonb ->> 'amount')::numeric), 0) * power(10::numeric, ${exponent}))::numeric(40, 0)::text
              AS owed
            FROM partner_callbacks
            WHERE player_id = ${playerId} AND status <> 'delivered' AND kind IN ('win', 'refund')
          `
      })

      const countOf = SqlSchema.findOne({
        Request: Schema.Int,
        Result: Schema.Struct({ n: Schema.Int }),
        execute: (playerId) => sql`SELECT count(*)::int AS n FROM partner_callbacks WHERE player_id = ${playerId}`
      })

      const select = (where: Statement.Fragment, limit: number) =>
        sql`
          SELECT c.id, c.event_id, c.partner_id, c.environment, c.player_id, c.kind, c.txn_id,
                 c.transaction_ref, c.status, c.attempts, c.last_error, c.created_at, c.delivered_at, c.body,
                 CASE WHEN c.status = 'pending' THEN j.run_at END AS next_attempt_at
          FROM partner_callbacks c
          LEFT JOIN graphile_worker.jobs j ON j.key = ${playerQueuePrefix} || c.player_id
          WHERE ${where}
          ORDER BY c.id DESC
          LIMIT ${limit}
        `

      const list = SqlSchema.findAll({
        Request: Schema.Struct({
          status: Schema.optional(CallbackStatus),
          partnerId: Schema.optional(Schema.Int),
          environment: Schema.optional(Environment),
          playerId: Schema.optional(Schema.Int),
          limit: Schema.Int
        }),
        Result: CallbackRow,
        execute: (filter) => {
          const conditions = [sql`true`]
          if (filter.status !== undefined) conditions.push(sql`c.status = ${filter.status}`)
          if (filter.partnerId !== undefined) conditions.push(sql`c.partner_id = ${filter.partnerId}`)
          if (filter.environment !== undefined) conditions.push(sql`c.environment = ${filter.environment}`)
          if (filter.playerId !== undefined) conditions.push(sql`c.player_id = ${filter.playerId}`)
          return select(sql.and(conditions), filter.limit)
        }
      })
      const find = SqlSchema.findOneOption({
        Request: Schema.Struct({ id: Schema.Int, partnerId: Schema.optional(Schema.Int) }),
        Result: CallbackRow,
        execute: ({ id, partnerId }) =>
          select(partnerId === undefined ? sql`c.id = ${id}` : sql`c.id = ${id} AND c.partner_id = ${partnerId}`, 1)
      })
      const ofTransactions = SqlSchema.findAll({
        Request: Schema.Array(Schema.Int),
        Result: CallbackRow,
        execute: (refs) => select(sql`c.transaction_ref = ANY(${refs}::bigint[])`, 10_000)
      })

      const exhausted = SqlSchema.findAll({
        Request: Schema.Int,
        Result: CallbackRow,
        execute: (limit) =>
          sql`
            SELECT c.id, c.event_id, c.partner_id, c.environment, c.player_id, c.kind, c.txn_id, c.transaction_ref, c.status,
                   c.attempts, c.last_error, c.created_at, c.delivered_at, c.body, NULL::timestamptz AS next_attempt_at
            FROM partner_callbacks c WHERE c.status = 'failed' AND c.kind <> 'bet'
            ORDER BY c.id LIMIT ${limit}
          `
      })

      return OutboxRepo.of({
        rolledBack: (refs) =>
          refs.length === 0 ? Effect.succeed(new Set<number>()) : sql`
            SELECT DISTINCT transaction_ref AS ref FROM partner_callbacks
            WHERE kind = 'rollback' AND transaction_ref = ANY(${refs}::bigint[])
          `.pipe(
            Effect.flatMap(decodeRefs),
            Effect.map((rows) => new Set(rows.map((row) => row.ref))),
            Effect.orDie
          ),
        exhausted: (limit) => Effect.orDie(exhausted(limit)),
        queueOf: (playerId, limit) => Effect.orDie(queueOf({ playerId, limit })),
        owedTo: (playerId, currency) =>
          owedTo({ playerId, exponent: currency.exponent }).pipe(Effect.map((row) => row.owed), Effect.orDie),
        countOf: (playerId) => countOf(playerId).pipe(Effect.map((row) => row.n), Effect.orDie),
        markDelivered: (id) =>
          sql`
            UPDATE partner_callbacks
            SET status = 'delivered', attempts = attempts + 1, last_error = NULL, delivered_at = now()
            WHERE id = ${id}
          `.pipe(Effect.asVoid, Effect.orDie),
        markFailed: (id, error, final) =>
          sql`
            UPDATE partner_callbacks
            SET attempts = attempts + 1, last_error = ${error}, status = ${final ? "failed" : "pending"}
            WHERE id = ${id}
          `.pipe(Effect.asVoid, Effect.orDie),
        scheduleQueue,
        list: (filter) => Effect.orDie(list(filter)),
        find: (id, partnerId) => Effect.orDie(find({ id, partnerId })),
        requeue: (id) =>
          sql.withTransaction(Effect.gen(function*() {
            const [row] = yield* sql`
              UPDATE partner_callbacks SET status = 'pending', last_error = NULL WHERE id = ${id} RETURNING player_id
            `.pipe(Effect.flatMap(decodePlayers))
            if (row !== undefined) yield* scheduleQueue(row.player_id, "replace")
          })).pipe(Effect.orDie),
        ofTransactions: (refs) =>
          refs.length === 0
            ? Effect.succeed([])
            : ofTransactions(refs).pipe(Effect.map((rows) => [...rows].reverse()), Effect.orDie),
        // Only undelivered notifications are read, through the index that serves the players' delivery queues.
        backlog: sql`
          SELECT b.pending, b.failed, b.oldest_pending_seconds, j.queued, j.locked, j.failing
          FROM (
            SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
                   count(*) FILTER (WHERE status = 'failed')::int AS failed,
                   COALESCE(EXTRACT(EPOCH FROM now() - min(created_at) FILTER (WHERE status = 'pending')), 0)::float8
                     AS oldest_pending_seconds
            FROM partner_callbacks
            WHERE status <> 'delivered' AND kind <> 'bet'
          ) b, (
            SELECT count(*) FILTER (WHERE locked_at IS NULL)::int AS queued,
                   count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS locked,
                   count(*) FILTER (WHERE attempts > 0 AND locked_at IS NULL)::int AS failing
            FROM graphile_worker.jobs WHERE task_identifier = ${deliveryTask}
          ) j
        `.pipe(
          Effect.flatMap(decodeBacklog),
          Effect.map(([row]) => ({
            pending: row.pending,
            failed: row.failed,
            oldestPendingSeconds: row.oldest_pending_seconds,
            jobs: { queued: row.queued, locked: row.locked, failing: row.failing }
          })),
          Effect.orDie
        )
      })
    })
  )
}
