import { Clock, Effect, Equal, Layer } from "effect"
import { type PageRequest, slicePage } from "../../domain/Paging.ts"
import type { CountryRecord, FeedEvent, NamedRecord, Snapshot, SportRecord } from "../../domain/SportsCatalog.ts"
import { publishReportOf, snapshotRecords } from "../../domain/SportsCatalogPublish.ts"
import type { EventQuery, FeedOrder, ListQuery } from "../../domain/SportsCatalogQuery.ts"
import { groupingOf, totalFrom, totalsOf, type TotalsRow } from "../../domain/SportsFeedTotals.ts"
import { compareNames } from "../../domain/Text.ts"
import { CatalogChanges } from "./CatalogChanges.ts"
import { SportsCatalogRepo } from "./SportsCatalogRepo.ts"

interface StoredEvent extends FeedEvent {
  readonly homeTeamId: string
  readonly awayTeamId: string
  readonly active: boolean
}

const byName = <A extends { readonly name: string }>(key: (a: A) => string | number) => (a: A, b: A) =>
  compareNames(a.name, b.name) || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const named = (search: string | null, name: string) => search === null || name.toLowerCase().includes(search)

/**
 * SportsCatalogRepo in memory, for tests of the read service without a
 * database: the same reads over plain records, and a publish that replaces
 * another provider's world, upserts, counts what changed and deactivates
 * what the scope covered but the snapshot no longer lists. Change listeners run after each changing publish;
 * `layerMemoryNoDeps` sends every publish to the CatalogChanges the caller provides (a change stream),
 * `layerMemory` to nobody.
 */
