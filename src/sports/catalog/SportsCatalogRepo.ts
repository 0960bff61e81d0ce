import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, type Scope } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { type Page, pageOf, type PageRequest } from "../../domain/Paging.ts"
import {
  CountryRecord,
  FeedEvent,
  NamedRecord,
  type PublishReport,
  type Snapshot,
  SportRecord,
  SportsCatalogOverview
} from "../../domain/SportsCatalog.ts"
import type { EventQuery, FeedOrder, ListQuery } from "../../domain/SportsCatalogQuery.ts"
import type { ChangedPage, SyncBounds } from "../../domain/SportsCatalogSync.ts"
import { dayOf, groupingOf } from "../../domain/SportsFeedTotals.ts"
import * as ChangeFeed from "../../platform/ChangeFeed.ts"
import { CatalogChanges } from "./CatalogChanges.ts"
import { publishWithPositions, sportsCatalogChangedChannel } from "./SportsCatalogPublishSql.ts"
import { makeEventSql } from "./SportsCatalogEventSql.ts"
import { makeSinceReads } from "./SportsCatalogSinceSql.ts"
import {
  countryRows,
  emptyRows,
  feedRows,
  keptTotalRows,
  namedRows,
  overviewRows,
  sportIdRows,
  sportRows,
  textRows,
  totalRows
} from "./SportsCatalogRows.ts"

