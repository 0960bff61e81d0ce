import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { PartnerPlayer } from "../domain/Casino.ts"
import { IdFromBigInt, NumberFromNumeric } from "../platform/SqlCodecs.ts"

const PlayerRow = Schema.Struct({
  id: IdFromBigInt,
  partner_id: IdFromBigInt,
  external_player_id: Schema.String,
  internal_user_id: IdFromBigInt,
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  balance: NumberFromNumeric
}).pipe(Schema.decodeTo(PartnerPlayer))

const PlayerArrival = Schema.Struct({
  partnerId: Schema.Int,
  externalPlayerId: Schema.String,
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  balance: Schema.Finite
})
export type PlayerArrival = typeof PlayerArrival.Type

const PlayerKey = Schema.Struct({ partnerId: Schema.Int, externalPlayerId: Schema.String })

/** Partners' players. Every read is scoped by partner, except the aggregator's look-up by user code. */
export class PartnerPlayers extends Context.Service<PartnerPlayers, {
  /**
   * The partner's player with this external id, created on first sight,
   * with the balance (and name and e-mail, when given) the partner sent.
   * Concurrent first arrivals make one row.
   */
  arrive(player: PlayerArrival): Effect.Effect<PartnerPlayer>
  find(partnerId: number, externalPlayerId: string): Effect.Effect<Option.Option<PartnerPlayer>>
  /** The player behind a user code the aggregator sends back. */
  findByUserCode(userCode: number): Effect.Effect<Option.Option<PartnerPlayer>>
}>()("partner-api/casino/PartnerPlayers") {
  static readonly layer = Layer.effect(
    PartnerPlayers,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns = sql`id, partner_id, external_player_id, internal_user_id, name, email, balance`

      const arrive = SqlSchema.findOne({
        Request: PlayerArrival,
        Result: PlayerRow,
        execute: (p) =>
          sql`
            INSERT INTO partner_players (partner_id, external_player_id, name, email, balance)
            VALUES (${p.partnerId}, ${p.externalPlayerId}, ${p.name}, ${p.email}, ${p.balance})
            ON CONFLICT (partner_id, external_player_id) DO UPDATE SET
              name = COALESCE(EXCLUDED.name, partner_players.name),
              email = COALESCE(EXCLUDED.email, partner_players.email),
              balance = EXCLUDED.balance,
              updated_at = now()
            RETURNING ${columns}
          `
      })
      const find = SqlSchema.findOneOption({
        Request: PlayerKey,
        Result: PlayerRow,
        execute: ({ externalPlayerId, partnerId }) =>
          sql`SELECT ${columns} FROM partner_players
              WHERE partner_id = ${partnerId} AND external_player_id = ${externalPlayerId}`
      })
      const findByUserCode = SqlSchema.findOneOption({
        Request: Schema.Int,
        Result: PlayerRow,
        execute: (userCode) => sql`SELECT ${columns} FROM partner_players WHERE internal_user_id = ${userCode}`
      })

      return PartnerPlayers.of({
        arrive: (player) => Effect.orDie(arrive(player)),
        find: (partnerId, externalPlayerId) => Effect.orDie(find({ partnerId, externalPlayerId })),
        findByUserCode: (userCode) => Effect.orDie(findByUserCode(userCode))
      })
    })
  )
}
