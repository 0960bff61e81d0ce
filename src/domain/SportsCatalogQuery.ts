import { Result, Schema } from "effect"
import { countryCodesOf, countryName } from "./Countries.ts"
import { type EventSource, InvalidSportsCatalogQuery, type RefreshRequest, type RefreshScope } from "./SportsCatalog.ts"
import { sportNames } from "./Sports.ts"
import { compareNames } from "./Text.ts"
import { dayStartIn, nextDay, utcZone } from "./ZoneDays.ts"

/**
 * How the sports catalog reads a query: references resolved (a sport by id
 * or name, a country by any of its codes or its name), text trimmed and
 * folded, days turned into a time range. Two queries that mean the same
 * thing read to equal values (`sport_id=1`, `01` and `Soccer` are one), so
 * they share one cached answer. Pure: no database, no clock.
 */

/** Filters as a partner chose them (the decoded query); lists, dynamic filters and feeds share them. */
export const SportsCatalogFilters = Schema.Struct({
  /** A sport id (`1`) or name (`Soccer`, any case). */
  sport: Schema.optional(Schema.String),
  /** A country code (`br`) or name (`Brazil`), any case. */
  country: Schema.optional(Schema.String),
  leagueId: Schema.optional(Schema.String),
  /** Events where the team plays home or away; leagues the team plays in. */
  teamId: Schema.optional(Schema.String),
  search: Schema.optional(Schema.String),
  hasOdds: Schema.optional(Schema.Boolean),
  /** Days as YYYYMMDD, in `timeZone` (UTC unless given). */
  date: Schema.optional(Schema.String),
  dateFrom: Schema.optional(Schema.String),
  dateTo: Schema.optional(Schema.String),
  /** The IANA zone the days are cut in, as the runtime names it (the contract checked it). */
  timeZone: Schema.optional(Schema.String),
  active: Schema.optional(Schema.Boolean)
})
export type SportsCatalogFilters = typeof SportsCatalogFilters.Type

/** What narrows a list and a feed alike; null means no narrowing. Sets are sorted and without repeats. */
interface Narrowing {
  /** Empty when the reference names no sport: nothing matches. */
  readonly sportIds: ReadonlyArray<number> | null
  /** Empty when the reference names no country: nothing matches. */
  readonly countryCodes: ReadonlyArray<string> | null
  readonly leagueId: string | null
  readonly teamId: string | null
  /** Trimmed and lower-cased; matched anywhere in a name, case aside. */
  readonly search: string | null
}

/** A feed's or a dynamic filter's events: open events of the source, narrowed. */
export interface EventQuery extends Narrowing {
  readonly source: EventSource
  readonly hasOdds: boolean | null
  /** Kick-off at or after this instant (ms). */
  readonly startsFrom: number | null
  /** Kick-off before this instant (ms). */
  readonly startsBefore: number | null
}

/** A list of sports, countries, leagues or teams, narrowed. */
export interface ListQuery extends Narrowing {
  readonly active: boolean | null
}

export type Facet = "sport" | "country" | "league" | "team"

export type FeedSortKey = "time" | "league_name" | "home_name" | "away_name" | "last_update"

export interface FeedOrder {
  readonly by: FeedSortKey
  readonly descending: boolean
}