/** The sports catalog's tables in PostgreSQL. */
const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient
  const changes = yield* CatalogChanges

  const { containing, eventConditions, eventNarrowing, feedOrdering, limit, oneOf } = makeEventSql(sql)

  const feedPage = (query: EventQuery, order: FeedOrder, page: PageRequest) => {
    const orderBy = feedOrdering(order)
    // The page is chosen on the open-events index alone; only its rows are then read.
    return feedRows(sql`
      SELECT id, sport_id, country_code, league_id, league_name, home_name, away_name, starts_at, status, reason,
             score, minute, has_odds, last_update
      FROM sports_events
      WHERE id IN (SELECT id FROM sports_events WHERE ${eventConditions(query)} ORDER BY ${orderBy} ${limit(page)})
      ORDER BY ${orderBy}
    `)
  }

  const countOf = (from: Statement.Fragment, where: Statement.Fragment) =>
    Effect.map(totalRows(sql`SELECT count(*)::int AS total FROM ${from} WHERE ${where}`), (rows) => rows[0].total)

  /**
   * A feed's exact total. Filters the publishes' summary covers (domain/SportsFeedTotals) read it: a sum of a few
   * rows of sports_feed_totals, one indexed statement, in the snapshot that says whether the summary is fresh
   * (sql/0040). Any other filter, or a summary marked stale by a write that was not a publish, is counted.
   */
  const feedTotal = (query: EventQuery) => {
    const grouping = groupingOf(query)
    if (grouping === null) return countOf(sql`sports_events`, eventConditions(query))
    const conditions = [sql`status = ${query.source}`, sql`grouped_by = ${grouping}`]
    if (query.sportIds !== null) conditions.push(oneOf("sport_id", query.sportIds))
    if (query.countryCodes !== null) conditions.push(oneOf("country_code", query.countryCodes))
    if (query.leagueId !== null) conditions.push(sql`league_id = ${query.leagueId}`)
    if (query.hasOdds !== null) conditions.push(sql`has_odds = ${query.hasOdds}`)
    if (query.startsFrom !== null) conditions.push(sql`day >= ${dayOf(query.startsFrom)}::date`)
    if (query.startsBefore !== null) conditions.push(sql`day < ${dayOf(query.startsBefore)}::date`)
    return Effect.flatMap(
      keptTotalRows(sql`
        SELECT CASE WHEN (SELECT fresh FROM sports_feed_totals_state)
                    THEN (SELECT COALESCE(sum(total), 0)::int FROM sports_feed_totals WHERE ${sql.and(conditions)})
               END AS total
      `),
      (rows) => {
        const kept = rows[0].total
        return kept === null ? countOf(sql`sports_events`, eventConditions(query)) : Effect.succeed(kept)
      }
    )
  }

  // The dynamic filters: ids come from the open-events indexes; names from the league and team records.
  const eventSportIds = (query: EventQuery) =>
    Effect.map(
      sportIdRows(sql`SELECT DISTINCT sport_id AS id FROM sports_events WHERE ${eventConditions(query)}`),
      (rows) => rows.map((row) => row.id)
    )
  const values = (statement: Statement.Statement<unknown>) =>
    Effect.map(textRows(statement), (rows) => rows.map((row) => row.value))
  const eventCountryCodes = (query: EventQuery) =>
    values(sql`SELECT DISTINCT country_code AS value FROM sports_events
               WHERE ${eventConditions(query)} AND country_code IS NOT NULL`)
  const eventLeagueNames = (query: EventQuery) =>
    values(sql`SELECT name AS value FROM sports_leagues
               WHERE id IN (SELECT league_id FROM sports_events WHERE ${eventConditions(query)})`)
  const eventTeamNames = (query: EventQuery) =>
    values(sql`SELECT name AS value FROM sports_teams WHERE id IN (
                 SELECT team.id FROM sports_events CROSS JOIN LATERAL (VALUES (home_team_id), (away_team_id)) AS team(id)
                 WHERE ${eventConditions(query)})`)

  // ---- the lists

  const common = (query: ListQuery, searchColumn: string) => {
    const conditions = [sql`true`]
    if (query.search !== null) conditions.push(sql`${sql(searchColumn)} LIKE ${containing(query.search)}`)
    if (query.active !== null) conditions.push(sql`active = ${query.active}`)
    return conditions
  }

  const paged = <A, E, R>(
    page: PageRequest,
    rows: Effect.Effect<ReadonlyArray<A>, E, R>,
    total: Effect.Effect<number, E, R>
  ) =>
    Effect.map(
      Effect.all([rows, total], { concurrency: 2 }),
      ([results, total]): Page<A> => pageOf(page, results, total)
    )

  /** A sport or a country with a league that meets `condition`; `link` ties the league (l) to the row. */
  const hasLeague = (link: Statement.Fragment, condition: Statement.Fragment) =>
    sql`EXISTS (SELECT 1 FROM sports_leagues l WHERE ${link} AND ${condition})`

  /** A page of a small list (sports, countries) in name order, then `key`, and its total. */
  const pagedByName = <A, E, R>(
    decode: (rows: Statement.Statement<unknown>) => Effect.Effect<ReadonlyArray<A>, E, R>,
    from: Statement.Fragment,
    key: string,
    conditions: Array<Statement.Fragment>,
    page: PageRequest
  ) => {
    const where = sql.and(conditions)
    const rows = sql`SELECT ${sql(key)}, name, active FROM ${from} WHERE ${where} ORDER BY name COLLATE natural_ci, ${
      sql(key)
    } ${limit(page)}`
    return paged(page, decode(rows), countOf(from, where))
  }

  const sportsFrom = sql`(SELECT id, name, active, lower(name) AS name_search FROM sports_sports) s`
  const sportConditions = (query: ListQuery) => {
    const conditions = common(query, "name_search")
    const link = sql`l.sport_id = s.id`
    if (query.sportIds !== null) conditions.push(oneOf("id", query.sportIds))
    if (query.countryCodes !== null) conditions.push(hasLeague(link, oneOf("l.country_code", query.countryCodes)))
    if (query.leagueId !== null) conditions.push(hasLeague(link, sql`l.id = ${query.leagueId}`))
    return conditions
  }
  const sports = (query: ListQuery, page: PageRequest) =>
    pagedByName(sportRows, sportsFrom, "id", sportConditions(query), page)

  const countriesFrom = sql`(SELECT code, name, active, lower(name) AS name_search FROM sports_countries) c`
  const countryConditions = (query: ListQuery) => {
    const conditions = common(query, "name_search")
    const link = sql`l.country_code = c.code`
    if (query.countryCodes !== null) conditions.push(oneOf("code", query.countryCodes))
    if (query.sportIds !== null) conditions.push(hasLeague(link, oneOf("l.sport_id", query.sportIds)))
    if (query.leagueId !== null) conditions.push(hasLeague(link, sql`l.id = ${query.leagueId}`))
    return conditions
  }
  const countries = (query: ListQuery, page: PageRequest) =>
    pagedByName(countryRows, countriesFrom, "code", countryConditions(query), page)

  /**
   * A page of leagues or teams in name order. A search is matched first (through its trigrams), then
   * sorted: walking the name order instead can pass most of the table when the matches sort late.
   */
  const namedPage = (
    table: "sports_leagues" | "sports_teams",
    query: ListQuery,
    page: PageRequest,
    conditions: Array<Statement.Fragment>
  ) => {
    const where = sql.and(conditions)
    const rows = query.search !== null
      ? sql`SELECT id, name, country_code, sport_id, active
            FROM (SELECT id, name, country_code, sport_id, active FROM ${sql(table)} WHERE ${where} OFFSET 0) AS matches
            ORDER BY name COLLATE natural_ci, id ${limit(page)}`
      : sql`SELECT id, name, country_code, sport_id, active FROM ${sql(table)} WHERE ${where}
            ORDER BY name COLLATE natural_ci, id ${limit(page)}`
    return paged(page, namedRows(rows), countOf(sql`${sql(table)}`, where))
  }

  const recordConditions = (query: ListQuery) => {
    const conditions = common(query, "search_text")
    if (query.sportIds !== null) conditions.push(oneOf("sport_id", query.sportIds))
    if (query.countryCodes !== null) conditions.push(oneOf("country_code", query.countryCodes))
    return conditions
  }

  const leagueConditions = (query: ListQuery) => {
    const conditions = recordConditions(query)
    if (query.leagueId !== null) conditions.push(sql`id = ${query.leagueId}`)
    if (query.teamId !== null) {
      conditions.push(sql`id IN (SELECT league_id FROM sports_team_leagues WHERE team_id = ${query.teamId})`)
    }
    return conditions
  }
  const leagues = (query: ListQuery, page: PageRequest) =>
    namedPage("sports_leagues", query, page, leagueConditions(query))

  const teamConditions = (query: ListQuery) => {
    const conditions = recordConditions(query)
    if (query.teamId !== null) conditions.push(sql`id = ${query.teamId}`)
    if (query.leagueId !== null) {
      conditions.push(sql`id IN (SELECT team_id FROM sports_team_leagues WHERE league_id = ${query.leagueId})`)
    }
    return conditions
  }
  const teams = (query: ListQuery, page: PageRequest) => namedPage("sports_teams", query, page, teamConditions(query))

  const { countriesSince, eventsSince, leaguesSince, sportsSince, syncBounds, teamsSince } = makeSinceReads(sql, {
    limit,
    paged,
    sportsFrom,
    sportConditions,
    countriesFrom,
    countryConditions,
    leagueConditions,
    teamConditions,
    eventConditions,
    eventNarrowing,
    logBounds: changes.bounds
  })

  const overview = Effect.map(
    overviewRows(sql`
      SELECT (SELECT count(*) FROM sports_sports WHERE active)::int AS sports,
             (SELECT count(*) FROM sports_countries WHERE active)::int AS countries,
             (SELECT count(*) FROM sports_leagues WHERE active)::int AS leagues,
             (SELECT count(*) FROM sports_teams WHERE active)::int AS teams,
             (SELECT count(*) FROM sports_events WHERE active)::int AS events
    `),
    (rows) => rows[0]
  )

  return SportsCatalogRepo.of({
    feedPage: Effect.fn("SportsCatalogRepo.feedPage")(feedPage),
    feedTotal: Effect.fn("SportsCatalogRepo.feedTotal")(feedTotal),
    eventSportIds: Effect.fn("SportsCatalogRepo.eventSportIds")(eventSportIds),
    eventCountryCodes: Effect.fn("SportsCatalogRepo.eventCountryCodes")(eventCountryCodes),
    eventLeagueNames: Effect.fn("SportsCatalogRepo.eventLeagueNames")(eventLeagueNames),
    eventTeamNames: Effect.fn("SportsCatalogRepo.eventTeamNames")(eventTeamNames),
    eventsSince: Effect.fn("SportsCatalogRepo.eventsSince")(eventsSince),
    sportsSince: Effect.fn("SportsCatalogRepo.sportsSince")(sportsSince),
    countriesSince: Effect.fn("SportsCatalogRepo.countriesSince")(countriesSince),
    leaguesSince: Effect.fn("SportsCatalogRepo.leaguesSince")(leaguesSince),
    teamsSince: Effect.fn("SportsCatalogRepo.teamsSince")(teamsSince),
    syncBounds: Effect.withSpan(syncBounds, "SportsCatalogRepo.syncBounds"),
    head: Effect.map(changes.bounds, (bounds) => bounds.head),
    sports: Effect.fn("SportsCatalogRepo.sports")(sports),
    countries: Effect.fn("SportsCatalogRepo.countries")(countries),
    leagues: Effect.fn("SportsCatalogRepo.leagues")(leagues),
    teams: Effect.fn("SportsCatalogRepo.teams")(teams),
    overview: Effect.withSpan(overview, "SportsCatalogRepo.overview"),
    isEmptyFor: Effect.fn("SportsCatalogRepo.isEmptyFor")((provider: string) =>
      // Another provider's world holds none of this one's events, whatever its size: the world's one row says so
      // before any event is looked at (the CASE reads the events only when the world is this provider's).
      Effect.map(
        emptyRows(sql`
          SELECT CASE WHEN (SELECT provider FROM sports_catalog_world) = ${provider}
                      THEN NOT EXISTS (SELECT 1 FROM sports_events WHERE provider = ${provider})
                      ELSE true END AS empty
        `),
        (rows) => rows[0].empty
      )
    ),
    publish: Effect.fn("SportsCatalogRepo.publish")((snapshot) =>
      sql.withTransaction(publishWithPositions(snapshot, changes)).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.orDie
      )
    ),
    onChange: (run) =>
      ChangeFeed.onChange(sportsCatalogChangedChannel, run).pipe(Effect.provideService(PgClient.PgClient, pg))
  })
})

