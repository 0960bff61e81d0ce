import { Cache, Context, Duration, Effect, Exit, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import { slugify } from "../domain/Slug.ts"
import * as ChangeFeed from "../platform/ChangeFeed.ts"
import { IdFromBigInt } from "../platform/SqlCodecs.ts"
import { CasinoConfig } from "./CasinoConfig.ts"
import type { UpstreamGame, UpstreamProvider } from "./CasinoGateway.ts"

// A game's id is a BIGSERIAL, which the driver hands over as a bigint.
const GameRow = Schema.Struct({ ...CasinoGame.fields, id: IdFromBigInt }).pipe(Schema.decodeTo(CasinoGame))
const decodeGameRows = Schema.decodeUnknownEffect(Schema.Array(GameRow))

export interface GameQuery {
  /** A provider's integer id or its slug. */
  readonly provider?: string | undefined
  readonly search?: string | undefined
  readonly enabled?: boolean | undefined
  readonly page: number
  readonly perPage: number
}

export interface SyncReport {
  readonly providers: { readonly added: number; readonly changed: number; readonly absent: number }
  readonly games: { readonly added: number; readonly changed: number; readonly absent: number }
}

export class UnknownProvider extends Schema.TaggedError<UnknownProvider>()("UnknownProvider", {
  provider: Schema.String
}) {
  override get message() {
    return `No casino provider "${this.provider}" (give its id or slug).`
  }
}

export class UnknownGame extends Schema.TaggedError<UnknownGame>()("UnknownGame", {
  provider: Schema.String,
  gameCode: Schema.String
}) {
  override get message() {
    return `No game "${this.gameCode}" for provider "${this.provider}".`
  }
}

/** LIKE pattern for a substring, with the user's own % and _ taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const isProviderId = (ref: string) => /^\d{1,9}$/.test(ref)

/** NOTIFY channel: the catalog changed (a sync, an operator's switch), from any process. */
export const catalogChangedChannel = "partner_api_casino_catalog_changed"

/**
 * The local casino catalog in PostgreSQL: what partners list and launch
 * from, refreshed from the aggregator by `sync`. It changes only through a
 * sync or an operator, so reads are answered from memory for
 * CASINO_CATALOG_CACHE_TTL and forgotten on every instance at once when it
 * changes.
 */
export class CasinoCatalog extends Context.Service<CasinoCatalog, {
  readonly enabledProviders: Effect.Effect<ReadonlyArray<CasinoProvider>>
  readonly allProviders: Effect.Effect<ReadonlyArray<CasinoProvider>>
  games(query: GameQuery): Effect.Effect<{ readonly games: ReadonlyArray<CasinoGame>; readonly total: number }>
  findProvider(ref: string): Effect.Effect<Option.Option<CasinoProvider>>
  findGame(providerRef: string, gameCode: string): Effect.Effect<Option.Option<CasinoGame>>
  readonly isEmpty: Effect.Effect<boolean>
  /** Applies one complete snapshot of the aggregator's catalog, all or nothing. */
  sync(snapshot: {
    readonly providers: ReadonlyArray<UpstreamProvider>
    readonly games: ReadonlyArray<UpstreamGame>
  }): Effect.Effect<SyncReport>
  setProviderEnabled(ref: string, enabled: boolean): Effect.Effect<CasinoProvider, UnknownProvider>
  setGameEnabled(providerRef: string, gameCode: string, enabled: boolean): Effect.Effect<CasinoGame, UnknownGame>
}>()("partner-api/casino/CasinoCatalog") {
  static readonly layer = Layer.effect(
    CasinoCatalog,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { catalogCacheTtl } = yield* CasinoConfig

      const providerColumns = sql`id, slug, name, upstream_code, enabled`
      const gameColumns =
        sql`id, game_code, name, provider_id, provider_slug, provider_upstream_code, enabled, image_url, original`
      const providerMatch = (ref: string) =>
        isProviderId(ref) ? sql`id = ${Number(ref)}` : sql`slug = ${ref}`

      const queryProviders = (enabledOnly: boolean) =>
        SqlSchema.findAll({
          Request: Schema.Void,
          Result: CasinoProvider,
          execute: () =>
            sql`SELECT ${providerColumns} FROM casino_providers_status
                ${enabledOnly ? sql`WHERE enabled` : sql``} ORDER BY name COLLATE natural_ci, id`
        })().pipe(Effect.orDie)

      const queryProvider = (ref: string) =>
        SqlSchema.findOneOption({
          Request: Schema.String,
          Result: CasinoProvider,
          execute: (ref) => sql`SELECT ${providerColumns} FROM casino_providers_status WHERE ${providerMatch(ref)}`
        })(ref).pipe(Effect.orDie)

      const queryGame = (providerRef: string, gameCode: string) =>
        SqlSchema.findOneOption({
          Request: Schema.Void,
          Result: GameRow,
          execute: () =>
            sql`SELECT ${gameColumns} FROM casino_games_status
                WHERE game_code = ${gameCode} AND ${
              isProviderId(providerRef) ? sql`provider_id = ${Number(providerRef)}` : sql`provider_slug = ${providerRef}`
            }`
        })().pipe(Effect.orDie)

      const queryGames = Effect.fn("CasinoCatalog.games")(function*(query: GameQuery) {
        const filters = []
        if (query.provider !== undefined && query.provider !== "") {
          filters.push(
            isProviderId(query.provider) ? sql`provider_id = ${Number(query.provider)}` : sql`provider_slug = ${query.provider}`
          )
        }
        const search = query.search?.trim()
        if (search) {
          const pattern = containing(search)
          filters.push(sql`search_text LIKE ${pattern}`)
        }
        if (query.enabled !== undefined) filters.push(query.enabled ? sql`enabled` : sql`NOT enabled`)
        const where = filters.length === 0 ? sql`` : sql`WHERE ${sql.and(filters)}`
        const [rows, counted] = yield* Effect.all([
          sql`
            SELECT ${gameColumns} FROM casino_games_status ${where}
            ORDER BY provider_id, name COLLATE natural_ci, game_code
            LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}
          `,
          sql<{ total: number }>`SELECT count(*)::int AS total FROM casino_games_status ${where}`
        ], { concurrency: 2 }).pipe(Effect.orDie)
        const decoded = yield* decodeGameRows(rows).pipe(Effect.orDie)
        return { games: decoded, total: counted[0].total }
      })

      const cached = <K, A>(lookup: (key: K) => Effect.Effect<A>) =>
        Cache.makeWith(lookup, {
          capacity: 5_000,
          timeToLive: (exit) => Exit.isSuccess(exit) ? catalogCacheTtl : Duration.zero
        })
      const gamesCache = yield* cached((key: string) => queryGames(JSON.parse(key) as GameQuery))
      const gameCache = yield* cached((key: string) => {
        const [providerRef, gameCode] = JSON.parse(key) as [string, string]
        return queryGame(providerRef, gameCode)
      })
      const providerCache = yield* cached(queryProvider)
      const providersCache = yield* cached(queryProviders)
      const forget = Effect.all([
        Cache.invalidateAll(gamesCache),
        Cache.invalidateAll(gameCache),
        Cache.invalidateAll(providerCache),
        Cache.invalidateAll(providersCache)
      ], { discard: true })
      yield* ChangeFeed.onChange(catalogChangedChannel, forget)
      const changed = Effect.andThen(
        ChangeFeed.announce(catalogChangedChannel).pipe(Effect.provideService(SqlClient.SqlClient, sql)),
        forget
      )

      // The key lists every field in a fixed order, so equal queries share an entry.
      const games = (query: GameQuery) =>
        Cache.get(
          gamesCache,
          JSON.stringify({
            provider: query.provider,
            search: query.search,
            enabled: query.enabled,
            page: query.page,
            perPage: query.perPage
          } satisfies GameQuery)
        )
      const findGame = (providerRef: string, gameCode: string) =>
        Cache.get(gameCache, JSON.stringify([providerRef, gameCode]))
      const findProvider = (ref: string) => Cache.get(providerCache, ref)

      const sync = Effect.fn("CasinoCatalog.sync")(function*(snapshot: {
        readonly providers: ReadonlyArray<UpstreamProvider>
        readonly games: ReadonlyArray<UpstreamGame>
      }) {
        // One sync at a time across every instance; the whole snapshot lands or none of it.
        yield* sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:casino-sync'))`
        const existing = yield* sql<{ upstream_code: string; slug: string }>`
          SELECT upstream_code, slug FROM casino_providers
        `
        const slugOf = new Map(existing.map((row) => [row.upstream_code, row.slug]))
        const taken = new Set(existing.map((row) => row.slug))
        for (const provider of snapshot.providers) {
          if (slugOf.has(provider.code)) continue
          const base = slugify(provider.name, "provider")
          let candidate = base
          for (let n = 2; taken.has(candidate); n++) candidate = `${base}-${n}`
          taken.add(candidate)
          slugOf.set(provider.code, candidate)
        }

        // Rows travel as one JSON document each way: typed by the column list, whatever nulls or emptiness they hold.
        const providerRows = JSON.stringify(snapshot.providers.map((p) => ({
          slug: slugOf.get(p.code)!,
          code: p.code,
          name: p.name,
          image_url: p.imageUrl,
          enabled: p.enabled
        })))
        const providerChanges = yield* sql<{ inserted: boolean }>`
          INSERT INTO casino_providers (slug, upstream_code, name, image_url, upstream_enabled, present_upstream, synced_at)
          SELECT s.slug, s.code, s.name, s.image_url, s.enabled, true, now()
          FROM jsonb_to_recordset(${providerRows}::jsonb)
            AS s(slug text, code text, name text, image_url text, enabled boolean)
          ON CONFLICT (upstream_code) DO UPDATE SET
            name = EXCLUDED.name, image_url = EXCLUDED.image_url, upstream_enabled = EXCLUDED.upstream_enabled,
            present_upstream = true, synced_at = now()
          WHERE (casino_providers.name, casino_providers.image_url, casino_providers.upstream_enabled,
                 casino_providers.present_upstream)
                IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.image_url, EXCLUDED.upstream_enabled, true)
          RETURNING (xmax = 0) AS inserted
        `
        const absentProviders = yield* sql`
          UPDATE casino_providers SET present_upstream = false, synced_at = now()
          WHERE present_upstream AND upstream_code NOT IN (
            SELECT s.code FROM jsonb_to_recordset(${providerRows}::jsonb) AS s(code text)
          )
          RETURNING id
        `

        const gameRows = JSON.stringify(snapshot.games.map((g) => ({
          provider_code: g.providerCode,
          code: g.code,
          name: g.name,
          image_url: g.imageUrl,
          original: g.original,
          enabled: g.enabled
        })))
        const gameChanges = yield* sql<{ inserted: boolean }>`
          INSERT INTO casino_games (provider_id, game_code, name, image_url, original, upstream_enabled, present_upstream, synced_at)
          SELECT p.id, s.code, s.name, s.image_url, s.original, s.enabled, true, now()
          FROM jsonb_to_recordset(${gameRows}::jsonb)
            AS s(provider_code text, code text, name text, image_url text, original boolean, enabled boolean)
          JOIN casino_providers p ON p.upstream_code = s.provider_code
          ON CONFLICT (provider_id, game_code) DO UPDATE SET
            name = EXCLUDED.name, image_url = EXCLUDED.image_url, original = EXCLUDED.original,
            upstream_enabled = EXCLUDED.upstream_enabled, present_upstream = true, synced_at = now()
          WHERE (casino_games.name, casino_games.image_url, casino_games.original, casino_games.upstream_enabled,
                 casino_games.present_upstream)
                IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.image_url, EXCLUDED.original, EXCLUDED.upstream_enabled, true)
          RETURNING (xmax = 0) AS inserted
        `
        const absentGames = yield* sql`
          UPDATE casino_games g SET present_upstream = false, synced_at = now()
          FROM casino_providers p
          WHERE p.id = g.provider_id AND g.present_upstream AND NOT EXISTS (
            SELECT 1 FROM jsonb_to_recordset(${gameRows}::jsonb) AS s(provider_code text, code text)
            WHERE s.provider_code = p.upstream_code AND s.code = g.game_code
          )
          RETURNING g.id
        `
        const count = (rows: ReadonlyArray<{ inserted: boolean }>) => ({
          added: rows.filter((row) => row.inserted).length,
          changed: rows.filter((row) => !row.inserted).length
        })
        const report: SyncReport = {
          providers: { ...count(providerChanges), absent: absentProviders.length },
          games: { ...count(gameChanges), absent: absentGames.length }
        }
        const anything = report.providers.added + report.providers.changed + report.providers.absent +
          report.games.added + report.games.changed + report.games.absent
        if (anything > 0) yield* changed
        return report
      }, (effect) => sql.withTransaction(effect), Effect.orDie)

      const setProviderEnabled = Effect.fn("CasinoCatalog.setProviderEnabled")(function*(ref: string, enabled: boolean) {
        yield* sql`UPDATE casino_providers SET operator_enabled = ${enabled} WHERE ${providerMatch(ref)}`.pipe(Effect.orDie)
        yield* changed
        const provider = yield* queryProvider(ref)
        if (Option.isNone(provider)) return yield* new UnknownProvider({ provider: ref })
        return provider.value
      })

      const setGameEnabled = Effect.fn("CasinoCatalog.setGameEnabled")(
        function*(providerRef: string, gameCode: string, enabled: boolean) {
          yield* sql`
            UPDATE casino_games SET operator_enabled = ${enabled}
            WHERE game_code = ${gameCode}
              AND provider_id = (SELECT id FROM casino_providers WHERE ${providerMatch(providerRef)})
          `.pipe(Effect.orDie)
          yield* changed
          const game = yield* queryGame(providerRef, gameCode)
          if (Option.isNone(game)) return yield* new UnknownGame({ provider: providerRef, gameCode })
          return game.value
        }
      )

      return CasinoCatalog.of({
        enabledProviders: Cache.get(providersCache, true),
        allProviders: queryProviders(false),
        games,
        findProvider,
        findGame,
        isEmpty: sql<{ empty: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM casino_providers) AS empty`.pipe(
          Effect.map((rows) => rows[0].empty),
          Effect.orDie
        ),
        sync,
        setProviderEnabled,
        setGameEnabled
      })
    })
  )
}
