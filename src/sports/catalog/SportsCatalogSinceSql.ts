import { Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import type { Page, PageRequest } from "../../domain/Paging.ts"
import type { EventQuery, ListQuery } from "../../domain/SportsCatalogQuery.ts"
import { changedEventsOf, changedRecordsOf, type RecordKind, type SyncBounds } from "../../domain/SportsCatalogSync.ts"
import {
  changedCountryRows,
  changedFeedRows,
  changedNamedRows,
  changedOf,
  changedSportRows,
  sinceFloorRows,
  totalRows
} from "./SportsCatalogRows.ts"

/** What the since reads share with the catalog's other reads (SportsCatalogRepo.layerSql): its lists' and feeds' conditions. */
export interface CatalogStatements {
  readonly limit: (page: PageRequest) => Statement.Fragment
  readonly paged: <A, E, R>(
    page: PageRequest,
    rows: Effect.Effect<ReadonlyArray<A>, E, R>,
    total: Effect.Effect<number, E, R>
  ) => Effect.Effect<Page<A>, E, R>
  readonly sportsFrom: Statement.Fragment
  readonly sportConditions: (query: ListQuery) => Array<Statement.Fragment>
  readonly countriesFrom: Statement.Fragment
  readonly countryConditions: (query: ListQuery) => Array<Statement.Fragment>
  readonly leagueConditions: (query: ListQuery) => Array<Statement.Fragment>
  readonly teamConditions: (query: ListQuery) => Array<Statement.Fragment>
  readonly eventConditions: (query: EventQuery) => Statement.Fragment
  readonly eventNarrowing: (query: EventQuery) => Array<Statement.Fragment>
  /** Where the change log stands (CatalogChanges.bounds). */
  readonly logBounds: Effect.Effect<SyncBounds>
}

/**
 * Since a position (sql/0044): the records of each list and feed changed after it, in the order they changed, listed
 * or not, and the bounds a since may name. Part of SportsCatalogRepo.layerSql, over the same conditions as its whole
 * reads: nothing else imports it.
 */
export const makeSinceReads = (sql: SqlClient.SqlClient, statements: CatalogStatements) => {
  const { countriesFrom, countryConditions, eventConditions, eventNarrowing, leagueConditions, limit, logBounds } =
    statements
  const { paged, sportConditions, sportsFrom, teamConditions } = statements

  /**
   * The records of `kind` that `select` reads (each with `listed`, and `key`, its id as the positions table keeps
   * it) changed after `since`, in position order, paged, and how many.
   */
  const changedSince = <A extends { readonly position: number; readonly listed: boolean }, E, R>(
    decode: (rows: Statement.Statement<unknown>) => Effect.Effect<ReadonlyArray<A>, E, R>,
    kind: RecordKind,
    select: Statement.Fragment,
    since: number,
    page: PageRequest
  ) => {
    const from = sql`(${select}) x JOIN sports_catalog_positions p ON p.record = ${kind} AND p.id = x.key
                     WHERE p.position > ${since}`
    return Effect.map(
      paged(
        page,
        decode(sql`SELECT x.*, p.position::text AS position FROM ${from} ORDER BY p.position ${limit(page)}`),
        Effect.map(totalRows(sql`SELECT count(*)::int AS total FROM ${from}`), (rows) => rows[0].total)
      ),
      (answer) => ({ results: answer.results.map(changedOf), total: answer.total })
    )
  }

  /** A list's rows of `from` (keyed by `key`) that `conditions` of the query's records select, listed or not. */
  const listSince = <A extends { readonly position: number; readonly listed: boolean }, E, R>(
    decode: (rows: Statement.Statement<unknown>) => Effect.Effect<ReadonlyArray<A>, E, R>,
    kind: RecordKind,
    from: Statement.Fragment,
    columns: Statement.Fragment,
    key: Statement.Fragment,
    conditions: (query: ListQuery) => Array<Statement.Fragment>
  ) =>
  (query: ListQuery, since: number, page: PageRequest) =>
    changedSince(
      decode,
      kind,
      sql`SELECT ${columns}, ${sql.and(conditions(query))} AS listed, ${key} AS key FROM ${from}
          WHERE ${sql.and(conditions(changedRecordsOf(query)))}`,
      since,
      page
    )

  const namedColumns = sql`id, name, country_code, sport_id, active`
  const sportsSince = listSince(
    changedSportRows,
    "sport",
    sportsFrom,
    sql`id, name, active`,
    sql`id::text`,
    sportConditions
  )
  const countriesSince = listSince(
    changedCountryRows,
    "country",
    countriesFrom,
    sql`code, name, active`,
    sql`code`,
    countryConditions
  )
  const leaguesSince = listSince(
    changedNamedRows,
    "league",
    sql`sports_leagues`,
    namedColumns,
    sql`id`,
    leagueConditions
  )
  const teamsSince = listSince(changedNamedRows, "team", sql`sports_teams`, namedColumns, sql`id`, teamConditions)

  /** A feed's events changed after `since` (its own positions: those of changes it is or was open in). */
  const eventsSince = (query: EventQuery, since: number, page: PageRequest) =>
    changedSince(
      changedFeedRows,
      query.source,
      sql`SELECT id, sport_id, country_code, league_id, league_name, home_name, away_name, starts_at, status, reason,
                 score, minute, has_odds, last_update, ${eventConditions(query)} AS listed, id AS key
          FROM sports_events WHERE ${sql.and([sql`true`, ...eventNarrowing(changedEventsOf(query))])}`,
      since,
      page
    )

  const syncBounds = Effect.gen(function*() {
    const log = yield* logBounds
    const [world] = yield* sinceFloorRows(sql`SELECT since_floor::text AS floor FROM sports_catalog_world`)
    return { head: log.head, floor: Math.max(log.floor, world?.floor ?? 0) } satisfies SyncBounds
  })

  return { sportsSince, countriesSince, leaguesSince, teamsSince, eventsSince, syncBounds }
}
