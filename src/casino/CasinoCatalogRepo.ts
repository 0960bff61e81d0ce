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
  providers(enabledOnly: boolean): Effect.Effect<ReadonlyArray<CasinoProvider>>
  findProvider(ref: string): Effect.Effect<Option.Option<CasinoProvider>>
  findGame(providerRef: string, gameCode: string): Effect.Effect<Option.Option<CasinoGame>>
  games(query: GameQuery): Effect.Effect<GamePage>
  readonly isEmpty: Effect.Effect<boolean>
  /** Runs a sync: one at a time across every instance, all of it or none. */
  syncing<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** What the syncs stored: the aggregator's facts, without the operator's switches. */
  readonly stored: Effect.Effect<StoredCatalog>
  write(changes: CatalogChanges): Effect.Effect<void>
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
      // The catalog kept here is the aggregator CASINO_GATEWAY names: its rows, and its keys (a provider's code and
      // slug are unique within one aggregator).
      const aggregator = (yield* CasinoConfig).gateway
      const mine = sql`aggregator = ${aggregator}`

      const providerColumns = sql`id, slug, name, upstream_code, enabled`
      const gameColumns =
        sql`id, game_code, name, provider_id, provider_slug, provider_upstream_code, enabled, image_url, original`
      const providerMatch = (ref: string) =>
        sql.and([mine, isProviderId(ref) ? sql`id = ${Number(ref)}` : sql`slug = ${ref}`])
      const gameProviderMatch = (ref: string) =>
        sql.and([mine, isProviderId(ref) ? sql`provider_id = ${Number(ref)}` : sql`provider_slug = ${ref}`])

      const providers = SqlSchema.findAll({
        Request: Schema.Boolean,
        Result: ProviderRow,
        execute: (enabledOnly) =>
          sql`SELECT ${providerColumns} FROM casino_providers_status
              WHERE ${mine} ${enabledOnly ? sql`AND enabled` : sql``} ORDER BY name COLLATE natural_ci, id`
      })
      const findProvider = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: ProviderRow,
        execute: (ref) => sql`SELECT ${providerColumns} FROM casino_providers_status WHERE ${providerMatch(ref)}`
      })
      const findGame = SqlSchema.findOneOption({
        Request: Schema.Struct({ providerRef: Schema.String, gameCode: Schema.String }),
        Result: GameRow,
        execute: ({ gameCode, providerRef }) =>
          sql`SELECT ${gameColumns} FROM casino_games_status
              WHERE game_code = ${gameCode} AND ${gameProviderMatch(providerRef)}`
      })
      const storedProviders = SqlSchema.findAll({
        Request: Schema.Void,
        Result: ProviderRecord,
        execute: () =>
          sql`SELECT upstream_code, slug, name, image_url, upstream_enabled, present_upstream FROM casino_providers
              WHERE ${mine}`
      })
      const storedGames = SqlSchema.findAll({
        Request: Schema.Void,
        Result: GameRecord,
        execute: () =>
          sql`SELECT p.upstream_code AS provider_code, g.game_code, g.name, g.image_url, g.original, g.upstream_enabled,
                     g.present_upstream
              FROM casino_games g JOIN casino_providers p ON p.id = g.provider_id
              WHERE g.aggregator = ${aggregator}`
      })

      const games = Effect.fn("CasinoCatalogRepo.games")(function*(query: GameQuery) {
        const filters: Array<Statement.Fragment> = [mine]
        if (query.provider !== undefined && query.provider !== "") filters.push(gameProviderMatch(query.provider))
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
      const writeProviders = (rows: ReadonlyArray<ProviderRecord>) =>
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
      const writeGames = (rows: ReadonlyArray<GameRecord>) =>
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
        providers: (enabledOnly) => Effect.orDie(providers(enabledOnly)),
        findProvider: (ref) => Effect.orDie(findProvider(ref)),
        findGame: (providerRef, gameCode) => Effect.orDie(findGame({ providerRef, gameCode })),
        games,
        isEmpty: Effect.map(
          emptyRows(sql`SELECT NOT EXISTS (SELECT 1 FROM casino_providers WHERE ${mine}) AS empty`),
          (rows) => rows[0].empty
        ),
        syncing: (effect) =>
          sql.withTransaction(
            Effect.andThen(sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:casino-sync'))`, effect)
          ).pipe(Effect.catchTag("SqlError", Effect.die)),
        stored: Effect.all({ providers: storedProviders(), games: storedGames() }, { concurrency: 1 }).pipe(
          Effect.orDie
        ),
        write: (changes) =>
          Effect.andThen(
            writeProviders([...changes.providers.added, ...changes.providers.changed, ...changes.providers.absent]),
            writeGames([...changes.games.added, ...changes.games.changed, ...changes.games.absent])
          ).pipe(Effect.orDie),
        setProviderEnabled: (ref, enabled) =>
          Effect.andThen(
            sql`UPDATE casino_providers SET operator_enabled = ${enabled} WHERE ${providerMatch(ref)}`,
            findProvider(ref)
          ).pipe(Effect.orDie),
        setGameEnabled: (providerRef, gameCode, enabled) =>
          Effect.andThen(
            sql`UPDATE casino_games SET operator_enabled = ${enabled}
                WHERE ${mine} AND game_code = ${gameCode}
                  AND provider_id = (SELECT id FROM casino_providers WHERE ${providerMatch(providerRef)})`,
            findGame({ providerRef, gameCode })
          ).pipe(Effect.orDie),
        announceChange: ChangeFeed.announce(casinoCatalogChangedChannel).pipe(
          Effect.provideService(SqlClient.SqlClient, sql)
        ),
        onChange: (effect) =>
          ChangeFeed.onChange(casinoCatalogChangedChannel, effect).pipe(Effect.provideService(PgClient.PgClient, pg))
      })
    })
  )

  /** The same tables in memory (see makeMemory), for tests without PostgreSQL. */
  static readonly layerMemory = Layer.sync(CasinoCatalogRepo, () => makeMemory())
}

