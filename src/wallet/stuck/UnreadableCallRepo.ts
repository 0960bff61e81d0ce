import { Clock, Context, Duration, Effect, Layer, Schema, Struct } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type NewUnreadableCall, UnreadableCall, unreadableCallKey } from "../../domain/UnreadableCalls.ts"
import { IdFromBigInt, interval } from "../../platform/SqlCodecs.ts"

/** A row of wallet_unreadable_calls, decoded once into the domain's shape. */
const UnreadableCallRow = UnreadableCall.mapFields(Struct.assign({
  ref: IdFromBigInt,
  partnerId: IdFromBigInt,
  playerId: IdFromBigInt
})).pipe(Schema.encodeKeys({
  ref: "id",
  partnerId: "partner_id",
  playerId: "player_id",
  txnId: "txn_id",
  roundId: "round_id",
  receivedAt: "received_at"
}))

const columns =
  "id, aggregator, environment, partner_id, player_id, txn_id, round_id, field, amount, currency, received_at"

/**
 * The aggregators' wallet calls refused for an amount finer than the player's currency allows
 * (wallet_unreadable_calls, sql/0030): the only code that reads or writes them. One row per aggregator, environment
 * and transaction id, whoever records it first; a repeat adds nothing.
 */
export class UnreadableCallRepo extends Context.Service<UnreadableCallRepo, {
  /** Records a refused call; false when one of that aggregator, environment and transaction id is recorded already. */
  record(call: NewUnreadableCall): Effect.Effect<boolean>
  /** The calls received within `within` (up to now), oldest first. */
  receivedWithin(within: Duration.Duration, limit: number): Effect.Effect<ReadonlyArray<UnreadableCall>>
}>()("partner-api/wallet/UnreadableCallRepo") {
  static readonly layerSql = Layer.effect(
    UnreadableCallRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const selected = sql.literal(columns)

      const record = SqlSchema.findAll({
        Request: Schema.Struct(Struct.omit(UnreadableCall.fields, ["ref", "receivedAt"])),
        Result: Schema.Struct({ id: IdFromBigInt }),
        execute: (call) =>
          sql`
            INSERT INTO wallet_unreadable_calls (aggregator, environment, partner_id, player_id, txn_id, round_id, field,
                                                 amount, currency)
            VALUES (${call.aggregator}, ${call.environment}, ${call.partnerId}, ${call.playerId}, ${call.txnId},
                    ${call.roundId}, ${call.field}, ${call.amount}, ${call.currency})
            ON CONFLICT (aggregator, environment, txn_id) DO NOTHING
            RETURNING id
          `
      })

      const receivedWithin = SqlSchema.findAll({
        Request: Schema.Struct({ within: Schema.String, limit: Schema.Int }),
        Result: UnreadableCallRow,
        execute: ({ limit, within }) =>
          sql`
            SELECT ${selected} FROM wallet_unreadable_calls
            WHERE received_at > now() - ${within}::interval
            ORDER BY received_at, id
            LIMIT ${limit}
          `
      })

      return UnreadableCallRepo.of({
        record: (call) => record(call).pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),
        receivedWithin: (within, limit) => Effect.orDie(receivedWithin({ within: interval(within), limit }))
      })
    })
  )

  /**
   * The same rules over memory, for tests without PostgreSQL: one row per aggregator, environment and transaction id,
   * times by the Clock. Its partners and players are not checked (the SQL's foreign keys are).
   */
  static readonly layerMemory = Layer.sync(UnreadableCallRepo, () => {
    const rows = new Map<string, UnreadableCall>()
    let nextId = 1
    const now = Clock.currentTimeMillis
    return UnreadableCallRepo.of({
      record: (call) =>
        Effect.map(now, (at) => {
          const key = unreadableCallKey(call)
          if (rows.has(key)) return false
          rows.set(key, { ...call, ref: nextId++, receivedAt: new Date(at) })
          return true
        }),
      receivedWithin: (within, limit) =>
        Effect.map(now, (at) =>
          [...rows.values()]
            .filter((row) => row.receivedAt.getTime() > at - Duration.toMillis(within))
            .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || a.ref - b.ref)
            .slice(0, limit))
    })
  })
}