/**
 * The local sports catalog's tables (sports_sports, sports_countries,
 * sports_leagues, sports_teams, sports_team_leagues, sports_events, and
 * sports_catalog_world, whose provider's rows they hold): the
 * only code that reads or writes them. Queries come already read by the
 * rules (SportsCatalogQuery); answers are decoded domain values. Database
 * failures are defects here: callers cannot act on them.
 *
 * Layers: `SportsCatalogRepo.layerSql` (PostgreSQL, below) and `layerMemory`
 * (SportsCatalogRepoMemory.ts, for tests without a database).
 */
export class SportsCatalogRepo extends Context.Service<SportsCatalogRepo, {
  /** A page of the open events `query` selects, in `order`; ties in kick-off order, then by id. */
  feedPage(query: EventQuery, order: FeedOrder, page: PageRequest): Effect.Effect<ReadonlyArray<FeedEvent>>
  /** How many open events `query` selects. */
  feedTotal(query: EventQuery): Effect.Effect<number>
  /** The sports of the events `query` selects. */
  eventSportIds(query: EventQuery): Effect.Effect<ReadonlyArray<number>>
  /** Their countries' codes. */
  eventCountryCodes(query: EventQuery): Effect.Effect<ReadonlyArray<string>>
  /** The names of their leagues (as the league records carry them). */
  eventLeagueNames(query: EventQuery): Effect.Effect<ReadonlyArray<string>>
  /** The names of the teams playing them, home or away. */
  eventTeamNames(query: EventQuery): Effect.Effect<ReadonlyArray<string>>
  /**
   * Where the change log stands for a since read (domain/SportsCatalogSync): its head, and its floor raised to where
   * this catalog's world began.
   */
  readonly syncBounds: Effect.Effect<SyncBounds>
  /** The change log's head alone: read before a list's rows, the position its answer goes on from. */
  readonly head: Effect.Effect<number>
  /**
   * The events of `query`'s feed changed after `since`, by their positions in that feed (a change of an event open in
   * it, or the one that took it out, domain/SportsCatalogSync.feedsChanged), whose league, country, sport and teams
   * meet it (changedEventsOf); each listed or not. In the order they changed, paged.
   */
  eventsSince(query: EventQuery, since: number, page: PageRequest): Effect.Effect<ChangedPage<FeedEvent>>
  /** The same for the lists (changedRecordsOf): every record of it changed after `since`, listed or not. */
  sportsSince(query: ListQuery, since: number, page: PageRequest): Effect.Effect<ChangedPage<SportRecord>>
  countriesSince(query: ListQuery, since: number, page: PageRequest): Effect.Effect<ChangedPage<CountryRecord>>
  leaguesSince(query: ListQuery, since: number, page: PageRequest): Effect.Effect<ChangedPage<NamedRecord>>
  teamsSince(query: ListQuery, since: number, page: PageRequest): Effect.Effect<ChangedPage<NamedRecord>>
  /** Lists in name order (natural, case aside), then by id. */
  sports(query: ListQuery, page: PageRequest): Effect.Effect<Page<SportRecord>>
  countries(query: ListQuery, page: PageRequest): Effect.Effect<Page<CountryRecord>>
  leagues(query: ListQuery, page: PageRequest): Effect.Effect<Page<NamedRecord>>
  teams(query: ListQuery, page: PageRequest): Effect.Effect<Page<NamedRecord>>
  readonly overview: Effect.Effect<SportsCatalogOverview>
  /**
   * No event of `provider` (its `name`): the catalog was never filled, or holds another provider's world (the
   * deployment switched providers), which its first publish replaces.
   */
  isEmptyFor(provider: string): Effect.Effect<boolean>
  /**
   * Publishes a snapshot, all or nothing, taking turns with every other publish (any instance).
   * Unchanged rows are not rewritten; what the scope covered but the snapshot no longer lists goes
   * inactive. Every row carries the snapshot's provider; when the catalog held another provider's world, that
   * world leaves in the same transaction (the catalog holds one provider's rows at each commit). A change is
   * announced on sportsCatalogChangedChannel once it is visible, and sent to the live change stream
   * (CatalogChanges) in the same transaction.
   */
  publish(snapshot: Snapshot): Effect.Effect<PublishReport>
  /** Runs `run` after each change published (by any instance), for as long as the scope lives. */
  onChange(run: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope>
}>()("partner-api/catalog/SportsCatalogRepo") {
  /** The tables in PostgreSQL. */
  static readonly layerSql: Layer.Layer<
    SportsCatalogRepo,
    never,
    SqlClient.SqlClient | PgClient.PgClient | CatalogChanges
  > = Layer.effect(
    SportsCatalogRepo,
    Effect.suspend(() => makeSql)
  )
}