const sortKeys: ReadonlySet<string> = new Set<FeedSortKey>([
  "time",
  "league_name",
  "home_name",
  "away_name",
  "last_update"
])
const sortedUnique = <A extends number | string>(items: Iterable<A>): ReadonlyArray<A> =>
  [...new Set(items)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

/** A sport by id, or by name in any case; an unknown name matches nothing. */
export const sportIdsOf = (reference: string): ReadonlyArray<number> => {
  const wanted = reference.trim().toLowerCase()
  if (/^\d+$/.test(wanted)) return [Number(wanted)]
  return sortedUnique(
    Object.entries(sportNames).filter(([, name]) => name.toLowerCase() === wanted).map(([id]) => Number(id))
  )
}

export const sportName = (id: number) => sportNames[id] ?? `Sport ${id}`

/** Names as the dynamic filters offer them: each once, in reading order. */
export const sortedNames = (names: Iterable<string>): ReadonlyArray<string> => [...new Set(names)].sort(compareNames)

/** A narrowing's fields, always in this order. */
const narrowingFields = (query: Narrowing): Narrowing => ({
  sportIds: query.sportIds,
  countryCodes: query.countryCodes,
  leagueId: query.leagueId,
  teamId: query.teamId,
  search: query.search
})

/** An event query's fields, always in this order: the same query gives the same JSON. */
export const eventQueryFields = (query: EventQuery): EventQuery => ({
  source: query.source,
  ...narrowingFields(query),
  hasOdds: query.hasOdds,
  startsFrom: query.startsFrom,
  startsBefore: query.startsBefore
})

/** A list query's fields, always in this order. */
export const listQueryFields = (query: ListQuery): ListQuery => ({ ...narrowingFields(query), active: query.active })

/** A feed order's fields, always in this order. */
export const feedOrderFields = (order: FeedOrder): FeedOrder => ({ by: order.by, descending: order.descending })

const narrowingOf = (filters: SportsCatalogFilters): Narrowing => {
  const search = filters.search?.trim().toLowerCase()
  return {
    sportIds: filters.sport === undefined ? null : sportIdsOf(filters.sport),
    countryCodes: filters.country === undefined ? null : sortedUnique(countryCodesOf(filters.country)),
    leagueId: filters.leagueId ?? null,
    teamId: filters.teamId ?? null,
    search: search ? search : null
  }
}

/**
 * The kick-off range the date filters select, [from, before): `date` one day, `dateFrom`/`dateTo` an
 * inclusive range of days, both together their overlap, each day cut in `timeZone` (UTC unless given). `dateTo`
 * before `dateFrom` cannot be answered.
 */
export const startRangeOf = (
  filters: Pick<SportsCatalogFilters, "date" | "dateFrom" | "dateTo" | "timeZone">
): Result.Result<
  { readonly startsFrom: number | null; readonly startsBefore: number | null },
  InvalidSportsCatalogQuery
> => {
  if (filters.dateFrom !== undefined && filters.dateTo !== undefined && filters.dateFrom > filters.dateTo) {
    return Result.fail(
      new InvalidSportsCatalogQuery({
        errors: { date_to: ["The date to field must be a day on or after date from."] }
      })
    )
  }
  const zone = filters.timeZone ?? utcZone
  let from: number | null = null
  let before: number | null = null
  if (filters.date !== undefined) {
    from = dayStartIn(filters.date, zone)
    before = dayStartIn(nextDay(filters.date), zone)
  }
  if (filters.dateFrom !== undefined) from = Math.max(from ?? -Infinity, dayStartIn(filters.dateFrom, zone))
  if (filters.dateTo !== undefined) before = Math.min(before ?? Infinity, dayStartIn(nextDay(filters.dateTo), zone))
  return Result.succeed({ startsFrom: from, startsBefore: before })
}

/** The events a feed or the dynamic filters of `source` read. `active` does not apply to events. */
export const eventQueryOf = (
  source: EventSource,
  filters: SportsCatalogFilters
): Result.Result<EventQuery, InvalidSportsCatalogQuery> =>
  Result.map(startRangeOf(filters), (range) => ({
    source,
    ...narrowingOf(filters),
    hasOdds: filters.hasOdds ?? null,
    ...range
  }))

/** The records a list reads. The event filters (`hasOdds`, dates) do not apply to records. */
export const listQueryOf = (filters: SportsCatalogFilters): ListQuery => ({
  ...narrowingOf(filters),
  active: filters.active ?? null
})

const ownFilter = {
  sport: "sportIds",
  country: "countryCodes",
  league: "leagueId",
  team: "teamId"
} as const satisfies Record<Facet, keyof Narrowing>

/**
 * A facet is narrowed by every chosen filter except its own, so a choice can still be changed: the
 * leagues facet of `league_id=7` is the one of no league chosen.
 */
export const facetQueryOf = (facet: Facet, query: EventQuery): EventQuery => ({ ...query, [ownFilter[facet]]: null })

/** The feed's order: a known key (any case, spaces aside), `desc` (any case) or ascending; anything else is time ascending. */
export const feedOrderOf = (sortBy: string | undefined, direction: string | undefined): FeedOrder => {
  const key = sortBy?.trim().toLowerCase() ?? "time"
  if (!sortKeys.has(key)) return { by: "time", descending: false }
  return { by: key as FeedSortKey, descending: direction?.trim().toLowerCase() === "desc" }
}

/** A facet's name of a sport id or a country code. */
export const facetNameOf = { sport: sportName, country: countryName } as const

/**
 * What a refresh covers: the sport the request names (an id or a name), or every configured sport;
 * leagues and events unless told otherwise. A name that names no sport cannot be refreshed.
 */
export const refreshScopeOf = (
  request: RefreshRequest | null | undefined,
  configuredSportIds: ReadonlyArray<number>
): Result.Result<RefreshScope, InvalidSportsCatalogQuery> => {
  const sport = request?.sport
  const named = sport !== undefined && sport !== null
  const sportIds = named ? sportIdsOf(String(sport)) : configuredSportIds
  if (named && sportIds.length === 0) {
    return Result.fail(new InvalidSportsCatalogQuery({ errors: { sport_id: ["The selected sport id is invalid."] } }))
  }
  return Result.succeed({
    sportIds: sortedUnique(sportIds),
    leagues: request?.importLeagues ?? true,
    events: request?.importEvents ?? true,
    liveOnly: false
  })
}

/**
 * The configured sports a provider offers (`offered`; every one when undefined), and those it does not, which the
 * scheduled refreshes skip.
 */
export const offeredSportIds = (
  configured: ReadonlyArray<number>,
  offered: ReadonlyArray<number> | undefined
): { readonly kept: ReadonlyArray<number>; readonly skipped: ReadonlyArray<number> } => ({
  kept: offered === undefined ? configured : configured.filter((id) => offered.includes(id)),
  skipped: offered === undefined ? [] : configured.filter((id) => !offered.includes(id))
})

/** A refresh asked for a sport the provider does not offer is refused, naming `sport_id` (nothing is fetched). */
export const offeredRefreshScope = (
  scope: RefreshScope,
  provider: string,
  offered: ReadonlyArray<number> | undefined
): Result.Result<RefreshScope, InvalidSportsCatalogQuery> => {
  const { skipped } = offeredSportIds(scope.sportIds, offered)
  return skipped.length === 0 ? Result.succeed(scope) : Result.fail(
    new InvalidSportsCatalogQuery({
      errors: { sport_id: [`The sports provider ${provider} does not offer sport ${skipped.join(", ")}.`] }
    })
  )
}

/** The frequent refresh of events in play, over every configured sport. */
export const liveRefreshScopeOf = (configuredSportIds: ReadonlyArray<number>): RefreshScope => ({
  sportIds: sortedUnique(configuredSportIds),
  leagues: false,
  events: true,
  liveOnly: true
})
