import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Environment } from "../domain/Environment.ts"
import type { Minor } from "../domain/Money.ts"
import { PartnerPlayer, type PlayerIdentity, PlayerMode } from "../domain/Partner.ts"
import { IdFromBigInt, MinorFromNumeric } from "../platform/SqlCodecs.ts"
import { makeRecentMap } from "../platform/RecentMap.ts"

/** A partner_players row: the domain's PartnerPlayer, its ids BIGINTs and its balance NUMERIC (read as cents). */
const PlayerRow = Schema.Struct({
  ...PartnerPlayer.fields,
  id: IdFromBigInt,
  partnerId: IdFromBigInt,
  internalUserId: IdFromBigInt,
  balance: Schema.NullOr(MinorFromNumeric)
}).pipe(
  Schema.encodeKeys({
    partnerId: "partner_id",
    externalPlayerId: "external_player_id",
    internalUserId: "internal_user_id"
  }),
  Schema.decodeTo(PartnerPlayer)
)

const PlayerArrival = Schema.Struct({
  partnerId: Schema.Int,
  /** The environment of the token that launched: live and test players never meet. */
  environment: Environment,
  externalPlayerId: Schema.String,
  /** The currency of the launch: the player's row of that currency arrives. */
  currency: Schema.String,
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  /** The balance the partner sent, in the currency's minor units. */
  balance: Schema.BigInt
})
export type PlayerArrival = typeof PlayerArrival.Type

/** Players' identities kept in memory at most (about 100 bytes each). */
const identityCapacity = 200_000

const identityOf = (player: PartnerPlayer): PlayerIdentity => ({
  id: player.id,
  partnerId: player.partnerId,
  environment: player.environment,
  externalPlayerId: player.externalPlayerId,
  internalUserId: player.internalUserId,
  currency: player.currency
})

/**
 * Partners' players (partner_players): who they are, in which environment,
 * and the balance the partner last confirmed, the wallet's mirror. Every
 * read is scoped by partner and environment, except the aggregator's look-up
 * by user code (whose environment the wallet then checks). What is kept of a
 * player follows its partner's player mode (partners.player_mode), which this
 * service reads and sets: in `shadow`, nothing but the user code's mapping.
 */
