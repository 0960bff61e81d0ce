import type { EventQuery } from "./SportsCatalogQuery.ts"

/**
 * The feeds' totals that repeat, kept by each publish (sql/0040, and the memory twin): how many open events each
 * status holds, per each grouping of the filters partners combine most (sport, country, league, odds, UTC day).
 * A feed whose filters are exactly one of these groupings reads its `meta.total` as a sum of a few summary rows
 * instead of counting the events; any other filter (a team, a search, a date range not on day boundaries, a
 * grouping not kept) is counted, as before. Pure: no database.
 */

/** A filter the summary is grouped by, in the order a grouping names them. */
export type TotalsDimension = "sport" | "country" | "league" | "odds" | "day"

/** The groupings kept, each its dimensions joined by `+` in TotalsDimension's order; `""` is the status alone. */
export const keptGroupings: ReadonlyArray<string> = [
  "",
  "sport",
  "country",
  "league",
  "odds",
  "day",
  "sport+country",
  "sport+odds",
  "sport+day",
  "country+odds",
  "league+odds",
  "odds+day",
  "sport+odds+day"
]
const kept: ReadonlySet<string> = new Set(keptGroupings)

const dayMillis = 86_400_000

/** A UTC day as the summary keeps it: YYYY-MM-DD. */
export const dayOf = (millis: number) => new Date(millis).toISOString().slice(0, 10)

/**
 * The grouping whose rows answer `query`'s total, or null when the summary does not cover it (the total is
 * counted). The kick-off range is covered when its bounds are UTC midnights (the `date` filters always are).
 */
export const groupingOf = (query: EventQuery): string | null => {
  if (query.teamId !== null || query.search !== null) return null
  const onDay = (bound: number | null) => bound === null || bound % dayMillis === 0
  if (!onDay(query.startsFrom) || !onDay(query.startsBefore)) return null
  const dimensions: Array<TotalsDimension> = []
  if (query.sportIds !== null) dimensions.push("sport")
  if (query.countryCodes !== null) dimensions.push("country")
  if (query.leagueId !== null) dimensions.push("league")
  if (query.hasOdds !== null) dimensions.push("odds")
  if (query.startsFrom !== null || query.startsBefore !== null) dimensions.push("day")
  const grouping = dimensions.join("+")
  return kept.has(grouping) ? grouping : null
}

/** One row of the summary: a grouping's values (null where the grouping does not name the filter) and its count. */
export interface TotalsRow {
  readonly status: string
  readonly grouping: string
  readonly sportId: number | null
  readonly countryCode: string | null
  readonly leagueId: string | null
  readonly hasOdds: boolean | null
  readonly day: string | null
  readonly total: number
}

/** The open events the summary counts, as the memory twin holds them. */
export interface CountedEvent {
  readonly status: string
  readonly sportId: number
  readonly countryCode: string | null
  readonly leagueId: string
  readonly hasOdds: boolean
  readonly startsAt: Date
}

/** The summary of open events (prematch and live), as a publish keeps it (the SQL's GROUPING SETS, in memory). */
export const totalsOf = (events: Iterable<CountedEvent>): ReadonlyArray<TotalsRow> => {
  const rows = new Map<string, TotalsRow>()
  for (const event of events) {
    const day = dayOf(event.startsAt.getTime())
    for (const grouping of keptGroupings) {
      const named = new Set(grouping.split("+"))
      const row: TotalsRow = {
        status: event.status,
        grouping,
        sportId: named.has("sport") ? event.sportId : null,
        countryCode: named.has("country") ? event.countryCode : null,
        leagueId: named.has("league") ? event.leagueId : null,
        hasOdds: named.has("odds") ? event.hasOdds : null,
        day: named.has("day") ? day : null,
        total: 0
      }
      const key = JSON.stringify([
        row.status,
        grouping,
        row.sportId,
        row.countryCode,
        row.leagueId,
        row.hasOdds,
        row.day
      ])
      rows.set(key, { ...row, total: (rows.get(key)?.total ?? 0) + 1 })
    }
  }
  return [...rows.values()]
}

/** The total `query` selects from the summary's rows, given its grouping (groupingOf). */
export const totalFrom = (rows: Iterable<TotalsRow>, query: EventQuery, grouping: string): number => {
  const from = query.startsFrom === null ? null : dayOf(query.startsFrom)
  const before = query.startsBefore === null ? null : dayOf(query.startsBefore)
  let total = 0
  for (const row of rows) {
    if (
      row.status === query.source && row.grouping === grouping &&
      (query.sportIds === null || (row.sportId !== null && query.sportIds.includes(row.sportId))) &&
      (query.countryCodes === null || (row.countryCode !== null && query.countryCodes.includes(row.countryCode))) &&
      (query.leagueId === null || row.leagueId === query.leagueId) &&
      (query.hasOdds === null || row.hasOdds === query.hasOdds) &&
      (from === null || (row.day !== null && row.day >= from)) &&
      (before === null || (row.day !== null && row.day < before))
    ) total += row.total
  }
  return total
}
