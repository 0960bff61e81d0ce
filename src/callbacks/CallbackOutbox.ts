import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import type { CallbackKind } from "../domain/Callbacks.ts"
import { IdFromBigInt } from "../platform/SqlCodecs.ts"
import { CallbacksConfig } from "./CallbacksConfig.ts"
import { PartnerCallbacks } from "./PartnerCallbacks.ts"

/** The job queue's task that delivers one player's notifications, oldest first. */
export const deliveryTask = "partner_callbacks"

/** Notifications one delivery run sends at most, so a run lasts at most this many time-outs. */
export const drainBatch = 50

/** One job (and one job queue) per player: their notifications go one at a time, in order. */
export const playerLinePrefix = "partner-callbacks:player:"
const playerLine = (playerId: number) => `${playerLinePrefix}${playerId}`

export interface NewCallback {
  readonly partnerId: number
  readonly playerId: number
  readonly kind: Exclude<CallbackKind, "balance">
  readonly txnId: string
  readonly eventId: string
  readonly body: string
}

export interface AnsweredBet extends NewCallback {
  readonly kind: "bet"
  /** null when the partner answered; otherwise why it could not be asked. */
  readonly error: string | null
}

const CallbackRow = Schema.Struct({
  id: IdFromBigInt,
  event_id: Schema.String,
  partner: Schema.String,
  external_player_id: Schema.String,
  kind: Schema.String,
  txn_id: Schema.String,
  status: Schema.String,
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  delivered_at: Schema.NullOr(Schema.Date),
  next_attempt_at: Schema.NullOr(Schema.Date),
  body: Schema.String
})
export type CallbackRecord = typeof CallbackRow.Type
const decodeCallbackRows = Schema.decodeUnknownEffect(Schema.Array(CallbackRow))

export class CallbackNotFound extends Schema.TaggedError<CallbackNotFound>()("CallbackNotFound", { id: Schema.Int }) {
  override get message() {
    return `No callback with id ${this.id}.`
  }
}

export class CallbackNotReplayable extends Schema.TaggedError<CallbackNotReplayable>()("CallbackNotReplayable", {
  id: Schema.Int
}) {
  override get message() {
    return `Callback ${this.id} is a bet: it was answered during the aggregator's call and is never sent again ` +
      `(an unconfirmed bet is followed by its rollback notification, which can be retried).`
  }
}

/** The head of a player's line could not be delivered this time; the queue tries again later. */
export class DeliveryStalled extends Schema.TaggedError<DeliveryStalled>()("DeliveryStalled", {
  callbackId: Schema.Int,
  message: Schema.String
}) {}

/** Where the job that delivers the current player's line stands, as the queue reports it. */
export interface DeliveryAttempt {
  readonly attempts: number
  readonly maxAttempts: number
}

/**
 * The durable outbox of partner notifications. Notifications are written in
 * the same transaction as the ledger entry that caused them, and the
 * player's delivery job is scheduled in that transaction too (graphile-worker's
 * add_job): a crash either keeps both or neither. Delivery is at least once
 * (the event id lets partners de-duplicate), one player at a time in order,
 * by whichever instance's worker is free, with the queue's exponential
 * backoff between attempts.
 */
