import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { type Cents, centsFromNumeric, formatCents } from "../domain/Money.ts"
import { PartnerPlayer } from "../domain/Partner.ts"
import { CentsFromNumeric, IdFromBigInt } from "../platform/SqlCodecs.ts"

/** A partner_players row: the domain's PartnerPlayer, its ids BIGINTs and its balance NUMERIC (read as cents). */
const PlayerRow = Schema.Struct({
  ...PartnerPlayer.fields,
  id: IdFromBigInt,
  partner_id: IdFromBigInt,
  internal_user_id: IdFromBigInt,
  balance: CentsFromNumeric
}).pipe(Schema.decodeTo(PartnerPlayer))

const PlayerArrival = Schema.Struct({
  partnerId: Schema.Int,
  externalPlayerId: Schema.String,
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  /** The balance the partner sent, in cents. */
  balance: Schema.Int
})
export type PlayerArrival = typeof PlayerArrival.Type

/**
 * Partners' players (partner_players): who they are, and the balance the
 * partner last confirmed, the wallet's mirror. Every read is scoped by
 * partner, except the aggregator's look-up by user code.
 */
export class PartnerPlayers extends Context.Service<PartnerPlayers, {
  /**
   * The partner's player with this external id, created on first sight,
   * with the balance (and name and e-mail, when given) the partner sent.
   * Concurrent first arrivals make one row.
   */
  arrive(player: PlayerArrival): Effect.Effect<PartnerPlayer>
  find(partnerId: number, externalPlayerId: string): Effect.Effect<Option.Option<PartnerPlayer>>
  findById(id: number): Effect.Effect<Option.Option<PartnerPlayer>>
  findByIds(ids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<PartnerPlayer>>
  /** The player behind a user code the aggregator sends back. */
  findByUserCode(userCode: number): Effect.Effect<Option.Option<PartnerPlayer>>
  /** The partner told us the player's balance. */
  confirmBalance(playerId: number, balance: Cents): Effect.Effect<void>
  /** The mirror, locked until the surrounding transaction ends: decisions made from it take turns. */
  lockBalance(playerId: number): Effect.Effect<Cents>
}>()("partner-api/partners/PartnerPlayers") {
  static readonly layerSql = Layer.effect(
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
            VALUES (${p.partnerId}, ${p.externalPlayerId}, ${p.name}, ${p.email}, ${formatCents(p.balance)})
            ON CONFLICT (partner_id, external_player_id) DO UPDATE SET
              name = COALESCE(EXCLUDED.name, partner_players.name),
              email = COALESCE(EXCLUDED.email, partner_players.email),
              balance = EXCLUDED.balance,
              updated_at = now()
            RETURNING ${columns}
          `
      })
      const find = SqlSchema.findOneOption({
        Request: Schema.Struct({ partnerId: Schema.Int, externalPlayerId: Schema.String }),
        Result: PlayerRow,
        execute: ({ externalPlayerId, partnerId }) =>
          sql`SELECT ${columns} FROM partner_players
              WHERE partner_id = ${partnerId} AND external_player_id = ${externalPlayerId}`
      })
      const findById = SqlSchema.findOneOption({
        Request: Schema.Int,
        Result: PlayerRow,
        execute: (id) => sql`SELECT ${columns} FROM partner_players WHERE id = ${id}`
      })
      const findByIds = SqlSchema.findAll({
        Request: Schema.Array(Schema.Int),
        Result: PlayerRow,
        execute: (ids) => sql`SELECT ${columns} FROM partner_players WHERE id = ANY(${ids}::bigint[])`
      })
      const findByUserCode = SqlSchema.findOneOption({
        Request: Schema.Int,
        Result: PlayerRow,
        execute: (userCode) => sql`SELECT ${columns} FROM partner_players WHERE internal_user_id = ${userCode}`
      })

      return PartnerPlayers.of({
        arrive: (player) => Effect.orDie(arrive(player)),
        find: (partnerId, externalPlayerId) => Effect.orDie(find({ partnerId, externalPlayerId })),
        findById: (id) => Effect.orDie(findById(id)),
        findByIds: (ids) => ids.length === 0 ? Effect.succeed([]) : Effect.orDie(findByIds(ids)),
        findByUserCode: (userCode) => Effect.orDie(findByUserCode(userCode)),
        confirmBalance: (playerId, balance) =>
          sql`UPDATE partner_players SET balance = ${formatCents(balance)}, updated_at = now() WHERE id = ${playerId}`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        lockBalance: (playerId) =>
          sql<{ balance: string }>`SELECT balance FROM partner_players WHERE id = ${playerId} FOR UPDATE`.pipe(
            Effect.map(([row]) => centsFromNumeric(row.balance)),
            Effect.orDie
          )
      })
    })
  )

  /** Players in memory, for tests of the rules that use them. */
  static readonly layerMemory = Layer.sync(PartnerPlayers, () => {
    const players = new Map<number, PartnerPlayer>()
    let nextId = 1
    const byKey = (partnerId: number, externalPlayerId: string) =>
      [...players.values()].find((p) => p.partner_id === partnerId && p.external_player_id === externalPlayerId)
    const update = (id: number, balance: Cents) => {
      const player = players.get(id)
      if (player !== undefined) players.set(id, new PartnerPlayer({ ...player, balance }))
    }
    return PartnerPlayers.of({
      arrive: (arrival) =>
        Effect.sync(() => {
          const existing = byKey(arrival.partnerId, arrival.externalPlayerId)
          const id = existing?.id ?? nextId++
          const player = new PartnerPlayer({
            id,
            partner_id: arrival.partnerId,
            external_player_id: arrival.externalPlayerId,
            internal_user_id: existing?.internal_user_id ?? 100_000 + id,
            name: arrival.name ?? existing?.name ?? null,
            email: arrival.email ?? existing?.email ?? null,
            balance: arrival.balance
          })
          players.set(id, player)
          return player
        }),
      find: (partnerId, externalPlayerId) => Effect.sync(() => Option.fromNullishOr(byKey(partnerId, externalPlayerId))),
      findById: (id) => Effect.sync(() => Option.fromNullishOr(players.get(id))),
      findByIds: (ids) => Effect.sync(() => ids.flatMap((id) => players.get(id) ?? [])),
      findByUserCode: (userCode) =>
        Effect.sync(() => Option.fromNullishOr([...players.values()].find((p) => p.internal_user_id === userCode))),
      confirmBalance: (playerId, balance) => Effect.sync(() => update(playerId, balance)),
      lockBalance: (playerId) => Effect.sync(() => players.get(playerId)?.balance ?? 0)
    })
  })
}

/**
 * The mirror's part of a statement that settles a wallet transaction: a
 * CTE named `mirror` that sets the player's balance, only when the CTE named
 * `guard` produced a row. The wallet writes a decision in one statement, and
 * this keeps the SQL of partner_players here.
 */
export const mirrorWriting = (
  sql: SqlClient.SqlClient,
  change: { readonly playerId: number; readonly balance: Cents | null },
  guard: string
): Statement.Fragment =>
  sql`mirror AS (
    UPDATE partner_players SET balance = ${change.balance === null ? null : formatCents(change.balance)}, updated_at = now()
    WHERE id = ${change.playerId} AND ${change.balance !== null} AND EXISTS (SELECT 1 FROM ${sql(guard)})
    RETURNING id
  )`
