import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import type { SportsEvent, SportsLeague } from "../../../src/domain/Sports.ts"
import type { Snapshot } from "../../../src/domain/SportsCatalog.ts"
import type { EventQuery, FeedOrder, ListQuery } from "../../../src/domain/SportsCatalogQuery.ts"
import { SportsCatalogRepo } from "../../../src/sports/catalog/SportsCatalogRepo.ts"

/**
 * What SportsCatalogRepo promises, whichever form keeps it: run over PostgreSQL (layerSql) and over memory
 * (layerMemory) by sports-catalog-repo.test.ts, so the twin the read service's and the contract's specs stand on is
 * shown to publish and read as the SQL does. The file's tests share one catalog: each publishes the same snapshot
 * first (which changes nothing the second time), and one that publishes less puts it back.
 */
const premier: SportsLeague = { id: "900", name: "Premier Division", sportId: 1, countryCode: "gb" }
const norte: SportsLeague = { id: "910", name: "Liga Norte", sportId: 1, countryCode: "br" }
const pro: SportsLeague = { id: "950", name: "Pro League", sportId: 18, countryCode: "us" }

const event = (
  id: string,
  league: SportsLeague,
  [home, away]: readonly [string, string],
  startsAt: string,
  options: { readonly live?: boolean; readonly hasOdds?: boolean } = {}
): SportsEvent => ({
  id,
  sportId: league.sportId,
  league,
  home: { id: `${league.id}-${home}`, name: home, countryCode: null },
  away: { id: `${league.id}-${away}`, name: away, countryCode: null },
  startsAt: new Date(startsAt),
  status: options.live === true ? "live" : "scheduled",
  score: options.live === true ? "1-0" : null,
  minute: options.live === true ? 12 : null,
  hasLineup: false,
  hasOdds: options.hasOdds ?? true
})

const arsenalBrighton = event("9001", premier, ["Arsenal", "Brighton"], "2030-01-01T10:00:00.000Z")
const chelseaArsenal = event("9002", premier, ["Chelsea", "Arsenal"], "2030-01-01T12:00:00.000Z", { hasOdds: false })
const santosFlamengo = event("9003", norte, ["Santos", "Flamengo"], "2029-12-31T20:00:00.000Z", { live: true })
const lakersBulls = event("9004", pro, ["Lakers", "Bulls"], "2030-01-02T01:00:00.000Z")

/** The provider whose world the shared catalog holds, and another one, whose ids are another id space. */
export const providerA = "betsapi"
export const providerB = "api-football"

const answeredAt = (events: ReadonlyArray<SportsEvent>) =>
  new Map(events.map((each) => [each.id, Date.parse("2029-12-31T00:00:00.000Z")]))
const snapshotOf = (events: ReadonlyArray<SportsEvent>): Snapshot => ({
  provider: providerA,
  scope: { sportIds: [1, 18], leagues: true, events: true, liveOnly: false },
  leagues: [premier, norte, pro],
  events,
  answeredAt: answeredAt(events)
})
export const everything = snapshotOf([arsenalBrighton, chelseaArsenal, santosFlamengo, lakersBulls])
export const overviewOfEverything = { sports: 2, countries: 3, leagues: 3, teams: 7, events: 4 }

/** B's world: event 9001 is another match there (B's fixture 9001 is not A's event 9001), in a league of its own. */
const copa: SportsLeague = { id: "77", name: "Copa Sur", sportId: 1, countryCode: "ar" }
const bocaRiver = event("9001", copa, ["Boca", "River"], "2030-01-03T18:00:00.000Z")
export const worldOfB = (events: ReadonlyArray<SportsEvent> = [bocaRiver]): Snapshot => ({
  provider: providerB,
  scope: { sportIds: [1], leagues: true, events: true, liveOnly: false },
  leagues: [copa],
  events,
  answeredAt: answeredAt(events)
})
/** B's world with an event the catalog refuses (a status its check does not know), written after its other rows. */
export const brokenWorldOfB = worldOfB([bocaRiver, { ...bocaRiver, id: "9010", status: "exploded" as never }])

