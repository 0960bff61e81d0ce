import { Cache, Clock, Context, Duration, Effect, Exit, Layer, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import type { RefreshRequest } from "../api/Catalog.ts"
import { countryCodesOf, countryName } from "../domain/Countries.ts"
import { sportNames } from "../domain/Sports.ts"
import { compareNames } from "../domain/Text.ts"
import * as ChangeFeed from "../platform/ChangeFeed.ts"
import { SportsProvider, type SportsProviderError } from "../sports/SportsProvider.ts"
import { CatalogConfig } from "./CatalogConfig.ts"
import { fetchSnapshot, type RefreshScope } from "./CatalogImport.ts"
import { publish, type PublishReport } from "./CatalogStore.ts"

/** NOTIFY channel: the sports catalog changed (a refresh), from any instance. */
export const catalogChangedChannel = "partner_api_sports_catalog_changed"

export type EventSource = "prematch" | "live"

/** Filters shared by the lists, the dynamic filters and the feeds (as the query carries them). */
export interface CatalogFilters {
  readonly sport_id?: string | undefined
  readonly country?: string | undefined
  readonly league_id?: string | undefined
  readonly team_id?: string | undefined
  readonly search?: string | undefined
  readonly has_odds?: boolean | undefined
  /** Days as YYYYMMDD (UTC). */
  readonly date?: string | undefined
  readonly date_from?: string | undefined
  readonly date_to?: string | undefined
  readonly active?: boolean | undefined
}

export interface PageRequest {
  readonly page: number
  readonly perPage: number
}

export interface Paged<A> {
  readonly results: ReadonlyArray<A>
  readonly total: number
}

export interface FeedSort {
  readonly sortBy?: string | undefined
  readonly direction?: string | undefined
}

export interface FeedEvent {
  readonly id: string
  readonly sportId: number
  readonly countryCode: string | null
  readonly leagueId: string
  readonly leagueName: string
  readonly homeName: string
  readonly awayName: string
  readonly startsAt: Date
  readonly status: string
  readonly score: string | null
  readonly minute: number | null
  readonly hasOdds: boolean
  readonly lastUpdate: Date
}

export interface NamedRecord {
  readonly id: string
  readonly name: string
  readonly countryCode: string | null
  readonly sportId: number
  readonly active: boolean
}

export interface Facets {
  readonly sports: ReadonlyArray<string>
  readonly countries: ReadonlyArray<string>
  readonly leagues: ReadonlyArray<string>
  readonly teams: ReadonlyArray<string>
}

export interface RefreshOutcome {
  readonly scope: RefreshScope
  readonly report: PublishReport
}

/** A query that cannot be answered as asked; field -> messages, for a 422. */
export class InvalidCatalogQuery extends Schema.TaggedError<InvalidCatalogQuery>()("InvalidCatalogQuery", {
  errors: Schema.Record(Schema.String, Schema.Array(Schema.String))
}) {}

const dayStart = (day: string) => Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)))

/** LIKE pattern for a substring, with the user's own % and _ taken literally. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const sortColumns: Readonly<Record<string, string>> = {
  time: "starts_at",
  league_name: "league_name",
  home_name: "home_name",
  away_name: "away_name",
  last_update: "last_update"
}
const nameColumns = new Set(["league_name", "home_name", "away_name"])

/** A sport by id, or by name in any case; an unknown name matches nothing. */
const sportIdsOf = (reference: string): ReadonlyArray<number> => {
  const wanted = reference.trim().toLowerCase()
  if (/^\d+$/.test(wanted)) return [Number(wanted)]
  return Object.entries(sportNames).filter(([, name]) => name.toLowerCase() === wanted).map(([id]) => Number(id))
}

const sortedNames = (names: Iterable<string>) => [...new Set(names)].sort(compareNames)

const FeedRow = Schema.Struct({
  id: Schema.String,
  sport_id: Schema.Int,
  country_code: Schema.NullOr(Schema.String),
  league_id: Schema.String,
  league_name: Schema.String,
  home_name: Schema.String,
  away_name: Schema.String,
  starts_at: Schema.Date,
  status: Schema.String,
  score: Schema.NullOr(Schema.String),
  minute: Schema.NullOr(Schema.Int),
  has_odds: Schema.Boolean,
  last_update: Schema.Date
})

const NamedRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  country_code: Schema.NullOr(Schema.String),
  sport_id: Schema.Int,
  active: Schema.Boolean
})