export class PartnerPlayers extends Context.Service<PartnerPlayers, {
  /**
   * The partner's player with this external id in this environment, created
   * on first sight. In `persisted` mode with the balance (and name and e-mail,
   * when given) the partner sent; in `shadow` mode with none of them (and any
   * kept from before are forgotten). Concurrent first arrivals make one row.
   */
  arrive(player: PlayerArrival): Effect.Effect<PartnerPlayer>
  find(
    partnerId: number,
    environment: Environment,
    externalPlayerId: string,
    currency: string
  ): Effect.Effect<Option.Option<PartnerPlayer>>
  /** Every row of the partner's player with this external id in this environment: one per currency it played in. */
  findAll(
    partnerId: number,
    environment: Environment,
    externalPlayerId: string
  ): Effect.Effect<ReadonlyArray<PartnerPlayer>>
  findById(id: number): Effect.Effect<Option.Option<PartnerPlayer>>
  findByIds(ids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<PartnerPlayer>>
  /** The player behind a user code the aggregator sends back. */
  findByUserCode(userCode: number): Effect.Effect<Option.Option<PartnerPlayer>>
  /**
   * Who is behind a user code: what never changes about a player (PlayerIdentity), kept in memory once read,
   * for the wallet's hot path (a bet reads the player's mirror in the statement that writes it). A player
   * removed since (a test environment's players cleared) may still be named here: the write then finds no player.
   */
  identityByUserCode(userCode: number): Effect.Effect<Option.Option<PlayerIdentity>>
  /**
   * The partner told us the player's balance: kept as the mirror (only for a player with one: never a shadow one)
   * when `stillCurrent` holds with the mirror locked, so a decision written while the partner was asked is never
   * overwritten by an answer that may not include it. False: not kept.
   */
  confirmBalance(playerId: number, balance: Minor, stillCurrent: Effect.Effect<boolean>): Effect.Effect<boolean>
  /** The mirror, locked until the surrounding transaction ends: decisions made from it take turns. Null: a shadow player. */
  lockBalance(playerId: number): Effect.Effect<Minor | null>
  /** The partner's player mode. */
  modeOf(partnerId: number): Effect.Effect<PlayerMode>
  /**
   * Sets the partner's player mode. To `shadow`, the name, e-mail and mirror of all its players, and the balances
   * its wallet rows kept (sql/0015_shadow_balances.sql), are forgotten in the same transaction; rounds in flight go on (a shadow player's mirror is simply never written). False: no such partner.
   */
  setMode(partnerId: number, mode: PlayerMode): Effect.Effect<boolean>
}>()("partner-api/partners/PartnerPlayers") {
  static readonly layerSql = Layer.effect(
    PartnerPlayers,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns =
        sql`id, partner_id, environment, external_player_id, internal_user_id, currency, name, email, balance`

      // The partner's row is locked (shared) while the player is written, and exclusively while its mode changes:
      // an arrival reads the mode that holds when it writes, so no PII lands after a switch to shadow forgot it.
      const arrive = SqlSchema.findOne({
        Request: PlayerArrival,
        Result: PlayerRow,
        execute: (p) =>
          sql`
            WITH mode AS (SELECT player_mode = 'shadow' AS shadow FROM partners WHERE id = ${p.partnerId} FOR SHARE)
            INSERT INTO partner_players (partner_id, environment, external_player_id, currency, name, email, balance)
            SELECT ${p.partnerId}, ${p.environment}, ${p.externalPlayerId}, ${p.currency},
                   CASE WHEN mode.shadow THEN NULL ELSE ${p.name}::text END,
                   CASE WHEN mode.shadow THEN NULL ELSE ${p.email}::text END,
                   CASE WHEN mode.shadow THEN NULL ELSE ${String(p.balance)}::numeric END
            FROM mode
            ON CONFLICT (partner_id, environment, external_player_id, currency) DO UPDATE SET
              name = CASE WHEN EXCLUDED.balance IS NULL THEN NULL ELSE COALESCE(EXCLUDED.name, partner_players.name) END,
              email = CASE WHEN EXCLUDED.balance IS NULL THEN NULL ELSE COALESCE(EXCLUDED.email, partner_players.email) END,
              balance = EXCLUDED.balance,
              updated_at = now()
            RETURNING ${columns}
          `
      })
      const find = SqlSchema.findOneOption({
        Request: Schema.Struct({
          partnerId: Schema.Int,
          environment: Environment,
          externalPlayerId: Schema.String,
          currency: Schema.String
        }),
        Result: PlayerRow,
        execute: ({ currency, environment, externalPlayerId, partnerId }) =>
          sql`SELECT ${columns} FROM partner_players
              WHERE partner_id = ${partnerId} AND environment = ${environment} AND external_player_id = ${externalPlayerId}
                AND currency = ${currency}`
      })
      const findAll = SqlSchema.findAll({
        Request: Schema.Struct({ partnerId: Schema.Int, environment: Environment, externalPlayerId: Schema.String }),
        Result: PlayerRow,
        execute: ({ environment, externalPlayerId, partnerId }) =>
          sql`SELECT ${columns} FROM partner_players
              WHERE partner_id = ${partnerId} AND environment = ${environment} AND external_player_id = ${externalPlayerId}
              ORDER BY currency`
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

      const lockBalance = SqlSchema.findOne({
        Request: Schema.Int,
        Result: Schema.Struct({ balance: Schema.NullOr(MinorFromNumeric) }),
        // FOR NO KEY UPDATE: decisions on the mirror take turns, while the key-share locks that rows referencing the
        // player take (a round, a transaction, a callback written by another decision of the player) never wait on
        // it, nor it on them (FOR UPDATE did: two decisions each holding a key share, each waiting to lock, deadlocked).
        execute: (playerId) => sql`SELECT balance FROM partner_players WHERE id = ${playerId} FOR NO KEY UPDATE`
      })
      const modeOf = SqlSchema.findOneOption({
        Request: Schema.Int,
        Result: Schema.Struct({ playerMode: PlayerMode }).pipe(Schema.encodeKeys({ playerMode: "player_mode" })),
        execute: (partnerId) => sql`SELECT player_mode FROM partners WHERE id = ${partnerId}`
      })

      const setMode = (partnerId: number, mode: PlayerMode) =>
        sql.withTransaction(Effect.gen(function*() {
          const updated =
            yield* sql`UPDATE partners SET player_mode = ${mode}, updated_at = now() WHERE id = ${partnerId} RETURNING id`
          if (updated.length === 0) return false
          if (mode === "shadow") {
            yield* sql`UPDATE partner_players SET name = NULL, email = NULL, balance = NULL, updated_at = now()
                       WHERE partner_id = ${partnerId} AND (name IS NOT NULL OR email IS NOT NULL OR balance IS NOT NULL)`
            // And every balance its wallet rows kept: the figures in answers and in win/refund notifications.
            // A notification still to deliver goes without it (the partner's own books hold the balance).
            yield* sql`UPDATE wallet_transactions SET balance_after = NULL, answer = answer - 'balance'
                       WHERE partner_id = ${partnerId} AND balance_after IS NOT NULL`
            yield* sql`UPDATE partner_callbacks SET body = (body::jsonb - 'balance')::text
                       WHERE partner_id = ${partnerId} AND kind IN ('win', 'refund') AND body::jsonb -> 'balance' IS NOT NULL`
          }
          return true
        })).pipe(Effect.orDie)

      // User codes are never reused and a player's identity never changes: kept for good (the least recently
      // read first out past the bound). Only found players are kept.
      const identities = makeRecentMap<number, PlayerIdentity>(identityCapacity)
      const identityByUserCode = (userCode: number) => {
        const known = identities.get(userCode, 0)
        if (known !== undefined) return Effect.succeed(Option.some(known))
        return Effect.map(
          Effect.orDie(findByUserCode(userCode)),
          Option.map((player): PlayerIdentity => {
            const identity = identityOf(player)
            identities.set(userCode, identity, Infinity)
            return identity
          })
        )
      }

      return PartnerPlayers.of({
        identityByUserCode,
        arrive: (player) => Effect.orDie(arrive(player)),
        find: (partnerId, environment, externalPlayerId, currency) =>
          Effect.orDie(find({ partnerId, environment, externalPlayerId, currency })),
        findAll: (partnerId, environment, externalPlayerId) =>
          Effect.orDie(findAll({ partnerId, environment, externalPlayerId })),
        findById: (id) => Effect.orDie(findById(id)),
        findByIds: (ids) => ids.length === 0 ? Effect.succeed([]) : Effect.orDie(findByIds(ids)),
        findByUserCode: (userCode) => Effect.orDie(findByUserCode(userCode)),
        confirmBalance: (playerId, balance, stillCurrent) =>
          sql.withTransaction(Effect.gen(function*() {
            // Locked as a decision locks it: one in flight is committed (and seen by stillCurrent) or waits.
            if ((yield* lockBalance(playerId)).balance === null || !(yield* stillCurrent)) return false
            yield* sql`UPDATE partner_players SET balance = ${
              String(balance)
            }, updated_at = now() WHERE id = ${playerId}`
            return true
          })).pipe(Effect.orDie),
        lockBalance: (playerId) =>
          lockBalance(playerId).pipe(
            Effect.map((row) => row.balance),
            Effect.orDie
          ),
        modeOf: (partnerId) =>
          modeOf(partnerId).pipe(
            Effect.map(Option.match({ onNone: () => "persisted" as const, onSome: (row) => row.playerMode })),
            Effect.orDie
          ),
        setMode
      })
    })
  )

  /** Players in memory, for tests of the rules that use them. */
  static readonly layerMemory = Layer.sync(PartnerPlayers, () => {
    const players = new Map<number, PartnerPlayer>()
    const modes = new Map<number, PlayerMode>()
    let nextId = 1
    const allOf = (partnerId: number, environment: Environment, externalPlayerId: string) =>
      [...players.values()].filter((p) =>
        p.partnerId === partnerId && p.environment === environment && p.externalPlayerId === externalPlayerId
      ).sort((a, b) => a.currency.localeCompare(b.currency))
    const byKey = (partnerId: number, environment: Environment, externalPlayerId: string, currency: string) =>
      allOf(partnerId, environment, externalPlayerId).find((p) => p.currency === currency)
    const update = (id: number, balance: Minor) => {
      const player = players.get(id)
      if (player !== undefined && player.balance !== null) players.set(id, new PartnerPlayer({ ...player, balance }))
    }
    return PartnerPlayers.of({
      arrive: (arrival) =>
        Effect.sync(() => {
          const shadow = modes.get(arrival.partnerId) === "shadow"
          const existing = byKey(arrival.partnerId, arrival.environment, arrival.externalPlayerId, arrival.currency)
          const id = existing?.id ?? nextId++
          const player = new PartnerPlayer({
            id,
            partnerId: arrival.partnerId,
            environment: arrival.environment,
            externalPlayerId: arrival.externalPlayerId,
            internalUserId: existing?.internalUserId ?? 100_000 + id,
            currency: arrival.currency,
            name: shadow ? null : arrival.name ?? existing?.name ?? null,
            email: shadow ? null : arrival.email ?? existing?.email ?? null,
            balance: shadow ? null : arrival.balance
          })
          players.set(id, player)
          return player
        }),
      find: (partnerId, environment, externalPlayerId, currency) =>
        Effect.sync(() => Option.fromNullishOr(byKey(partnerId, environment, externalPlayerId, currency))),
      findAll: (partnerId, environment, externalPlayerId) =>
        Effect.sync(() => allOf(partnerId, environment, externalPlayerId)),
      findById: (id) => Effect.sync(() => Option.fromNullishOr(players.get(id))),
      findByIds: (ids) => Effect.sync(() => ids.flatMap((id) => players.get(id) ?? [])),
      findByUserCode: (userCode) =>
        Effect.sync(() => Option.fromNullishOr([...players.values()].find((p) => p.internalUserId === userCode))),
      identityByUserCode: (userCode) =>
        Effect.sync(() =>
          Option.map(
            Option.fromNullishOr([...players.values()].find((p) => p.internalUserId === userCode)),
            identityOf
          )
        ),
      confirmBalance: (playerId, balance, stillCurrent) =>
        Effect.gen(function*() {
          if ((players.get(playerId)?.balance ?? null) === null || !(yield* stillCurrent)) return false
          update(playerId, balance)
          return true
        }),
      lockBalance: (playerId) => Effect.sync(() => players.get(playerId)?.balance ?? null),
      modeOf: (partnerId) => Effect.sync(() => modes.get(partnerId) ?? "persisted"),
      setMode: (partnerId, mode) =>
        Effect.sync(() => {
          modes.set(partnerId, mode)
          if (mode === "shadow") {
            for (const player of players.values()) {
              if (player.partnerId === partnerId) {
                players.set(player.id, new PartnerPlayer({ ...player, name: null, email: null, balance: null }))
              }
            }
          }
          return true
        })
    })
  })
}