export class CallbackOutbox extends Context.Service<CallbackOutbox, {
  /**
   * Common table expressions, for the statement that writes what caused the callbacks: they record the
   * callbacks (a bet asked during a wallet call, notifications to deliver) and schedule each player's line,
   * only if the CTE named `guard` produced a row. One statement keeps it all or none.
   */
  writing(callbacks: ReadonlyArray<NewCallback | AnsweredBet>, guard: string): Statement.Fragment
  /** Delivers a player's undelivered notifications in order; fails (to be retried) at the first that fails. */
  drain(playerId: number, attempt: DeliveryAttempt): Effect.Effect<{ readonly delivered: number }, DeliveryStalled>
  list(filter: {
    readonly status?: string | undefined
    readonly partner?: string | undefined
    readonly limit: number
  }): Effect.Effect<ReadonlyArray<CallbackRecord>>
  /** Sends a notification again (delivered or not), as soon as its player's line reaches it. */
  retry(id: number): Effect.Effect<CallbackRecord, CallbackNotFound | CallbackNotReplayable>
}>()("partner-api/callbacks/CallbackOutbox") {
  static readonly layer = Layer.effect(
    CallbackOutbox,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const config = yield* CallbacksConfig
      const partners = yield* PartnerCallbacks

      /**
       * Schedules the player's line. `preserve_run_at` keeps a waiting job's time unless it is backing off
       * after a failure; then (as on any new add_job) the line is tried again at once.
       */
      const schedule = (playerId: number, mode: "preserve_run_at" | "replace") =>
        sql`SELECT id FROM graphile_worker.add_job(
              ${deliveryTask},
              json_build_object('player_id', ${playerId}::bigint),
              queue_name => ${playerLine(playerId)},
              max_attempts => ${config.maxAttempts}::smallint,
              job_key => ${playerLine(playerId)},
              job_key_mode => ${mode}
            )`

      const writing = (callbacks: ReadonlyArray<NewCallback | AnsweredBet>, guard: string) => {
        const rows = callbacks.map((callback) => {
          const answered = "error" in callback
          const status = !answered ? "pending" : callback.error === null ? "delivered" : "failed"
          return {
            event_id: callback.eventId,
            partner_id: callback.partnerId,
            player_id: callback.playerId,
            kind: callback.kind,
            txn_id: callback.txnId,
            body: callback.body,
            status,
            attempts: answered ? 1 : 0,
            last_error: answered ? callback.error : null
          }
        })
        // A line is scheduled for each player with a notification to deliver.
        const lines = [...new Set(rows.filter((row) => row.status === "pending").map((row) => row.player_id))]
        return sql`
          written_callbacks AS (
            INSERT INTO partner_callbacks (event_id, partner_id, player_id, kind, txn_id, body, status, attempts, last_error,
                                           delivered_at)
            SELECT c.event_id, c.partner_id, c.player_id, c.kind, c.txn_id, c.body, c.status, c.attempts, c.last_error,
                   CASE WHEN c.status = 'delivered' THEN now() END
            FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS c(event_id text, partner_id bigint, player_id bigint,
              kind text, txn_id text, body text, status text, attempts integer, last_error text)
            WHERE EXISTS (SELECT 1 FROM ${sql(guard)})
            RETURNING id
          ),
          scheduled_lines AS (
            SELECT job.id FROM jsonb_array_elements_text(${JSON.stringify(lines)}::jsonb) AS line(player_id)
            CROSS JOIN LATERAL graphile_worker.add_job(
              ${deliveryTask},
              json_build_object('player_id', line.player_id::bigint),
              queue_name => ${playerLinePrefix} || line.player_id,
              max_attempts => ${config.maxAttempts}::smallint,
              job_key => ${playerLinePrefix} || line.player_id,
              job_key_mode => 'preserve_run_at'
            ) AS job
            WHERE EXISTS (SELECT 1 FROM ${sql(guard)})
          )
        `
      }

      const Head = Schema.Struct({
        id: IdFromBigInt,
        event_id: Schema.String,
        body: Schema.String,
        partner_id: IdFromBigInt,
        callback_url: Schema.NullOr(Schema.String),
        webhook_secret: Schema.String
      })
      const decodeHeads = Schema.decodeUnknownEffect(Schema.Array(Head))
      const headOf = (playerId: number) =>
        sql`
          SELECT c.id, c.event_id, c.body, c.partner_id, p.callback_url, p.webhook_secret
          FROM partner_callbacks c JOIN partners p ON p.id = c.partner_id
          WHERE c.player_id = ${playerId} AND c.status <> 'delivered' AND c.kind <> 'bet'
          ORDER BY c.id
          LIMIT 1
        `.pipe(
          Effect.flatMap(decodeHeads),
          Effect.map((rows) => Option.fromNullishOr(rows[0])),
          Effect.orDie
        )

      const drain = Effect.fn("CallbackOutbox.drain")(function*(playerId: number, attempt: DeliveryAttempt) {
        let delivered = 0
        while (true) {
          if (delivered === drainBatch) {
            // A run stays short (its lock tells the living from the dead): the rest goes on in a new run.
            yield* schedule(playerId, "replace").pipe(Effect.orDie)
            return { delivered }
          }
          const head = yield* headOf(playerId)
          if (Option.isNone(head)) return { delivered }
          const { body, callback_url, event_id, id, partner_id, webhook_secret } = head.value
          const outcome = yield* (callback_url === null
            ? Effect.fail({ message: "The partner has no callback_url." })
            : partners.deliver({ partnerId: partner_id, callbackUrl: callback_url, webhookSecret: webhook_secret }, event_id, body)
          ).pipe(Effect.result)
          if (outcome._tag === "Success") {
            yield* sql`
              UPDATE partner_callbacks
              SET status = 'delivered', attempts = attempts + 1, last_error = NULL, delivered_at = now()
              WHERE id = ${id}
            `.pipe(Effect.orDie)
            delivered++
            continue
          }
          const error = outcome.failure.message
          // The last attempt the queue will make marks the notification failed: the line waits for an operator.
          const final = delivered === 0 && attempt.attempts >= attempt.maxAttempts
          yield* sql`
            UPDATE partner_callbacks
            SET attempts = attempts + 1, last_error = ${error}, status = ${final ? "failed" : "pending"}
            WHERE id = ${id}
          `.pipe(Effect.orDie)
          yield* Effect.logWarning("Partner notification not delivered").pipe(
            Effect.annotateLogs({ callback_id: id, event_id, partner_id, player_id: playerId, detail: error, final })
          )
          if (delivered > 0) {
            // The line moved: back off afresh from here rather than from this job's earlier failures.
            yield* schedule(playerId, "replace").pipe(Effect.orDie)
            return { delivered }
          }
          return yield* new DeliveryStalled({ callbackId: id, message: error })
        }
      })

      const listQuery = (where: ReturnType<typeof sql.and>, limit: number) =>
        sql`
          SELECT c.id, c.event_id, p.slug AS partner, pp.external_player_id, c.kind, c.txn_id, c.status, c.attempts,
                 c.last_error, c.created_at, c.delivered_at, c.body,
                 CASE WHEN c.status = 'pending' THEN j.run_at END AS next_attempt_at
          FROM partner_callbacks c
          JOIN partners p ON p.id = c.partner_id
          JOIN partner_players pp ON pp.id = c.player_id
          LEFT JOIN graphile_worker.jobs j ON j.key = ${playerLinePrefix} || c.player_id
          WHERE ${where}
          ORDER BY c.id DESC
          LIMIT ${limit}
        `.pipe(Effect.flatMap(decodeCallbackRows), Effect.orDie)

      const list = (filter: { readonly status?: string | undefined; readonly partner?: string | undefined; readonly limit: number }) => {
        const conditions = [sql`true`]
        if (filter.status !== undefined) conditions.push(sql`c.status = ${filter.status}`)
        if (filter.partner !== undefined) conditions.push(sql`p.slug = ${filter.partner}`)
        return listQuery(sql.and(conditions), filter.limit)
      }

      const retry = (id: number) =>
        Effect.gen(function*() {
          const [found] = yield* listQuery(sql.and([sql`c.id = ${id}`]), 1)
          if (found === undefined) return yield* new CallbackNotFound({ id })
          if (found.kind === "bet") return yield* new CallbackNotReplayable({ id })
          yield* sql.withTransaction(Effect.gen(function*() {
            const [row] = yield* sql<{ player_id: bigint }>`
              UPDATE partner_callbacks SET status = 'pending', last_error = NULL WHERE id = ${id} RETURNING player_id
            `
            yield* schedule(Number(row.player_id), "replace")
          })).pipe(Effect.orDie)
          const [updated] = yield* listQuery(sql.and([sql`c.id = ${id}`]), 1)
          return updated
        })

      return CallbackOutbox.of({ writing, drain, list, retry })
    })
  )
}
