import { Context, Effect, Layer, Schema, Struct } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { Callback, CallbackStatus } from "../../domain/Callbacks.ts"
import { Environment } from "../../domain/Environment.ts"
import { IdFromBigInt, MinorFromNumeric } from "../../platform/SqlCodecs.ts"
import { MemoryCallbacks } from "../WalletRepoMemory.ts"
import * as OutboxQueuesSql from "./OutboxQueuesSql.ts"
import * as OutboxRepoMemory from "./OutboxRepoMemory.ts"
import type { Backlog, OutboxRepoShape } from "./OutboxShape.ts"

export { callbacksWrittenChannel, queuesScheduling } from "./OutboxQueuesSql.ts"
export type { Backlog, CallbackFilter, ClaimedQueue, QueueHead, RunMarks } from "./OutboxShape.ts"

/** A partner_callbacks row (next_attempt_at from its player's delivery queue) is a domain Callback: ids as bigint, columns in snake_case. */
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

const Backlog = Schema.Struct({ pending: Schema.Int, failed: Schema.Int, oldest_pending_seconds: Schema.Finite })
const decodeBacklog = Schema.decodeUnknownEffect(Schema.Array(Backlog))
/** The transactions a rollback was written for; a requeued notification's player. */
const decodeRefs = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ ref: IdFromBigInt })))
const decodePlayers = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ player_id: IdFromBigInt })))

/**
 * The outbox's rows (partner_callbacks) and its players' delivery queues
 * (partner_callback_queues, OutboxQueuesSql.ts): what is delivered, and how.
 * Both are written by the ledger (WalletRepoSql), in the statement of the
 * wallet decision that caused them, so a crash keeps both or neither.
 */
export class OutboxRepo extends Context.Service<OutboxRepo, OutboxRepoShape>()("partner-api/wallet/OutboxRepo") {
  /** Over the memory wallet repository's callbacks (MemoryCallbacks), with its delivery queues in memory. */
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
      const queues = yield* OutboxQueuesSql.make

      const queueOf = SqlSchema.findAll({
        Request: Schema.Struct({ playerId: Schema.Int, limit: Schema.Int }),
        Result: OutboxQueuesSql.HeadRow,
        execute: ({ limit, playerId }) =>
          sql`${OutboxQueuesSql.undelivered(sql, sql`${playerId}`)} ORDER BY id LIMIT ${limit}`
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

      const select = (where: Statement.Fragment, limit: number) =>
        sql`
          SELECT c.id, c.event_id, c.partner_id, c.environment, c.player_id, c.kind, c.txn_id,
                 c.transaction_ref, c.status, c.attempts, c.last_error, c.created_at, c.delivered_at, c.body,
                 CASE WHEN c.status = 'pending' THEN q.next_attempt_at END AS next_attempt_at
          FROM partner_callbacks c
          LEFT JOIN partner_callback_queues q ON q.player_id = c.player_id
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
        markDelivered: (id) => OutboxQueuesSql.deliveredMarking(sql, [id]).pipe(Effect.asVoid, Effect.orDie),
        markFailed: (id, error, final) =>
          OutboxQueuesSql.failedMarking(sql, { id, error, final }).pipe(Effect.asVoid, Effect.orDie),
        scheduleQueue: queues.scheduleQueue,
        claim: queues.claim,
        release: queues.release,
        whenWritten: queues.whenWritten,
        list: (filter) => Effect.orDie(list(filter)),
        find: (id, partnerId) => Effect.orDie(find({ id, partnerId })),
        requeue: (id) =>
          sql.withTransaction(Effect.gen(function*() {
            const [row] = yield* sql`
              UPDATE partner_callbacks SET status = 'pending', last_error = NULL WHERE id = ${id} RETURNING player_id
            `.pipe(Effect.flatMap(decodePlayers))
            if (row !== undefined) yield* queues.scheduleQueue(row.player_id, "now")
            // Read in the requeue's transaction: no worker claims the queue before it commits.
            return yield* find({ id })
          })).pipe(Effect.orDie),
        ofTransactions: (refs) =>
          refs.length === 0
            ? Effect.succeed([])
            : ofTransactions(refs).pipe(Effect.map((rows) => [...rows].reverse()), Effect.orDie),
        // Only undelivered notifications are read, through the index that serves the players' delivery queues.
        backlog: Effect.all({
          callbacks: sql`
            SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
                   count(*) FILTER (WHERE status = 'failed')::int AS failed,
                   COALESCE(EXTRACT(EPOCH FROM now() - min(created_at) FILTER (WHERE status = 'pending')), 0)::float8
                     AS oldest_pending_seconds
            FROM partner_callbacks
            WHERE status <> 'delivered' AND kind <> 'bet'
          `.pipe(Effect.flatMap(decodeBacklog)),
          queues: queues.stats
        }).pipe(
          Effect.map(({ callbacks: [row], queues }) => ({
            pending: row.pending,
            failed: row.failed,
            oldestPendingSeconds: row.oldest_pending_seconds,
            queues
          })),
          Effect.orDie
        )
      })
    })
  )
}