interface StoredProvider extends ProviderRecord {
  readonly id: number
  readonly operatorEnabled: boolean
}

interface StoredGame extends GameRecord {
  readonly id: number
  readonly operatorEnabled: boolean
}

const restore = <V>(map: Map<string, V>, from: ReadonlyMap<string, V>) => {
  map.clear()
  for (const [key, value] of from) map.set(key, value)
}

/** Names in the order partners see them: case-insensitive, numbers by value (PostgreSQL's natural_ci, near enough). */
const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true, sensitivity: "base" })

/**
 * The casino catalog's tables in memory, with the `_status` views' rule
 * (enabled = the operator's switch, the aggregator's flag, listed, and for
 * a game its provider enabled), for tests without a database. Changes
 * reach the listeners of this one instance.
 */
const makeMemory = () => {
  const providers = new Map<string, StoredProvider>()
  const games = new Map<string, StoredGame>()
  const listeners: Array<Effect.Effect<void>> = []
  let nextId = 1

  const providerEnabled = (p: StoredProvider) => p.operatorEnabled && p.upstreamEnabled && p.presentUpstream
  const toProvider = (p: StoredProvider) =>
    new CasinoProvider({
      id: p.id,
      slug: p.slug,
      name: p.name,
      upstreamCode: p.upstreamCode,
      enabled: providerEnabled(p)
    })
  const toGame = (g: StoredGame) => {
    const provider = providers.get(g.providerCode)!
    return new CasinoGame({
      id: g.id,
      gameCode: g.gameCode,
      name: g.name,
      providerId: provider.id,
      providerSlug: provider.slug,
      providerUpstreamCode: provider.upstreamCode,
      enabled: g.operatorEnabled && g.upstreamEnabled && g.presentUpstream && providerEnabled(provider),
      imageUrl: g.imageUrl,
      original: g.original
    })
  }
  const providerByRef = (ref: string) =>
    [...providers.values()].find((p) => isProviderId(ref) ? p.id === Number(ref) : p.slug === ref)
  const gameByRef = (providerRef: string, gameCode: string) => {
    const provider = providerByRef(providerRef)
    return provider === undefined ? undefined : games.get(`${provider.upstreamCode}\u0000${gameCode}`)
  }
  const sortedGames = () =>
    [...games.values()].map(toGame).sort((a, b) =>
      a.providerId - b.providerId || byName(a.name, b.name) || (a.gameCode < b.gameCode ? -1 : 1)
    )

  return CasinoCatalogRepo.of({
    providers: (enabledOnly) =>
      Effect.sync(() =>
        [...providers.values()].map(toProvider).filter((p) => !enabledOnly || p.enabled)
          .sort((a, b) => byName(a.name, b.name) || a.id - b.id)
      ),
    findProvider: (ref) => Effect.sync(() => Option.map(Option.fromNullishOr(providerByRef(ref)), toProvider)),
    findGame: (providerRef, gameCode) =>
      Effect.sync(() => Option.map(Option.fromNullishOr(gameByRef(providerRef, gameCode)), toGame)),
    games: (query) =>
      Effect.sync(() => {
        const provider = query.provider === undefined || query.provider === "" ? undefined : query.provider
        const search = query.search?.trim().toLowerCase()
        const matching = sortedGames().filter((game) =>
          (provider === undefined ||
            (isProviderId(provider) ? game.providerId === Number(provider) : game.providerSlug === provider)) &&
          (!search || `${game.gameCode} ${game.name}`.toLowerCase().includes(search)) &&
          (query.enabled === undefined || game.enabled === query.enabled)
        )
        const start = (query.page - 1) * query.perPage
        return { games: matching.slice(start, start + query.perPage), total: matching.length }
      }),
    isEmpty: Effect.sync(() => providers.size === 0),
    // All of it or none, as the SQL's transaction: what a failed sync wrote is put back.
    syncing: (effect) =>
      Effect.suspend(() => {
        const before = { providers: new Map(providers), games: new Map(games) }
        return Effect.onError(effect, () =>
          Effect.sync(() => {
            restore(providers, before.providers)
            restore(games, before.games)
          }))
      }),
    // The records as a sync stored them, without the ids and switches the rows have beside them.
    stored: Effect.sync(() => ({
      providers: [...providers.values()].map(({ id: _, operatorEnabled: __, ...record }) => record),
      games: [...games.values()].map(({ id: _, operatorEnabled: __, ...record }) => record)
    })),
    write: (changes) =>
      Effect.sync(() => {
        const written = [...changes.providers.added, ...changes.providers.changed, ...changes.providers.absent]
        // A slug is one provider's (UNIQUE in SQL): a write giving it to another is refused whole, a defect.
        const slugs = new Map([...providers.values()].map((p) => [p.slug, p.upstreamCode]))
        for (const row of written) {
          const slug = providers.get(row.upstreamCode)?.slug ?? row.slug
          const holder = slugs.get(slug)
          if (holder !== undefined && holder !== row.upstreamCode) {
            throw new Error(`casino_providers: the slug "${slug}" is another provider's`)
          }
          slugs.set(slug, row.upstreamCode)
        }
        for (const row of written) {
          const before = providers.get(row.upstreamCode)
          providers.set(row.upstreamCode, {
            ...row,
            slug: before?.slug ?? row.slug,
            id: before?.id ?? nextId++,
            operatorEnabled: before?.operatorEnabled ?? true
          })
        }
        for (const row of [...changes.games.added, ...changes.games.changed, ...changes.games.absent]) {
          if (!providers.has(row.providerCode)) continue
          const key = `${row.providerCode}\u0000${row.gameCode}`
          const before = games.get(key)
          games.set(key, { ...row, id: before?.id ?? nextId++, operatorEnabled: before?.operatorEnabled ?? true })
        }
      }),
    setProviderEnabled: (ref, enabled) =>
      Effect.sync(() => {
        const provider = providerByRef(ref)
        if (provider === undefined) return Option.none()
        const updated = { ...provider, operatorEnabled: enabled }
        providers.set(provider.upstreamCode, updated)
        return Option.some(toProvider(updated))
      }),
    setGameEnabled: (providerRef, gameCode, enabled) =>
      Effect.sync(() => {
        const game = gameByRef(providerRef, gameCode)
        if (game === undefined) return Option.none()
        const updated = { ...game, operatorEnabled: enabled }
        games.set(`${game.providerCode}\u0000${game.gameCode}`, updated)
        return Option.some(toGame(updated))
      }),
    announceChange: Effect.suspend(() => Effect.all(listeners, { discard: true })),
    onChange: (effect) => Effect.sync(() => void listeners.push(effect))
  })
}
