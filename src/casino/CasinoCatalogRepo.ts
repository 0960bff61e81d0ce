import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Schema, type Scope } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import * as ChangeFeed from "../platform/ChangeFeed.ts"
import { IdFromBigInt } from "../platform/SqlCodecs.ts"
import { rowsOf } from "../platform/SqlRows.ts"
import { CasinoConfig } from "./CasinoConfig.ts"
import {
  type CatalogChanges,
  GameRecord,
  isProviderId,
  ProviderRecord,
  type StoredCatalog
} from "./CasinoCatalogRules.ts"

export interface GameQuery {
  /** A provider's integer id or its slug. */
  readonly provider?: string | undefined
  readonly search?: string | undefined
  readonly enabled?: boolean | undefined
  readonly page: number
  readonly perPage: number
}

/** A provider as the studio matching reads it (domain/Studios.ts). */
export interface ProviderListing {
  readonly id: number
  readonly aggregator: string
  readonly name: string
}

/** Providers another aggregator serves the studio of (domain/Studios.ts): left out of every read partners make. */
export type Unserved = ReadonlyArray<number>

export interface GamePage {
  readonly games: ReadonlyArray<CasinoGame>
  readonly total: number
}

/** NOTIFY channel: the casino catalog changed (a sync, an operator's switch), from any process. */
export const casinoCatalogChangedChannel = "partner_api_casino_catalog_changed"

/** A casino_providers_status row: the domain's CasinoProvider, the columns' names at this edge only. */
const ProviderRow = Schema.Struct(CasinoProvider.fields).pipe(
  Schema.encodeKeys({ upstreamCode: "upstream_code" }),
  Schema.decodeTo(CasinoProvider)
)

/** A casino_games_status row: the domain's CasinoGame, its id a BIGINT (a bigint from the driver). */
const GameRow = Schema.Struct({ ...CasinoGame.fields, id: IdFromBigInt }).pipe(
  Schema.encodeKeys({
    gameCode: "game_code",
    providerId: "provider_id",
    providerSlug: "provider_slug",
    providerUpstreamCode: "provider_upstream_code",
    imageUrl: "image_url"
  }),
  Schema.decodeTo(CasinoGame)
)
const decodeGameRows = Schema.decodeUnknownEffect(Schema.Array(GameRow))
const totalRows = rowsOf(Schema.Struct({ total: Schema.Int }))
const emptyRows = rowsOf(Schema.Struct({ empty: Schema.Boolean }))

// A sync's rows go to PostgreSQL as one JSON document of the records' encoded (row) form.
const providerRowsJson = (rows: ReadonlyArray<ProviderRecord>) =>
  JSON.stringify(Schema.encodeSync(Schema.Array(ProviderRecord))(rows))
const gameRowsJson = (rows: ReadonlyArray<GameRecord>) =>
  JSON.stringify(Schema.encodeSync(Schema.Array(GameRecord))(rows))

/** LIKE pattern for a substring, with the user's own % and _ taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * The casino catalog's tables (casino_providers, casino_games and their
 * `_status` views, which add what partners see as enabled): the only place
 * their SQL lives, every row decoded once. Changes are announced to every
 * process through NOTIFY.
 */
