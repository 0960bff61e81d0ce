import { Clock, Effect, Equal, Layer, Semaphore } from "effect"
import { type PageRequest, slicePage } from "../../domain/Paging.ts"
import type { CountryRecord, FeedEvent, NamedRecord, Snapshot, SportRecord } from "../../domain/SportsCatalog.ts"
import { publishReportOf, snapshotRecords } from "../../domain/SportsCatalogPublish.ts"
import type { EventQuery, FeedOrder, ListQuery } from "../../domain/SportsCatalogQuery.ts"
import {
  changedEventsOf,
  type ChangedPage,
  changedRecordsOf,
  feedsChanged,
  openFeedOf,
  positionsFor,
  positionsFrom,
  type RecordKind,
  type RecordPosition,
  type Written
} from "../../domain/SportsCatalogSync.ts"
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
    /** Each record's position (sql/0042's sports_catalog_positions), by kind and id. */
    const positions = new Map<string, RecordPosition>()
    const positionKey = (kind: RecordKind, id: string | number) => `${kind}\u0000${id}`
    /** Records written whose positions are not drawn yet (the log could not be reached): drawn with the next publish. */
    const unstamped: Record<keyof Written, Set<string>> = {
      sport: new Set(),
      country: new Set(),
      league: new Set(),
      team: new Set(),
      event: new Set()
    }
    /** Where this world began (sports_catalog_world.since_floor), and whether the next positions drawn say it. */
    let worldFloor = 0
    let worldBegins = false
    /** A publish holds it from its first write to its positions; a since read, for its reading: none sees between. */
    const publishing = Semaphore.makeUnsafe(1)
    /** The feeds' totals that repeat, kept by each publish that moved an event (sql/0040's summary). */
    let totals: ReadonlyArray<TotalsRow> = []
    const keepTotals = () => {
      totals = totalsOf(
        [...events.values()].filter((event) => event.active && ["prematch", "live"].includes(event.status))
      )
    }

    const openIn = (query: EventQuery) => (event: StoredEvent) => event.active && event.status === query.source
    const matches = (query: EventQuery) => (event: StoredEvent) => openIn(query)(event) && narrowed(query)(event)
    /** What narrows events besides being open in the feed's source. */
    const narrowed = (query: EventQuery) => (event: StoredEvent) =>
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

    /** Writes `row` when it differs from what `table` holds, the record left for its position: 1 when written. */
    const upsert = <K extends string | number, A>(kind: keyof Written, table: Map<K, A>, key: K, row: A) => {
      const changed = !Equal.equals(table.get(key), row)
      if (changed) {
        table.set(key, row)
        unstamped[kind].add(String(key))
      }
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
        for (const kind of ["league", "team", "event"] as const) unstamped[kind].clear()
        for (const kind of ["league", "team", "prematch", "live"] as const) {
          for (const key of positions.keys()) if (key.startsWith(positionKey(kind, ""))) positions.delete(key)
        }
        worldBegins ||= removed > 0
        world = provider
      }
      for (const sport of records.sports) {
        changed += upsert("sport", sports, sport.id, { ...sport, active: sports.get(sport.id)?.active ?? true })
      }
      for (const country of records.countries) {
        changed += upsert("country", countries, country.code, {
          ...country,
          active: countries.get(country.code)?.active ?? true
        })
      }
      for (const league of records.leagues) {
        changed += upsert("league", leagues, league.id, { ...league, active: true })
      }
      const listedLeagues = new Set(records.leagues.map((league) => league.id))
      const listedTeams = new Set(records.teams.map((team) => team.id))
      // What the scope covered but the snapshot no longer lists goes inactive.
      const deactivate = <A extends { readonly active: boolean; readonly sportId: number }>(
        kind: keyof Written,
        table: Map<string, A>,
        listed: (id: string) => boolean
      ) => {
        for (const [id, row] of table) {
          if (row.active && scope.sportIds.includes(row.sportId) && !listed(id)) {
            table.set(id, { ...row, active: false })
            unstamped[kind].add(id)
            deactivated++
          }
        }
      }
      if (scope.leagues && !scope.liveOnly) deactivate("league", leagues, (id) => listedLeagues.has(id))
      if (scope.events) {
        for (const team of records.teams) changed += upsert("team", teams, team.id, { ...team, active: true })
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
            unstamped.event.add(row.id)
            changed++
          }
        }
        if (!scope.liveOnly) {
          const listed = new Set(snapshot.events.map((event) => event.id))
          deactivate("event", events, (id) => listed.has(id) || !["prematch", "live"].includes(events.get(id)!.status))
          deactivate("team", teams, (id) => listedTeams.has(id))
        }
      }
      // A sport or a country is active while one of its leagues is.
      for (const sport of sports.values()) {
        const active = leaguesWhere((l) => l.active && l.sportId === sport.id)
        if (active !== sport.active) upsert("sport", sports, sport.id, { ...sport, active })
      }
      for (const country of countries.values()) {
        const active = leaguesWhere((l) => l.active && l.countryCode === country.code)
        if (active !== country.active) upsert("country", countries, country.code, { ...country, active })
      }
      if (changed + deactivated + removed > 0) {
        keepTotals()
        yield* Effect.forEach(listeners, (listener) => listener, { discard: true })
      }
      yield* changes.published(snapshot)
      yield* stamp
      return publishReportOf(records, { changed, deactivated })
    })

    /**
     * The records written get their positions, drawn from the log (as the SQL's publish does, after its changes);
     * when the log cannot be reached they wait for the next publish's.
     */
    const stamp = Effect.gen(function*() {
      const written: Written = {
        sport: [...unstamped.sport],
        country: [...unstamped.country],
        league: [...unstamped.league],
        team: [...unstamped.team],
        event: [...unstamped.event]
      }
      const count = positionsFor(written)
      if (count === 0 && !worldBegins) return
      const first = yield* changes.positions(Math.max(count, 1))
      if (first === undefined) return
      const { events: changedEvents, records } = positionsFrom(written, first)
      for (const { id, kind, position } of records) positions.set(positionKey(kind, id), { position, listed: null })
      for (const drawn of changedEvents) {
        const event = events.get(drawn.id)
        const open = event === undefined ? null : openFeedOf(event)
        for (const feed of feedsChanged(open, (feed) => positions.get(positionKey(feed, drawn.id)))) {
          positions.set(positionKey(feed, drawn.id), { position: drawn[feed], listed: open === feed })
        }
      }
      for (const kind of Object.values(unstamped)) kind.clear()
      if (worldBegins) worldFloor = first
      worldBegins = false
    })

    // ---- since a position: the records changed after it, in the order they changed (domain/SportsCatalogSync)

    /** The records of `kind` in `items` changed after `since` that `candidate` keeps, each listed or not, paged. */
    const changedSince = <A>(
      kind: RecordKind,
      items: () => Iterable<A>,
      keyOf: (item: A) => string | number,
      since: number,
      page: PageRequest,
      candidate: (item: A) => boolean,
      listed: (item: A) => boolean
    ): Effect.Effect<ChangedPage<A>> =>
      publishing.withPermit(Effect.sync(() => {
        const changed = [...items()].flatMap((record) => {
          const position = positions.get(positionKey(kind, keyOf(record)))
          return position === undefined || position.position <= since || !candidate(record)
            ? []
            : [{ record, position: position.position, listed: listed(record) }]
        }).sort((a, b) => a.position - b.position)
        const { results, total } = slicePage(page, changed)
        return { results, total }
      }))

    /** A list's records changed after `since` whose identity the query's filters keep (changedRecordsOf). */
    const listSince = <A>(
      kind: RecordKind,
      items: () => Iterable<A>,
      keyOf: (item: A) => string | number,
      keeps: (query: ListQuery) => (record: A) => boolean
    ) =>
    (query: ListQuery, since: number, page: PageRequest) =>
      changedSince(kind, items, keyOf, since, page, keeps(changedRecordsOf(query)), keeps(query))

    const sportKeeps = (query: ListQuery) => (sport: SportRecord) =>
      named(query.search, sport.name) && (query.active === null || sport.active === query.active) &&
      (query.sportIds === null || query.sportIds.includes(sport.id)) &&
      (query.countryCodes === null ||
        leaguesWhere((l) => l.sportId === sport.id && query.countryCodes!.includes(l.countryCode ?? ""))) &&
      (query.leagueId === null || leaguesWhere((l) => l.sportId === sport.id && l.id === query.leagueId))
    const countryKeeps = (query: ListQuery) => (country: CountryRecord) =>
      named(query.search, country.name) && (query.active === null || country.active === query.active) &&
      (query.countryCodes === null || query.countryCodes.includes(country.code)) &&
      (query.sportIds === null ||
        leaguesWhere((l) => l.countryCode === country.code && query.sportIds!.includes(l.sportId))) &&
      (query.leagueId === null || leaguesWhere((l) => l.countryCode === country.code && l.id === query.leagueId))
    const leagueKeeps = (query: ListQuery) => (league: NamedRecord) =>
      recordMatches(query, league) && (query.leagueId === null || league.id === query.leagueId) &&
      (query.teamId === null || teamLeagues.has(`${query.teamId}\u0000${league.id}`))
    const teamKeeps = (query: ListQuery) => (team: NamedRecord) =>
      recordMatches(query, team) && (query.teamId === null || team.id === query.teamId) &&
      (query.leagueId === null || teamLeagues.has(`${team.id}\u0000${query.leagueId}`))

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
      sports: (query, page) => list(sports.values(), sportKeeps(query), byName((s) => s.id), page),
      countries: (query, page) => list(countries.values(), countryKeeps(query), byName((c) => c.code), page),
      leagues: (query, page) => list(leagues.values(), leagueKeeps(query), byName((l) => l.id), page),
      teams: (query, page) => list(teams.values(), teamKeeps(query), byName((t) => t.id), page),
      eventsSince: (query, since, page) =>
        Effect.map(
          changedSince(
            query.source,
            () => events.values(),
            (event) => event.id,
            since,
            page,
            narrowed(changedEventsOf(query)),
            matches(query)
          ),
          (changed) => ({
            ...changed,
            results: changed.results.map((each) => ({ ...each, record: feedEvent(each.record) }))
          })
        ),
      sportsSince: listSince("sport", () => sports.values(), (sport) => sport.id, sportKeeps),
      countriesSince: listSince("country", () => countries.values(), (country) => country.code, countryKeeps),
      leaguesSince: listSince("league", () => leagues.values(), (league) => league.id, leagueKeeps),
      teamsSince: listSince("team", () => teams.values(), (team) => team.id, teamKeeps),
      syncBounds: Effect.map(changes.bounds, (bounds) => ({ ...bounds, floor: Math.max(bounds.floor, worldFloor) })),
      head: Effect.map(changes.bounds, (bounds) => bounds.head),
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
      publish: (snapshot) => publishing.withPermit(publish(snapshot)),
      onChange: (run) =>
        Effect.acquireRelease(Effect.sync(() => listeners.add(run)), () => Effect.sync(() => listeners.delete(run)))
          .pipe(Effect.asVoid)
    })
  })
)

/** In memory, nobody streaming it. */
export const layerMemory = layerMemoryNoDeps.pipe(Layer.provide(CatalogChanges.none))