export const layerMemoryNoDeps = Layer.effect(
  SportsCatalogRepo,
  Effect.map(Effect.service(CatalogChanges), (changes) => {
    const sports = new Map<number, SportRecord>()
    const countries = new Map<string, CountryRecord>()
    const leagues = new Map<string, NamedRecord>()
    const teams = new Map<string, NamedRecord>()
    const teamLeagues = new Set<string>()
    const events = new Map<string, StoredEvent>()
    const listeners = new Set<Effect.Effect<void>>()
    /** Whose world the records are (sports_catalog_world): none until the first publish. */
    let world: string | null = null
    /** The feeds' totals that repeat, kept by each publish that moved an event (sql/0040's summary). */
    let totals: ReadonlyArray<TotalsRow> = []
    const keepTotals = () => {
      totals = totalsOf(
        [...events.values()].filter((event) => event.active && ["prematch", "live"].includes(event.status))
      )
    }

    const matches = (query: EventQuery) => (event: StoredEvent) =>
      event.active && event.status === query.source &&
      (query.sportIds === null || query.sportIds.includes(event.sportId)) &&
      (query.countryCodes === null || (event.countryCode !== null && query.countryCodes.includes(event.countryCode))) &&
      (query.leagueId === null || event.leagueId === query.leagueId) &&
      (query.teamId === null || event.homeTeamId === query.teamId || event.awayTeamId === query.teamId) &&
      (query.search === null ||
        `${event.leagueName} ${event.homeName} ${event.awayName}`.toLowerCase().includes(query.search)) &&
      (query.hasOdds === null || event.hasOdds === query.hasOdds) &&
      (query.startsFrom === null || event.startsAt.getTime() >= query.startsFrom) &&
      (query.startsBefore === null || event.startsAt.getTime() < query.startsBefore)
    const selected = (query: EventQuery) => [...events.values()].filter(matches(query))

    const feedOrder = (order: FeedOrder) => (a: StoredEvent, b: StoredEvent) => {
      const sign = order.descending ? -1 : 1
      const time = a.startsAt.getTime() - b.startsAt.getTime()
      switch (order.by) {
        case "time":
          return sign * (time || byId(a.id, b.id))
        case "last_update":
          return sign * (a.lastUpdate.getTime() - b.lastUpdate.getTime()) || time || byId(a.id, b.id)
        default: {
          const field = order.by === "league_name" ? "leagueName" : order.by === "home_name" ? "homeName" : "awayName"
          return sign * compareNames(a[field], b[field]) || time || byId(a.id, b.id)
        }
      }
    }
    const feedEvent = ({ active: _a, awayTeamId: _w, homeTeamId: _h, ...event }: StoredEvent): FeedEvent => event

    const recordMatches = (query: ListQuery, record: NamedRecord) =>
      named(query.search, record.name) && (query.active === null || record.active === query.active) &&
      (query.sportIds === null || query.sportIds.includes(record.sportId)) &&
      (query.countryCodes === null || (record.countryCode !== null && query.countryCodes.includes(record.countryCode)))
    const leaguesWhere = (test: (league: NamedRecord) => boolean) => [...leagues.values()].some(test)

    const list = <A>(
      items: Iterable<A>,
      keep: (item: A) => boolean,
      order: (a: A, b: A) => number,
      page: PageRequest
    ) => Effect.succeed(slicePage(page, [...items].filter(keep).sort(order)))

    const upsert = <K, A>(table: Map<K, A>, key: K, row: A) => {
      const changed = !Equal.equals(table.get(key), row)
      if (changed) table.set(key, row)
      return changed ? 1 : 0
    }

    const publish = Effect.fn("SportsCatalogRepoMemory.publish")(function*(snapshot: Snapshot) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const { provider, scope } = snapshot
      let changed = 0
      let deactivated = 0
      const records = snapshotRecords(snapshot)
      // Another provider's world leaves whole before this one's is written (nothing here fails midway), so the
      // reads, as the SQL's, need no provider filter.
      let removed = 0
      if (world !== provider) {
        removed = leagues.size + teams.size + teamLeagues.size + events.size
        for (const table of [leagues, teams, teamLeagues, events]) table.clear()
        world = provider
      }
      for (const sport of records.sports) {
        changed += upsert(sports, sport.id, { ...sport, active: sports.get(sport.id)?.active ?? true })
      }
      for (const country of records.countries) {
        changed += upsert(countries, country.code, { ...country, active: countries.get(country.code)?.active ?? true })
      }
      for (const league of records.leagues) changed += upsert(leagues, league.id, { ...league, active: true })
      const listedLeagues = new Set(records.leagues.map((league) => league.id))
      const listedTeams = new Set(records.teams.map((team) => team.id))
      // What the scope covered but the snapshot no longer lists goes inactive.
      const deactivate = <A extends { readonly active: boolean; readonly sportId: number }>(
        table: Map<string, A>,
        listed: (id: string) => boolean
      ) => {
        for (const [id, row] of table) {
          if (row.active && scope.sportIds.includes(row.sportId) && !listed(id)) {
            table.set(id, { ...row, active: false })
            deactivated++
          }
        }
      }
      if (scope.leagues && !scope.liveOnly) deactivate(leagues, (id) => listedLeagues.has(id))
      if (scope.events) {
        for (const team of records.teams) changed += upsert(teams, team.id, { ...team, active: true })
        for (const membership of records.memberships) {
          teamLeagues.add(`${membership.teamId}\u0000${membership.leagueId}`)
        }
        for (const row of records.events) {
          const previous = events.get(row.id)
          const open = { ...row, active: true }
          if (
            previous === undefined || !Equal.equals({ ...previous, lastUpdate: null }, { ...open, lastUpdate: null })
          ) {
            events.set(row.id, { ...open, lastUpdate: now })
            changed++
          }
        }
        if (!scope.liveOnly) {
          const listed = new Set(snapshot.events.map((event) => event.id))
          deactivate(events, (id) => listed.has(id) || !["prematch", "live"].includes(events.get(id)!.status))
          deactivate(teams, (id) => listedTeams.has(id))
        }
      }
      // A sport or a country is active while one of its leagues is.
      for (const sport of sports.values()) {
        sports.set(sport.id, { ...sport, active: leaguesWhere((l) => l.active && l.sportId === sport.id) })
      }
      for (const country of countries.values()) {
        countries.set(country.code, {
          ...country,
          active: leaguesWhere((l) => l.active && l.countryCode === country.code)
        })
      }
      if (changed + deactivated + removed > 0) {
        keepTotals()
        yield* Effect.forEach(listeners, (listener) => listener, { discard: true })
      }
      yield* changes.published(snapshot)
      return publishReportOf(records, { changed, deactivated })
    })

    return SportsCatalogRepo.of({
      feedPage: (query, order, page) =>
        Effect.sync(() => slicePage(page, selected(query).sort(feedOrder(order))).results.map(feedEvent)),
      // From the summary when it covers the filters (as the SQL's feedTotal), counted otherwise.
      feedTotal: (query) =>
        Effect.sync(() => {
          const grouping = groupingOf(query)
          return grouping === null ? selected(query).length : totalFrom(totals, query, grouping)
        }),
      eventSportIds: (query) => Effect.sync(() => [...new Set(selected(query).map((event) => event.sportId))]),
      eventCountryCodes: (query) =>
        Effect.sync(() => [
          ...new Set(selected(query).flatMap((event) => event.countryCode === null ? [] : [event.countryCode]))
        ]),
      eventLeagueNames: (query) =>
        Effect.sync(() =>
          [...new Set(selected(query).map((event) => event.leagueId))].flatMap((id) => leagues.get(id)?.name ?? [])
        ),
      eventTeamNames: (query) =>
        Effect.sync(() =>
          [...new Set(selected(query).flatMap((event) => [event.homeTeamId, event.awayTeamId]))].flatMap((id) =>
            teams.get(id)?.name ?? []
          )
        ),
      sports: (query, page) =>
        list(
          sports.values(),
          (sport) =>
            named(query.search, sport.name) && (query.active === null || sport.active === query.active) &&
            (query.sportIds === null || query.sportIds.includes(sport.id)) &&
            (query.countryCodes === null ||
              leaguesWhere((l) => l.sportId === sport.id && query.countryCodes!.includes(l.countryCode ?? ""))) &&
            (query.leagueId === null || leaguesWhere((l) => l.sportId === sport.id && l.id === query.leagueId)),
          byName((s) => s.id),
          page
        ),
      countries: (query, page) =>
        list(
          countries.values(),
          (country) =>
            named(query.search, country.name) && (query.active === null || country.active === query.active) &&
            (query.countryCodes === null || query.countryCodes.includes(country.code)) &&
            (query.sportIds === null ||
              leaguesWhere((l) => l.countryCode === country.code && query.sportIds!.includes(l.sportId))) &&
            (query.leagueId === null || leaguesWhere((l) => l.countryCode === country.code && l.id === query.leagueId)),
          byName((c) => c.code),
          page
        ),
      leagues: (query, page) =>
        list(
          leagues.values(),
          (league) =>
            recordMatches(query, league) && (query.leagueId === null || league.id === query.leagueId) &&
            (query.teamId === null || teamLeagues.has(`${query.teamId}\u0000${league.id}`)),
          byName((l) => l.id),
          page
        ),
      teams: (query, page) =>
        list(
          teams.values(),
          (team) =>
            recordMatches(query, team) && (query.teamId === null || team.id === query.teamId) &&
            (query.leagueId === null || teamLeagues.has(`${team.id}\u0000${query.leagueId}`)),
          byName((t) => t.id),
          page
        ),
      overview: Effect.sync(() => {
        const active = (rows: Iterable<{ readonly active: boolean }>) => [...rows].filter((row) => row.active).length
        return {
          sports: active(sports.values()),
          countries: active(countries.values()),
          leagues: active(leagues.values()),
          teams: active(teams.values()),
          events: active(events.values())
        }
      }),
      isEmptyFor: (provider) => Effect.sync(() => world !== provider || events.size === 0),
      publish,
      onChange: (run) =>
        Effect.acquireRelease(Effect.sync(() => listeners.add(run)), () => Effect.sync(() => listeners.delete(run)))
          .pipe(Effect.asVoid)
    })
  })
)

/** In memory, nobody streaming it. */
export const layerMemory = layerMemoryNoDeps.pipe(Layer.provide(CatalogChanges.none))