const decodeFeedRows = Schema.decodeUnknownEffect(Schema.Array(FeedRow))
const decodeNamedRows = Schema.decodeUnknownSync(Schema.Array(NamedRow))

/**
 * The local sports catalog: refreshed from the SportsProvider, read by the
 * catalog lists, the dynamic filters and the feeds. Reads are answered from
 * memory for CATALOG_CACHE_TTL and forgotten on every instance when a
 * refresh lands.
 */
export class Catalog extends Context.Service<Catalog, {
  refresh(request: RefreshRequest | null | undefined): Effect.Effect<RefreshOutcome, InvalidCatalogQuery | SportsProviderError>
  /** Events in play (and just ended): score, minute, status. */
  readonly refreshLive: Effect.Effect<RefreshOutcome, SportsProviderError>
  readonly overview: Effect.Effect<{
    readonly sports: number
    readonly countries: number
    readonly leagues: number
    readonly teams: number
    readonly events: number
  }>
  readonly isEmpty: Effect.Effect<boolean>
  sports(filters: CatalogFilters, page: PageRequest): Effect.Effect<Paged<{ id: number; name: string; active: boolean }>>
  countries(filters: CatalogFilters, page: PageRequest): Effect.Effect<Paged<{ code: string; name: string; active: boolean }>>
  leagues(filters: CatalogFilters, page: PageRequest): Effect.Effect<Paged<NamedRecord>>
  teams(filters: CatalogFilters, page: PageRequest): Effect.Effect<Paged<NamedRecord>>
  filters(source: EventSource, filters: CatalogFilters): Effect.Effect<Facets, InvalidCatalogQuery>
  feed(
    source: EventSource,
    filters: CatalogFilters,
    sort: FeedSort,
    page: PageRequest
  ): Effect.Effect<Paged<FeedEvent>, InvalidCatalogQuery>
}>()("partner-api/catalog/Catalog") {
  static readonly layer = Layer.effect(
    Catalog,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const provider = yield* SportsProvider
      const config = yield* CatalogConfig

      // ---- the filters, as SQL conditions

      /** The day range the date filters select, [from, to), or a 422 when it cannot be read. */
      const dayRange = (filters: CatalogFilters) => {
        let from: number | undefined
        let to: number | undefined
        if (filters.date !== undefined) {
          from = dayStart(filters.date)
          to = from + 86_400_000
        }
        if (filters.date_from !== undefined) from = Math.max(from ?? -Infinity, dayStart(filters.date_from))
        if (filters.date_to !== undefined) to = Math.min(to ?? Infinity, dayStart(filters.date_to) + 86_400_000)
        if (filters.date_from !== undefined && filters.date_to !== undefined && filters.date_from > filters.date_to) {
          return Effect.fail(new InvalidCatalogQuery({
            errors: { date_to: ["The date to field must be a day on or after date from."] }
          }))
        }
        return Effect.succeed({ from, to })
      }

      type Facet = "sport" | "country" | "league" | "team"

      const eventConditions = (
        source: EventSource,
        filters: CatalogFilters,
        range: { readonly from?: number | undefined; readonly to?: number | undefined }
      ) => {
        // The status is written out, not bound, so the planner can always use the open-events indexes.
        const conditions = [sql`active`, source === "live" ? sql`status = 'live'` : sql`status = 'prematch'`]
        if (filters.sport_id !== undefined) {
          const ids = sportIdsOf(filters.sport_id)
          conditions.push(ids.length === 0 ? sql`false` : sql`sport_id IN ${sql.in(ids)}`)
        }
        if (filters.country !== undefined) {
          const codes = countryCodesOf(filters.country)
          conditions.push(codes.length === 0 ? sql`false` : sql`country_code IN ${sql.in(codes)}`)
        }
        if (filters.league_id !== undefined) conditions.push(sql`league_id = ${filters.league_id}`)
        if (filters.team_id !== undefined) {
          conditions.push(sql`(home_team_id = ${filters.team_id} OR away_team_id = ${filters.team_id})`)
        }
        const search = filters.search?.trim()
        if (search) conditions.push(sql`search_text LIKE ${containing(search)}`)
        if (filters.has_odds !== undefined) conditions.push(sql`has_odds = ${filters.has_odds}`)
        if (range.from !== undefined) conditions.push(sql`starts_at >= ${new Date(range.from)}`)
        if (range.to !== undefined) conditions.push(sql`starts_at < ${new Date(range.to)}`)
        return sql.and(conditions)
      }

      // ---- reads

      const feedUncached = Effect.fn("Catalog.feed")(function*(
        source: EventSource,
        filters: CatalogFilters,
        sort: FeedSort,
        page: PageRequest
      ) {
        const range = yield* dayRange(filters)
        const where = eventConditions(source, filters, range)
        // An unknown sort means time ascending, whatever direction came with it.
        const known = sortColumns[sort.sortBy?.trim().toLowerCase() ?? "time"]
        const column = known ?? "starts_at"
        const direction = known !== undefined && sort.direction?.trim().toLowerCase() === "desc" ? sql`DESC` : sql`ASC`
        // Ties keep kick-off order, then id, so pages never overlap; by time, the id follows the direction (one index walk).
        // Names sort naturally (sql/0008: the natural_ci collation, as the indexes do).
        const order = column === "starts_at"
          ? sql`starts_at ${direction}, id ${direction}`
          : nameColumns.has(column)
          ? sql`${sql(column)} COLLATE natural_ci ${direction}, starts_at ASC, id ASC`
          : sql`${sql(column)} ${direction}, starts_at ASC, id ASC`
        const [rows, total] = yield* Effect.all([
          // The page is chosen on the open-events index alone; only its rows are then read.
          sql`
            SELECT id, sport_id, country_code, league_id, league_name, home_name, away_name, starts_at, status,
                   score, minute, has_odds, last_update
            FROM sports_events
            WHERE id IN (
              SELECT id FROM sports_events WHERE ${where}
              ORDER BY ${order}
              LIMIT ${page.perPage} OFFSET ${(page.page - 1) * page.perPage}
            )
            ORDER BY ${order}
          `.pipe(Effect.orDie),
          // Counted once per set of filters, whatever the page or the sort.
          cachedRead<number>({ kind: "feedTotal", source, filters })
        ], { concurrency: 2 })
        const decoded = yield* decodeFeedRows(rows).pipe(Effect.orDie)
        return {
          total,
          results: decoded.map((row): FeedEvent => ({
            id: row.id,
            sportId: row.sport_id,
            countryCode: row.country_code,
            leagueId: row.league_id,
            leagueName: row.league_name,
            homeName: row.home_name,
            awayName: row.away_name,
            startsAt: row.starts_at,
            status: row.status,
            score: row.score,
            minute: row.minute,
            hasOdds: row.has_odds,
            lastUpdate: row.last_update
          }))
        }
      })

      const feedTotalUncached = (source: EventSource, filters: CatalogFilters) =>
        Effect.flatMap(dayRange(filters), (range) =>
          sql<{ total: number }>`SELECT count(*)::int AS total FROM sports_events WHERE ${
            eventConditions(source, filters, range)
          }`.pipe(Effect.map((rows) => rows[0].total), Effect.orDie))

      /**
       * One facet's names: events of the source matching `filters`, which no longer hold the facet's own
       * choice. Ids come from the open-events indexes; names from the league and team records (the names
       * events carry).
       */
      const facetUncached = Effect.fn("Catalog.facet")(function*(facet: Facet, source: EventSource, filters: CatalogFilters) {
        const where = eventConditions(source, filters, yield* dayRange(filters))
        const names = yield* (() => {
          switch (facet) {
            case "sport":
              return Effect.map(
                sql<{ id: number }>`SELECT DISTINCT sport_id AS id FROM sports_events WHERE ${where}`,
                (rows) => rows.map((row) => sportNames[row.id] ?? `Sport ${row.id}`)
              )
            case "country":
              return Effect.map(
                sql<{ code: string }>`SELECT DISTINCT country_code AS code FROM sports_events
                                      WHERE ${where} AND country_code IS NOT NULL`,
                (rows) => rows.map((row) => countryName(row.code))
              )
            case "league":
              return Effect.map(
                sql<{ name: string }>`SELECT name FROM sports_leagues
                                      WHERE id IN (SELECT league_id FROM sports_events WHERE ${where})`,
                (rows) => rows.map((row) => row.name)
              )
            case "team":
              return Effect.map(
                sql<{ name: string }>`SELECT name FROM sports_teams WHERE id IN (
                  SELECT team.id FROM sports_events CROSS JOIN LATERAL (VALUES (home_team_id), (away_team_id)) AS team(id)
                  WHERE ${where})`,
                (rows) => rows.map((row) => row.name)
              )
          }
        })().pipe(Effect.orDie)
        return sortedNames(names)
      })

      const facetFilter: Record<Facet, keyof CatalogFilters> = {
        sport: "sport_id",
        country: "country",
        league: "league_id",
        team: "team_id"
      }
      /**
       * Each facet is narrowed by every chosen filter except its own, so a choice can still be changed.
       * Facets are read (and cached) apart: the leagues facet of `league_id=7` is the one of no league
       * chosen, shared by every league a partner clicks through.
       */
      const facetsOf = (source: EventSource, filters: CatalogFilters) => {
        const facet = (name: Facet) =>
          cachedRead<ReadonlyArray<string>>({ kind: "facet", facet: name, source, filters: { ...filters, [facetFilter[name]]: undefined } })
        return Effect.all({
          sports: facet("sport"),
          countries: facet("country"),
          leagues: facet("league"),
          teams: facet("team")
        }, { concurrency: 4 })
      }

      const paged = <A>(
        rows: Effect.Effect<ReadonlyArray<unknown>, unknown>,
        counted: Effect.Effect<ReadonlyArray<{ total: number }>, unknown>,
        decode: (rows: ReadonlyArray<unknown>) => ReadonlyArray<A>
      ) =>
        Effect.all([rows, counted], { concurrency: 2 }).pipe(
          Effect.map(([rows, counted]) => ({ results: decode(rows), total: counted[0].total })),
          Effect.orDie
        )

      const limit = (page: PageRequest) => sql`LIMIT ${page.perPage} OFFSET ${(page.page - 1) * page.perPage}`

      const common = (filters: CatalogFilters, searchColumn: string) => {
        const conditions = [sql`true`]
        const search = filters.search?.trim()
        if (search) conditions.push(sql`${sql(searchColumn)} LIKE ${containing(search)}`)
        if (filters.active !== undefined) conditions.push(sql`active = ${filters.active}`)
        return conditions
      }
      const countryCondition = (column: string, reference: string) => {
        const codes = countryCodesOf(reference)
        return codes.length === 0 ? sql`false` : sql`${sql(column)} IN ${sql.in(codes)}`
      }
      const sportCondition = (column: string, reference: string) => {
        const ids = sportIdsOf(reference)
        return ids.length === 0 ? sql`false` : sql`${sql(column)} IN ${sql.in(ids)}`
      }

      /** A page of a small list (sports, countries) in name order, and its total. */
      const pagedByName = (from: Statement.Fragment, key: string, where: Statement.Fragment, page: PageRequest) =>
        paged(
          sql`SELECT ${sql(key)}, name, active FROM ${from} WHERE ${where} ORDER BY name COLLATE natural_ci, ${sql(key)} ${limit(page)}`,
          sql<{ total: number }>`SELECT count(*)::int AS total FROM ${from} WHERE ${where}`,
          (rows) => rows
        )

      const sportsUncached = (filters: CatalogFilters, page: PageRequest) => {
        const conditions = common(filters, "name_search")
        if (filters.sport_id !== undefined) conditions.push(sportCondition("id", filters.sport_id))
        if (filters.country !== undefined) {
          conditions.push(sql`EXISTS (SELECT 1 FROM sports_leagues l WHERE l.sport_id = s.id AND ${
            countryCondition("l.country_code", filters.country)
          })`)
        }
        if (filters.league_id !== undefined) {
          conditions.push(sql`EXISTS (SELECT 1 FROM sports_leagues l WHERE l.sport_id = s.id AND l.id = ${filters.league_id})`)
        }
        return pagedByName(
          sql`(SELECT id, name, active, lower(name) AS name_search FROM sports_sports) s`,
          "id",
          sql.and(conditions),
          page
        ) as Effect.Effect<Paged<{ id: number; name: string; active: boolean }>>
      }

      const countriesUncached = (filters: CatalogFilters, page: PageRequest) => {
        const conditions = common(filters, "name_search")
        if (filters.country !== undefined) conditions.push(countryCondition("code", filters.country))
        if (filters.sport_id !== undefined) {
          conditions.push(sql`EXISTS (SELECT 1 FROM sports_leagues l WHERE l.country_code = c.code AND ${
            sportCondition("l.sport_id", filters.sport_id)
          })`)
        }
        if (filters.league_id !== undefined) {
          conditions.push(sql`EXISTS (SELECT 1 FROM sports_leagues l WHERE l.country_code = c.code AND l.id = ${filters.league_id})`)
        }
        return pagedByName(
          sql`(SELECT code, name, active, lower(name) AS name_search FROM sports_countries) c`,
          "code",
          sql.and(conditions),
          page
        ) as Effect.Effect<Paged<{ code: string; name: string; active: boolean }>>
      }

      const namedRecords = (rows: ReadonlyArray<unknown>) =>
        decodeNamedRows(rows).map((row): NamedRecord => ({
          id: row.id,
          name: row.name,
          countryCode: row.country_code,
          sportId: row.sport_id,
          active: row.active
        }))

      /**
       * A page of leagues or teams in name order. A search is matched first (through its trigrams), then
       * sorted: walking the name order instead can pass most of the table when the matches sort late.
       */
      const namedPage = (table: Statement.Fragment, where: Statement.Fragment, filters: CatalogFilters, page: PageRequest) =>
        filters.search?.trim()
          ? sql`SELECT id, name, country_code, sport_id, active
                FROM (SELECT id, name, country_code, sport_id, active FROM ${table} WHERE ${where} OFFSET 0) AS matches
                ORDER BY name COLLATE natural_ci, id ${limit(page)}`
          : sql`SELECT id, name, country_code, sport_id, active FROM ${table} WHERE ${where} ORDER BY name COLLATE natural_ci, id ${limit(page)}`

      const leaguesUncached = (filters: CatalogFilters, page: PageRequest) => {
        const conditions = common(filters, "search_text")
        if (filters.sport_id !== undefined) conditions.push(sportCondition("sport_id", filters.sport_id))
        if (filters.country !== undefined) conditions.push(countryCondition("country_code", filters.country))
        if (filters.league_id !== undefined) conditions.push(sql`id = ${filters.league_id}`)
        if (filters.team_id !== undefined) {
          conditions.push(sql`id IN (SELECT league_id FROM sports_team_leagues WHERE team_id = ${filters.team_id})`)
        }
        const where = sql.and(conditions)
        return paged(
          namedPage(sql`sports_leagues`, where, filters, page),
          sql<{ total: number }>`SELECT count(*)::int AS total FROM sports_leagues WHERE ${where}`,
          namedRecords
        )
      }

      const teamsUncached = (filters: CatalogFilters, page: PageRequest) => {
        const conditions = common(filters, "search_text")
        if (filters.sport_id !== undefined) conditions.push(sportCondition("sport_id", filters.sport_id))
        if (filters.country !== undefined) conditions.push(countryCondition("country_code", filters.country))
        if (filters.team_id !== undefined) conditions.push(sql`id = ${filters.team_id}`)
        if (filters.league_id !== undefined) {
          conditions.push(sql`id IN (SELECT team_id FROM sports_team_leagues WHERE league_id = ${filters.league_id})`)
        }
        const where = sql.and(conditions)
        return paged(
          namedPage(sql`sports_teams`, where, filters, page),
          sql<{ total: number }>`SELECT count(*)::int AS total FROM sports_teams WHERE ${where}`,
          namedRecords
        )
      }

      const overviewUncached = sql<{
        sports: number
        countries: number
        leagues: number
        teams: number
        events: number
      }>`
        SELECT (SELECT count(*) FROM sports_sports WHERE active)::int AS sports,
               (SELECT count(*) FROM sports_countries WHERE active)::int AS countries,
               (SELECT count(*) FROM sports_leagues WHERE active)::int AS leagues,
               (SELECT count(*) FROM sports_teams WHERE active)::int AS teams,
               (SELECT count(*) FROM sports_events WHERE active)::int AS events
      `.pipe(Effect.map((rows) => rows[0]), Effect.orDie)

      // ---- the read cache

      type Read =
        | { readonly kind: "feed"; readonly source: EventSource; readonly filters: CatalogFilters; readonly sort: FeedSort; readonly page: PageRequest }
        | { readonly kind: "feedTotal"; readonly source: EventSource; readonly filters: CatalogFilters }
        | { readonly kind: "facet"; readonly facet: Facet; readonly source: EventSource; readonly filters: CatalogFilters }
        | { readonly kind: "sports" | "countries" | "leagues" | "teams"; readonly filters: CatalogFilters; readonly page: PageRequest }
        | { readonly kind: "overview" }

      const read = (request: Read): Effect.Effect<unknown, InvalidCatalogQuery> => {
        switch (request.kind) {
          case "feed":
            return feedUncached(request.source, request.filters, request.sort, request.page)
          case "feedTotal":
            return feedTotalUncached(request.source, request.filters)
          case "facet":
            return facetUncached(request.facet, request.source, request.filters)
          case "sports":
            return sportsUncached(request.filters, request.page)
          case "countries":
            return countriesUncached(request.filters, request.page)
          case "leagues":
            return leaguesUncached(request.filters, request.page)
          case "teams":
            return teamsUncached(request.filters, request.page)
          case "overview":
            return overviewUncached
        }
      }
      const reads = yield* Cache.makeWith((key: string) => read(JSON.parse(key) as Read), {
        capacity: 10_000,
        timeToLive: (exit) => Exit.isSuccess(exit) ? config.cacheTtl : Duration.zero
      })
      // Keys list every field in a fixed order, so equal requests share an entry.
      const keyOf = (request: Read) =>
        JSON.stringify(request, (_, value) =>
          value !== null && typeof value === "object" && !Array.isArray(value)
            ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b)))
            : value)
      const cachedRead = <A>(request: Read) => Cache.get(reads, keyOf(request)) as Effect.Effect<A, InvalidCatalogQuery>

      const forget = Cache.invalidateAll(reads)
      yield* ChangeFeed.onChange(catalogChangedChannel, forget)

      // ---- refresh

      const runRefresh = (scope: RefreshScope): Effect.Effect<RefreshOutcome, SportsProviderError> =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const snapshot = yield* fetchSnapshot(provider, scope, now)
          const fetched = yield* Clock.currentTimeMillis
          const report = yield* sql.withTransaction(Effect.gen(function*() {
            const report = yield* publish(snapshot)
            // Delivered at commit: every instance forgets its cached reads once the new catalog is visible.
            if (report.changed + report.deactivated > 0) yield* ChangeFeed.announce(catalogChangedChannel)
            return report
          })).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)
          yield* forget
          const published = yield* Clock.currentTimeMillis
          // The frequent live refresh logs at debug level; a full one is worth a line.
          yield* Effect.logWithLevel(scope.liveOnly ? "Debug" : "Info")(
            scope.liveOnly ? "Live events refreshed" : "Sports catalog refreshed"
          ).pipe(Effect.annotateLogs({ ...report, fetch_ms: fetched - now, publish_ms: published - fetched }))
          return { scope, report }
        }).pipe(Effect.withSpan("Catalog.refresh"))

      // The same refresh asked for twice at once runs once; both callers get its outcome.
      const refreshes = yield* Cache.makeWith((key: string) => runRefresh(JSON.parse(key) as RefreshScope), {
        capacity: 100,
        timeToLive: () => Duration.zero
      })
      const refreshScope = (scope: RefreshScope) => Cache.get(refreshes, JSON.stringify(scope))

      const refresh = Effect.fn("Catalog.refresh")(function*(request: RefreshRequest | null | undefined) {
        let sportIds = config.sportIds
        if (request?.sport_id !== undefined && request.sport_id !== null) {
          sportIds = sportIdsOf(String(request.sport_id))
          if (sportIds.length === 0) {
            return yield* new InvalidCatalogQuery({ errors: { sport_id: ["The selected sport id is invalid."] } })
          }
        }
        return yield* refreshScope({
          sportIds: [...sportIds].sort((a, b) => a - b),
          leagues: request?.import_leagues ?? true,
          events: request?.import_events ?? true
        })
      })

      return Catalog.of({
        refresh,
        refreshLive: refreshScope({ sportIds: config.sportIds, leagues: false, events: true, liveOnly: true }),
        overview: cachedRead({ kind: "overview" }).pipe(Effect.orDie) as Effect.Effect<{
          sports: number
          countries: number
          leagues: number
          teams: number
          events: number
        }>,
        isEmpty: sql<{ empty: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM sports_events) AS empty`.pipe(
          Effect.map((rows) => rows[0].empty),
          Effect.orDie
        ),
        sports: (filters, page) => Effect.orDie(cachedRead({ kind: "sports", filters, page })),
        countries: (filters, page) => Effect.orDie(cachedRead({ kind: "countries", filters, page })),
        leagues: (filters, page) => Effect.orDie(cachedRead({ kind: "leagues", filters, page })),
        teams: (filters, page) => Effect.orDie(cachedRead({ kind: "teams", filters, page })),
        filters: facetsOf,
        feed: (source, filters, sort, page) => cachedRead({ kind: "feed", source, filters, sort, page })
      })
    })
  )
}