export class CasinoCatalogRepo extends Context.Service<CasinoCatalogRepo, {
  providers(enabledOnly: boolean, unserved: Unserved): Effect.Effect<ReadonlyArray<CasinoProvider>>
  findProvider(ref: string, unserved: Unserved): Effect.Effect<Option.Option<CasinoProvider>>
  findGame(providerRef: string, gameCode: string, unserved: Unserved): Effect.Effect<Option.Option<CasinoGame>>
  games(query: GameQuery, unserved: Unserved): Effect.Effect<GamePage>
  /** Every provider of the aggregators kept, served or not: what the studio matching reads. */
  readonly listings: Effect.Effect<ReadonlyArray<ProviderListing>>
  /** Whether some aggregator kept was never synced (no provider, no recorded sync). */
  readonly isEmpty: Effect.Effect<boolean>
  /** Runs a sync: one at a time across every instance, all of it or none. */
  syncing<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** What the syncs stored of one aggregator: its facts, without the operator's switches. */
  stored(aggregator: string): Effect.Effect<StoredCatalog>
  write(aggregator: string, changes: CatalogChanges): Effect.Effect<void>
  /** Records that a sync of `aggregator` completed now (whether or not it changed anything). */
  markSynced(aggregator: string): Effect.Effect<void>
  /** When each aggregator's catalogue was last synced. */
  readonly lastSyncs: Effect.Effect<ReadonlyMap<string, Date>>
  /** The operator's switch; none when the reference names nothing. */
  setProviderEnabled(ref: string, enabled: boolean): Effect.Effect<Option.Option<CasinoProvider>>
  setGameEnabled(providerRef: string, gameCode: string, enabled: boolean): Effect.Effect<Option.Option<CasinoGame>>
  /** Tells every process the catalog changed (at commit, inside a transaction). */
  readonly announceChange: Effect.Effect<void>
  /** Runs `effect` after each change any process announces, for as long as the scope lives. */
  onChange(effect: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope>
}>()("partner-api/casino/CasinoCatalogRepo") {
  static readonly layerSql = Layer.effect(
    CasinoCatalogRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const pg = yield* PgClient.PgClient
      // The catalog kept here is the aggregators CASINO_GATEWAY lists: their rows, and their keys (a provider's code
      // and slug are unique within one aggregator). A provider another aggregator serves the studio of is left out.
      const kept = (yield* CasinoConfig).gateways as ReadonlyArray<string>
      const mine = sql`aggregator = ANY(${kept}::text[])`
      const servedProvider = (column: "id" | "provider_id", unserved: Unserved) =>
        unserved.length === 0 ? mine : sql.and([mine, sql`NOT (${sql(column)} = ANY(${unserved}::int[]))`])

      const providerColumns = sql`id, slug, name, upstream_code, enabled, aggregator`
      const gameColumns = sql`id, game_code, name, provider_id, provider_slug, provider_upstream_code, enabled,
                              image_url, original, aggregator`
      const providerMatch = (ref: string, unserved: Unserved) =>
        sql.and([servedProvider("id", unserved), isProviderId(ref) ? sql`id = ${Number(ref)}` : sql`slug = ${ref}`])
      const gameProviderMatch = (ref: string, unserved: Unserved) =>
        sql.and([
          servedProvider("provider_id", unserved),
          isProviderId(ref) ? sql`provider_id = ${Number(ref)}` : sql`provider_slug = ${ref}`
        ])
      const Unserved = Schema.Array(Schema.Number)

      const providers = SqlSchema.findAll({
        Request: Schema.Struct({ enabledOnly: Schema.Boolean, unserved: Unserved }),
        Result: ProviderRow,
        execute: ({ enabledOnly, unserved }) =>
          sql`SELECT ${providerColumns} FROM casino_providers_status
              WHERE ${servedProvider("id", unserved)} ${enabledOnly ? sql`AND enabled` : sql``}
              ORDER BY name COLLATE natural_ci, id`
      })
      // A slug is unique within one aggregator: two aggregators' studios of one slug are one studio, one served.
      const findProvider = SqlSchema.findOneOption({
        Request: Schema.Struct({ ref: Schema.String, unserved: Unserved }),
        Result: ProviderRow,
        execute: ({ ref, unserved }) =>
          sql`SELECT ${providerColumns} FROM casino_providers_status WHERE ${providerMatch(ref, unserved)}
              ORDER BY id LIMIT 1`
      })
      const findGame = SqlSchema.findOneOption({
        Request: Schema.Struct({ providerRef: Schema.String, gameCode: Schema.String, unserved: Unserved }),
        Result: GameRow,
        execute: ({ gameCode, providerRef, unserved }) =>
          sql`SELECT ${gameColumns} FROM casino_games_status
              WHERE game_code = ${gameCode} AND ${gameProviderMatch(providerRef, unserved)} ORDER BY id LIMIT 1`
      })
      const listings = SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ id: Schema.Int, aggregator: Schema.String, name: Schema.String }),
        execute: () => sql`SELECT id, aggregator, name FROM casino_providers WHERE ${mine} ORDER BY id`
      })
      const storedProviders = SqlSchema.findAll({
        Request: Schema.String,
        Result: ProviderRecord,
        execute: (aggregator) =>
          sql`SELECT upstream_code, slug, name, image_url, upstream_enabled, present_upstream FROM casino_providers
              WHERE aggregator = ${aggregator}`
      })
      const storedGames = SqlSchema.findAll({
        Request: Schema.String,
        Result: GameRecord,
        execute: (aggregator) =>
          sql`SELECT p.upstream_code AS provider_code, g.game_code, g.name, g.image_url, g.original, g.upstream_enabled,
                     g.present_upstream
              FROM casino_games g JOIN casino_providers p ON p.id = g.provider_id
              WHERE g.aggregator = ${aggregator}`
      })
      const syncTimes = SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ aggregator: Schema.String, synced_at: Schema.Date }),
        execute: () => sql`SELECT aggregator, synced_at FROM casino_aggregator_syncs WHERE ${mine}`
      })

      const games = Effect.fn("CasinoCatalogRepo.games")(function*(query: GameQuery, unserved: Unserved) {
        const filters: Array<Statement.Fragment> = [servedProvider("provider_id", unserved)]
        if (query.provider !== undefined && query.provider !== "") {
          filters.push(gameProviderMatch(query.provider, unserved))
        }
        const search = query.search?.trim()
        if (search) filters.push(sql`search_text LIKE ${containing(search)}`)
        if (query.enabled !== undefined) filters.push(query.enabled ? sql`enabled` : sql`NOT enabled`)
        const where = sql`WHERE ${sql.and(filters)}`
        const [rows, counted] = yield* Effect.all([
          sql`SELECT ${gameColumns} FROM casino_games_status ${where}
              ORDER BY provider_id, name COLLATE natural_ci, game_code
              LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}`,
          totalRows(sql`SELECT count(*)::int AS total FROM casino_games_status ${where}`)
        ], { concurrency: 2 })
        return { games: yield* decodeGameRows(rows), total: counted[0].total }
      }, Effect.orDie)

      // Rows travel as one JSON document: typed by the column list, whatever nulls or emptiness they hold.
      const writeProviders = (aggregator: string, rows: ReadonlyArray<ProviderRecord>) =>
        rows.length === 0 ? Effect.void : sql`
          INSERT INTO casino_providers (aggregator, slug, upstream_code, name, image_url, upstream_enabled, present_upstream,
                                        synced_at)
          SELECT ${aggregator}, s.slug, s.upstream_code, s.name, s.image_url, s.upstream_enabled, s.present_upstream, now()
          FROM jsonb_to_recordset(${providerRowsJson(rows)}::jsonb)
            AS s(upstream_code text, slug text, name text, image_url text, upstream_enabled boolean, present_upstream boolean)
          ON CONFLICT (aggregator, upstream_code) DO UPDATE SET
            name = EXCLUDED.name, image_url = EXCLUDED.image_url, upstream_enabled = EXCLUDED.upstream_enabled,
            present_upstream = EXCLUDED.present_upstream, synced_at = now()
        `.pipe(Effect.asVoid)
      const writeGames = (aggregator: string, rows: ReadonlyArray<GameRecord>) =>
        rows.length === 0 ? Effect.void : sql`
          INSERT INTO casino_games (aggregator, provider_id, game_code, name, image_url, original, upstream_enabled,
                                    present_upstream, synced_at)
          SELECT p.aggregator, p.id, s.game_code, s.name, s.image_url, s.original, s.upstream_enabled, s.present_upstream, now()
          FROM jsonb_to_recordset(${gameRowsJson(rows)}::jsonb)
            AS s(provider_code text, game_code text, name text, image_url text, original boolean, upstream_enabled boolean,
                 present_upstream boolean)
          JOIN casino_providers p ON p.aggregator = ${aggregator} AND p.upstream_code = s.provider_code
          ON CONFLICT (aggregator, provider_id, game_code) DO UPDATE SET
            name = EXCLUDED.name, image_url = EXCLUDED.image_url, original = EXCLUDED.original,
            upstream_enabled = EXCLUDED.upstream_enabled, present_upstream = EXCLUDED.present_upstream, synced_at = now()
        `.pipe(Effect.asVoid)

      return CasinoCatalogRepo.of({
        providers: (enabledOnly, unserved) => Effect.orDie(providers({ enabledOnly, unserved })),
        findProvider: (ref, unserved) => Effect.orDie(findProvider({ ref, unserved })),
        findGame: (providerRef, gameCode, unserved) => Effect.orDie(findGame({ providerRef, gameCode, unserved })),
        games,
        listings: Effect.orDie(listings()),
        // An aggregator listed that has neither a provider nor a recorded sync was never synced.
        isEmpty: Effect.map(
          emptyRows(sql`SELECT (SELECT count(*) FROM unnest(${kept}::text[]) AS k(aggregator)
                                WHERE EXISTS (SELECT 1 FROM casino_providers p WHERE p.aggregator = k.aggregator)
                                   OR EXISTS (SELECT 1 FROM casino_aggregator_syncs s WHERE s.aggregator = k.aggregator))
                               < ${kept.length} AS empty`),
          (rows) => rows[0].empty
        ),
        syncing: (effect) =>
          sql.withTransaction(
            Effect.andThen(sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:casino-sync'))`, effect)
          ).pipe(Effect.catchTag("SqlError", Effect.die)),
        stored: (aggregator) =>
          Effect.all({ providers: storedProviders(aggregator), games: storedGames(aggregator) }, { concurrency: 1 })
            .pipe(Effect.orDie),
        write: (aggregator, changes) =>
          Effect.andThen(
            writeProviders(aggregator, [
              ...changes.providers.added,
              ...changes.providers.changed,
              ...changes.providers.absent
            ]),
            writeGames(aggregator, [...changes.games.added, ...changes.games.changed, ...changes.games.absent])
          ).pipe(Effect.orDie),
        markSynced: (aggregator) =>
          sql`INSERT INTO casino_aggregator_syncs (aggregator, synced_at) VALUES (${aggregator}, now())
              ON CONFLICT (aggregator) DO UPDATE SET synced_at = EXCLUDED.synced_at`.pipe(Effect.asVoid, Effect.orDie),
        lastSyncs: Effect.map(
          Effect.orDie(syncTimes()),
          (rows) => new Map(rows.map((row) => [row.aggregator, row.synced_at]))
        ),
        // The operator's switches reach the providers of every aggregator kept, served or not.
        setProviderEnabled: (ref, enabled) =>
          Effect.andThen(
            sql`UPDATE casino_providers SET operator_enabled = ${enabled}
                WHERE id = (SELECT id FROM casino_providers WHERE ${providerMatch(ref, [])} ORDER BY id LIMIT 1)`,
            findProvider({ ref, unserved: [] })
          ).pipe(Effect.orDie),
        setGameEnabled: (providerRef, gameCode, enabled) =>
          Effect.andThen(
            sql`UPDATE casino_games SET operator_enabled = ${enabled}
                WHERE ${mine} AND game_code = ${gameCode}
                  AND provider_id = (SELECT id FROM casino_providers WHERE ${providerMatch(providerRef, [])}
                                     ORDER BY id LIMIT 1)`,
            findGame({ providerRef, gameCode, unserved: [] })
          ).pipe(Effect.orDie),
        announceChange: ChangeFeed.announce(casinoCatalogChangedChannel).pipe(
          Effect.provideService(SqlClient.SqlClient, sql)
        ),
        onChange: (effect) =>
          ChangeFeed.onChange(casinoCatalogChangedChannel, effect).pipe(Effect.provideService(PgClient.PgClient, pg))
      })
    })
  )
}
