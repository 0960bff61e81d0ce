import { countryName } from "./Countries.ts"
import type { EventStatus, StatusReason } from "./Sports.ts"
import type { CatalogStatus, PublishReport, Snapshot } from "./SportsCatalog.ts"
import { sportName } from "./SportsCatalogQuery.ts"

/**
 * What a refresh's snapshot publishes, record by record, whatever keeps
 * them: the leagues listed and the ones only events mention, every team
 * with its country (its own, else its league's), the countries and sports
 * these name, which team plays in which league, and each event with the
 * names its league and team records carry (so lists, filters and feeds
 * always agree). Country codes are lower case. Pure.
 */
export interface SnapshotRecords {
  readonly sports: ReadonlyArray<{ readonly id: number; readonly name: string }>
  readonly countries: ReadonlyArray<{ readonly code: string; readonly name: string }>
  readonly leagues: ReadonlyArray<RecordRow>
  readonly teams: ReadonlyArray<RecordRow>
  readonly memberships: ReadonlyArray<{ readonly teamId: string; readonly leagueId: string }>
  readonly events: ReadonlyArray<EventRow>
}

export interface RecordRow {
  readonly id: string
  readonly name: string
  readonly sportId: number
  readonly countryCode: string | null
}

export interface EventRow {
  readonly id: string
  readonly sportId: number
  readonly countryCode: string | null
  readonly leagueId: string
  readonly leagueName: string
  readonly homeTeamId: string
  readonly homeName: string
  readonly awayTeamId: string
  readonly awayName: string
  readonly startsAt: Date
  /** In the catalog's words (catalogStatus). */
  readonly status: CatalogStatus
  /** Why, where the provider says so. */
  readonly reason: StatusReason | null
  readonly score: string | null
  readonly minute: number | null
  readonly hasOdds: boolean
}

const lower = (code: string | null) => code?.toLowerCase() ?? null

/**
 * An event's status in the catalog's own words (sql/0003; `abandoned` since sql/0045): the feed an open event is on
 * (`prematch`, `live`), or how it left them. Its feeds' indexes are written in these words, so it keeps them; one word
 * for each of the life cycle's, which the feeds answer (SportsCatalog.ts lifeCycleStatusOf).
 */
export const catalogStatus: Readonly<Record<EventStatus, CatalogStatus>> = {
  scheduled: "prematch",
  live: "live",
  final: "ended",
  postponed: "postponed",
  cancelled: "cancelled",
  abandoned: "abandoned",
  suspended: "interrupted"
}

const computed = new WeakMap<Snapshot, SnapshotRecords>()

/**
 * The records a snapshot publishes, computed once per snapshot: the catalog's publish and the change stream's record
 * of it both read them (a snapshot never changes once fetched).
 */
export const snapshotRecords = (snapshot: Snapshot): SnapshotRecords => {
  let records = computed.get(snapshot)
  if (records === undefined) {
    records = recordsOf(snapshot)
    computed.set(snapshot, records)
  }
  return records
}

const recordsOf = (snapshot: Snapshot): SnapshotRecords => {
  // Leagues the events mention, for the ones the league list did not carry.
  const leagues = new Map(snapshot.leagues.map((league) => [league.id, league]))
  for (const event of snapshot.events) if (!leagues.has(event.league.id)) leagues.set(event.league.id, event.league)
  const teams = new Map<string, RecordRow>()
  const memberships = new Map<string, { readonly teamId: string; readonly leagueId: string }>()
  for (const event of snapshot.events) {
    for (const team of [event.home, event.away]) {
      teams.set(team.id, {
        id: team.id,
        name: team.name,
        sportId: event.sportId,
        countryCode: lower(team.countryCode ?? event.league.countryCode)
      })
      memberships.set(`${team.id}\u0000${event.league.id}`, { teamId: team.id, leagueId: event.league.id })
    }
  }
  const leagueRows = [...leagues.values()].map((league): RecordRow => ({
    id: league.id,
    name: league.name,
    sportId: league.sportId,
    countryCode: lower(league.countryCode)
  }))
  const countryCodes = new Set<string>()
  for (const row of [...leagueRows, ...teams.values()]) if (row.countryCode) countryCodes.add(row.countryCode)
  // A sport is recorded once the provider lists something of it: a refresh for a sport id the provider
  // does not know leaves no row ("Sport 987654") for every partner to see.
  const sportIds = new Set([
    ...leagueRows.map((league) => league.sportId),
    ...snapshot.events.map((event) => event.sportId)
  ])
  return {
    sports: [...sportIds].map((id) => ({ id, name: sportName(id) })),
    countries: [...countryCodes].map((code) => ({ code, name: countryName(code) })),
    leagues: leagueRows,
    teams: [...teams.values()],
    memberships: [...memberships.values()],
    events: snapshot.events.map((event): EventRow => ({
      id: event.id,
      sportId: event.sportId,
      countryCode: lower(event.league.countryCode),
      leagueId: event.league.id,
      leagueName: leagues.get(event.league.id)?.name ?? event.league.name,
      homeTeamId: event.home.id,
      homeName: teams.get(event.home.id)?.name ?? event.home.name,
      awayTeamId: event.away.id,
      awayName: teams.get(event.away.id)?.name ?? event.away.name,
      startsAt: event.startsAt,
      status: catalogStatus[event.status],
      reason: event.reason ?? null,
      score: event.score,
      minute: event.minute,
      hasOdds: event.hasOdds
    }))
  }
}

/** What publishing `records` did, told in counts: what it carried, and how many rows changed or went inactive. */
export const publishReportOf = (
  records: SnapshotRecords,
  counts: { readonly changed: number; readonly deactivated: number }
): PublishReport => ({
  sports: records.sports.length,
  countries: records.countries.length,
  leagues: records.leagues.length,
  teams: records.teams.length,
  events: records.events.length,
  changed: counts.changed,
  deactivated: counts.deactivated
})