const narrowing = { sportIds: null, countryCodes: null, leagueId: null, teamId: null, search: null }
const eventQuery = (query: Partial<EventQuery> = {}): EventQuery => ({
  ...narrowing,
  source: "prematch",
  hasOdds: null,
  startsFrom: null,
  startsBefore: null,
  ...query
})
const listQuery = (query: Partial<ListQuery> = {}): ListQuery => ({ ...narrowing, active: null, ...query })
const byTime: FeedOrder = { by: "time", descending: false }
const all = { page: 1, perPage: 50 }

export const sportsCatalogRepoSpec = (it: Vitest.MethodsNonLive<SportsCatalogRepo>) => {
  const published = Effect.flatMap(Effect.service(SportsCatalogRepo), (repo) => repo.publish(everything))
  const feed = (query: Partial<EventQuery>, order = byTime, page = all) =>
    Effect.flatMap(
      Effect.service(SportsCatalogRepo),
      (repo) => Effect.map(repo.feedPage(eventQuery(query), order, page), (events) => events.map((each) => each.id))
    )

  it.effect("a publish reports what its snapshot holds; the same snapshot again changes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const again = yield* repo.publish(everything)
      assert.deepStrictEqual(again, {
        sports: 2,
        countries: 3,
        leagues: 3,
        teams: 7,
        events: 4,
        changed: 0,
        deactivated: 0
      })
      assert.isFalse(yield* repo.isEmptyFor(providerA))
      assert.deepStrictEqual(yield* repo.overview, overviewOfEverything)
    }))

  it.effect("the feed: an open event's fields, by source, in kick-off order either way, paged", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const [first] = yield* repo.feedPage(eventQuery(), byTime, { page: 1, perPage: 1 })
      assert.deepStrictEqual({ ...first, lastUpdate: null }, {
        id: "9001",
        sportId: 1,
        countryCode: "gb",
        leagueId: "900",
        leagueName: "Premier Division",
        homeName: "Arsenal",
        awayName: "Brighton",
        startsAt: new Date("2030-01-01T10:00:00.000Z"),
        status: "prematch",
        score: null,
        minute: null,
        hasOdds: true,
        lastUpdate: null
      })
      assert.deepStrictEqual(yield* feed({}), ["9001", "9002", "9004"])
      assert.deepStrictEqual(yield* feed({}, { by: "time", descending: true }), ["9004", "9002", "9001"])
      assert.deepStrictEqual(yield* feed({}, byTime, { page: 2, perPage: 2 }), ["9004"])
      assert.deepStrictEqual(yield* feed({ source: "live" }), ["9003"])
      assert.strictEqual(yield* repo.feedTotal(eventQuery()), 3)
      assert.strictEqual(yield* repo.feedTotal(eventQuery({ source: "live" })), 1)
    }))

  it.effect("a feed's total is exact whether the publish's summary covers its filters or it is counted", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const day = Date.parse("2030-01-01T00:00:00.000Z")
      const queries: ReadonlyArray<Partial<EventQuery>> = [
        {},
        { source: "live" },
        { sportIds: [1] },
        { sportIds: [1, 18] },
        { sportIds: [] },
        { countryCodes: ["gb", "us"] },
        { leagueId: "900" },
        { hasOdds: false },
        { startsFrom: day, startsBefore: day + 86_400_000 },
        { startsFrom: day + 86_400_000 },
        { sportIds: [1], countryCodes: ["gb"] },
        { sportIds: [18], hasOdds: true },
        { sportIds: [1], startsBefore: day + 86_400_000 },
        { countryCodes: ["gb"], hasOdds: true },
        { leagueId: "900", hasOdds: true },
        { hasOdds: true, startsFrom: day },
        { sportIds: [1, 18], hasOdds: true, startsFrom: day, startsBefore: day + 2 * 86_400_000 },
        // Not covered: counted.
        { teamId: "900-Arsenal" },
        { sportIds: [1], search: "arsenal" },
        { startsFrom: day + 11 * 3_600_000 },
        { countryCodes: ["gb"], leagueId: "900" }
      ]
      for (const query of queries) {
        assert.strictEqual(yield* repo.feedTotal(eventQuery(query)), (yield* feed(query)).length, JSON.stringify(query))
      }
    }))

  it.effect("the feed's filters: sport, country, league, team (home or away), search, odds, kick-off window", () =>
    Effect.gen(function*() {
      yield* published
      assert.deepStrictEqual(yield* feed({ sportIds: [18] }), ["9004"])
      assert.deepStrictEqual(yield* feed({ sportIds: [] }), [], "a sport the reference names none of")
      assert.deepStrictEqual(yield* feed({ countryCodes: ["us", "gb"] }), ["9001", "9002", "9004"])
      assert.deepStrictEqual(yield* feed({ source: "live", countryCodes: ["br"] }), ["9003"])
      assert.deepStrictEqual(yield* feed({ leagueId: "900" }), ["9001", "9002"])
      assert.deepStrictEqual(yield* feed({ teamId: "900-Arsenal" }), ["9001", "9002"])
      assert.deepStrictEqual(yield* feed({ search: "premier" }), ["9001", "9002"])
      assert.deepStrictEqual(yield* feed({ search: "ker" }), ["9004"])
      assert.deepStrictEqual(yield* feed({ search: "a%" }), [], "the user's own % is a character")
      assert.deepStrictEqual(yield* feed({ hasOdds: true }), ["9001", "9004"])
      assert.deepStrictEqual(
        yield* feed({
          startsFrom: Date.parse("2030-01-01T11:00:00.000Z"),
          startsBefore: Date.parse("2030-01-02T01:00:00.000Z")
        }),
        ["9002"]
      )
    }))

  it.effect("the feed by names, either way, ties in kick-off order", () =>
    Effect.gen(function*() {
      yield* published
      assert.deepStrictEqual(yield* feed({}, { by: "home_name", descending: false }), ["9001", "9002", "9004"])
      assert.deepStrictEqual(yield* feed({}, { by: "away_name", descending: true }), ["9004", "9001", "9002"])
      assert.deepStrictEqual(yield* feed({}, { by: "league_name", descending: false }), ["9001", "9002", "9004"])
    }))

  it.effect("the dynamic filters: the sports, countries, leagues and teams the open events still offer", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const sorted = <A>(values: ReadonlyArray<A>) => [...values].sort()
      assert.deepStrictEqual(sorted(yield* repo.eventSportIds(eventQuery())), [1, 18])
      assert.deepStrictEqual(sorted(yield* repo.eventCountryCodes(eventQuery())), ["gb", "us"])
      assert.deepStrictEqual(sorted(yield* repo.eventLeagueNames(eventQuery({ sportIds: [1] }))), ["Premier Division"])
      assert.deepStrictEqual(sorted(yield* repo.eventTeamNames(eventQuery({ leagueId: "900" }))), [
        "Arsenal",
        "Brighton",
        "Chelsea"
      ])
      assert.deepStrictEqual(sorted(yield* repo.eventTeamNames(eventQuery({ source: "live" }))), ["Flamengo", "Santos"])
    }))

  it.effect("the records: sports, countries, leagues and teams, by name, narrowed, searched and paged", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const names = <A extends { readonly name: string }>(page: { readonly results: ReadonlyArray<A> }) =>
        page.results.map((record) => record.name)
      const leagues = yield* repo.leagues(listQuery(), all)
      assert.deepStrictEqual(names(leagues), ["Liga Norte", "Premier Division", "Pro League"])
      assert.deepStrictEqual(leagues.results[1], {
        id: "900",
        name: "Premier Division",
        countryCode: "gb",
        sportId: 1,
        active: true
      })
      assert.deepStrictEqual(names(yield* repo.leagues(listQuery({ sportIds: [18] }), all)), ["Pro League"])
      assert.deepStrictEqual(names(yield* repo.leagues(listQuery({ countryCodes: ["br"] }), all)), ["Liga Norte"])
      const teams = yield* repo.teams(listQuery({ search: "a" }), { page: 2, perPage: 2 })
      // Arsenal, Chelsea, Flamengo, Lakers, Santos: the teams named with an "a", case aside.
      assert.deepStrictEqual([teams.total, teams.page, teams.perPage], [5, 2, 2])
      assert.deepStrictEqual(names(teams), ["Flamengo", "Lakers"])
      assert.deepStrictEqual(names(yield* repo.teams(listQuery({ leagueId: "950" }), all)), ["Bulls", "Lakers"])
      const sports = (yield* repo.sports(listQuery(), all)).results
      assert.deepStrictEqual(sports.map((sport) => [sport.id, sport.active]).sort(), [[1, true], [18, true]])
      assert.deepStrictEqual(names({ results: sports }), [...names({ results: sports })].sort(), "by name")
      assert.deepStrictEqual(
        (yield* repo.countries(listQuery(), all)).results.map((country) => country.code).sort(),
        ["br", "gb", "us"]
      )
    }))

  it.effect("what a publish of the scope no longer lists goes inactive, and comes back when listed again", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const less = yield* repo.publish(snapshotOf([arsenalBrighton, santosFlamengo, lakersBulls]))
      assert.isTrue(less.deactivated >= 1, JSON.stringify(less))
      assert.deepStrictEqual(yield* feed({}), ["9001", "9004"])
      assert.strictEqual(yield* repo.feedTotal(eventQuery()), 2)
      const back = yield* repo.publish(everything)
      assert.isTrue(back.changed >= 1, JSON.stringify(back))
      assert.deepStrictEqual(yield* feed({}), ["9001", "9002", "9004"])
    }))
  it.effect("empty for a provider: no event of it, whatever another provider's world holds", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      assert.isFalse(yield* repo.isEmptyFor(providerA))
      assert.isTrue(yield* repo.isEmptyFor(providerB), "the start-up fill runs at once after a switch")
      assert.isTrue(yield* repo.isEmptyFor("sandbox"))
    }))

  it.effect("a publish by another provider replaces the world whole: leagues, teams, events, memberships, totals", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const names = <A extends { readonly name: string }>(page: { readonly results: ReadonlyArray<A> }) =>
        page.results.map((record) => record.name)
      const report = yield* repo.publish(worldOfB())
      assert.deepInclude(report, { leagues: 1, teams: 2, events: 1 })
      assert.deepStrictEqual(yield* repo.overview, { sports: 1, countries: 1, leagues: 1, teams: 2, events: 1 })
      // Every record, inactive ones included: nothing of A's world is left, not even marked inactive.
      assert.deepStrictEqual(names(yield* repo.leagues(listQuery(), all)), ["Copa Sur"])
      assert.deepStrictEqual(names(yield* repo.teams(listQuery(), all)), ["Boca", "River"])
      assert.deepStrictEqual(yield* feed({}), ["9001"])
      assert.deepStrictEqual(yield* feed({ source: "live" }), [])
      const [fixture] = yield* repo.feedPage(eventQuery(), byTime, all)
      assert.deepInclude(fixture, { leagueName: "Copa Sur", homeName: "Boca", awayName: "River" }, "B's 9001")
      assert.deepStrictEqual(names(yield* repo.teams(listQuery({ leagueId: "900" }), all)), [], "A's memberships")
      assert.deepStrictEqual(names(yield* repo.leagues(listQuery({ teamId: "900-Arsenal" }), all)), [])
      assert.deepStrictEqual(names(yield* repo.leagues(listQuery({ teamId: "77-Boca" }), all)), ["Copa Sur"])
      assert.isTrue(yield* repo.isEmptyFor(providerA))
      assert.isFalse(yield* repo.isEmptyFor(providerB))

      // Switching back imports A's world again, whole, and B's leaves.
      yield* published
      assert.deepStrictEqual(yield* repo.overview, overviewOfEverything)
      assert.deepStrictEqual(names(yield* repo.leagues(listQuery(), all)), [
        "Liga Norte",
        "Premier Division",
        "Pro League"
      ])
      assert.deepStrictEqual(yield* feed({}), ["9001", "9002", "9004"])
      assert.deepStrictEqual(names(yield* repo.teams(listQuery({ leagueId: "77" }), all)), [])
      assert.isTrue(yield* repo.isEmptyFor(providerB))
    }))
}
