import type { SqlClient, Statement } from "effect/sql"
import { type PageRequest, pageWindow } from "../../domain/Paging.ts"
import type { EventQuery, FeedOrder, FeedSortKey } from "../../domain/SportsCatalogQuery.ts"

/**
 * The catalog's SQL fragments for events (part of SportsCatalogRepo.layerSql, shared by its reads and its since reads):
 * which events a query names, in what order a feed is sorted, a page's window.
 */

const sortColumns: Record<FeedSortKey, string> = {
  time: "starts_at",
  league_name: "league_name",
  home_name: "home_name",
  away_name: "away_name",
  last_update: "last_update"
}
const nameSorts: ReadonlySet<FeedSortKey> = new Set(["league_name", "home_name", "away_name"])

/** LIKE pattern for a substring (already lower-cased), with the user's own % and _ taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const makeEventSql = (sql: SqlClient.SqlClient) => {
  const limit = (page: PageRequest) => {
    const { limit, offset } = pageWindow(page)
    return sql`LIMIT ${limit} OFFSET ${offset}`
  }
  const oneOf = <A extends string | number>(column: string, values: ReadonlyArray<A>) =>
    values.length === 0 ? sql`false` : sql`${sql(column)} IN ${sql.in(values)}`

  const eventConditions = (query: EventQuery) =>
    // The status is written out, not bound, so the planner can always use the open-events indexes.
    sql.and([
      sql`active`,
      query.source === "live" ? sql`status = 'live'` : sql`status = 'prematch'`,
      ...eventNarrowing(query)
    ])
  /** What narrows events besides being open in the feed's source. */
  const eventNarrowing = (query: EventQuery) => {
    const conditions: Array<Statement.Fragment> = []
    if (query.sportIds !== null) conditions.push(oneOf("sport_id", query.sportIds))
    if (query.countryCodes !== null) conditions.push(oneOf("country_code", query.countryCodes))
    if (query.leagueId !== null) conditions.push(sql`league_id = ${query.leagueId}`)
    if (query.teamId !== null) conditions.push(sql`(home_team_id = ${query.teamId} OR away_team_id = ${query.teamId})`)
    if (query.search !== null) conditions.push(sql`search_text LIKE ${containing(query.search)}`)
    if (query.hasOdds !== null) conditions.push(sql`has_odds = ${query.hasOdds}`)
    if (query.startsFrom !== null) conditions.push(sql`starts_at >= ${new Date(query.startsFrom)}`)
    if (query.startsBefore !== null) conditions.push(sql`starts_at < ${new Date(query.startsBefore)}`)
    return conditions
  }

  /** A feed's ORDER BY. */
  const feedOrdering = (order: FeedOrder) => {
    const column = sortColumns[order.by]
    const direction = order.descending ? sql`DESC` : sql`ASC`
    // Ties keep kick-off order, then id, so pages never overlap; by time, the id follows the direction (one index walk).
    // Names sort naturally (sql/0008: the natural_ci collation, as the indexes do).
    return order.by === "time"
      ? sql`starts_at ${direction}, id ${direction}`
      : nameSorts.has(order.by)
      ? sql`${sql(column)} COLLATE natural_ci ${direction}, starts_at ASC, id ASC`
      : sql`${sql(column)} ${direction}, starts_at ASC, id ASC`
  }

  return { containing, eventConditions, eventNarrowing, feedOrdering, limit, oneOf }
}
