import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import type { SportsEvent, SportsLeague } from "../../../src/domain/Sports.ts"
import type { Snapshot } from "../../../src/domain/SportsCatalog.ts"
import type { EventQuery, FeedOrder, ListQuery } from "../../../src/domain/SportsCatalogQuery.ts"
import type { ChangedPage } from "../../../src/domain/SportsCatalogSync.ts"
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
        reason: null,
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
  /** What a since read of the repository answers: ids in position order, each listed or not. */
  const changedIds = <A>(page: ChangedPage<A>, id: (record: A) => string | number) =>
    page.results.map((change) => [String(id(change.record)), change.listed])
  const eventsSince = (query: Partial<EventQuery>, since: number, page = all) =>
    Effect.flatMap(
      Effect.service(SportsCatalogRepo),
      (repo) =>
        Effect.map(repo.eventsSince(eventQuery(query), since, page), (changed) => changedIds(changed, (e) => e.id))
    )

  it.effect("since a position: every record changed after it, in the order they changed, from 0 everything", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const head = yield* repo.head
      assert.deepStrictEqual(yield* repo.syncBounds, { head, floor: 0 })
      assert.deepStrictEqual(yield* repo.eventsSince(eventQuery(), head, all), { results: [], total: 0 })
      // From 0, the whole feed, each listed (in the order the tests above last changed them); an event of the other
      // feed never was in it, and is not said.
      assert.sameDeepMembers(yield* eventsSince({}, 0), [["9001", true], ["9002", true], ["9004", true]])
      assert.deepStrictEqual(yield* eventsSince({ source: "live" }, 0), [["9003", true]])
      const leagues = yield* repo.leaguesSince(listQuery(), 0, all)
      assert.deepStrictEqual(changedIds(leagues, (l) => l.id), [["900", true], ["910", true], ["950", true]])
      assert.deepStrictEqual(leagues.results[1].record, {
        id: "910",
        name: "Liga Norte",
        countryCode: "br",
        sportId: 1,
        active: true
      })
      assert.isTrue(leagues.results[0].position < leagues.results[1].position, "in position order")
      assert.isTrue(leagues.results[2].position <= head)
      assert.deepStrictEqual(changedIds(yield* repo.sportsSince(listQuery(), 0, all), (s) => s.id), [
        ["1", true],
        ["18", true]
      ])
      assert.deepStrictEqual(changedIds(yield* repo.countriesSince(listQuery(), 0, all), (c) => c.code), [
        ["br", true],
        ["gb", true],
        ["us", true]
      ])
      assert.strictEqual((yield* repo.teamsSince(listQuery(), 0, all)).total, overviewOfEverything.teams)
      // Paged: per_page at a time, in the same order.
      const first = yield* repo.eventsSince(eventQuery(), 0, { page: 1, perPage: 2 })
      const second = yield* repo.eventsSince(eventQuery(), 0, { page: 2, perPage: 2 })
      assert.deepStrictEqual([first.results.length, second.results.length, second.total], [2, 1, 3])
      assert.deepStrictEqual(
        [...first.results, ...second.results].map((change) => change.record.id),
        (yield* eventsSince({}, 0)).map(([id]) => id)
      )
      assert.isTrue(first.results[1].position < second.results[0].position)
    }))

  it.effect("a publish numbers what it wrote: kind by kind, ids in order, then each event one position per feed", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const head = yield* repo.head
      // Two leagues renamed: they and their events are written again (the events carry their league's name).
      const renamed = (league: SportsLeague) => ({ ...league, name: `${league.name} Renamed` })
      yield* repo.publish({ ...everything, leagues: [renamed(pro), norte, renamed(premier)] })
      const leagues = (yield* repo.leaguesSince(listQuery(), head, all)).results
      const events = (yield* repo.eventsSince(eventQuery(), head, all)).results
      assert.deepStrictEqual(leagues.map((change) => change.record.id), ["900", "950"])
      assert.deepStrictEqual(events.map((change) => change.record.id), ["9001", "9002", "9004"])
      const [p900, p950] = leagues.map((change) => change.position)
      const [p9001, p9002, p9004] = events.map((change) => change.position)
      assert.isTrue(head < p900 && p900 < p950 && p950 < p9001, `${[head, p900, p950, p9001]}`)
      // Each event takes two (its pre-match and its live one): the next event's is two further on.
      assert.deepStrictEqual([p9002 - p9001, p9004 - p9002], [2, 2])
      yield* published
    }))

  it.effect("since a position: what left a list says so; what never was in it is not said", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const before = yield* repo.head
      // 9002 is no longer listed; 9004 moves to the next day and gets odds taken away; 9003's score moves, in play.
      yield* repo.publish(snapshotOf([
        arsenalBrighton,
        { ...santosFlamengo, score: "2-0", minute: 30 },
        { ...lakersBulls, startsAt: new Date("2030-01-03T01:00:00.000Z"), hasOdds: false }
      ]))
      assert.isAbove(yield* repo.head, before)
      assert.deepStrictEqual(yield* eventsSince({}, before), [["9002", false], ["9004", true]])
      assert.deepStrictEqual(yield* eventsSince({ source: "live" }, before), [["9003", true]], "9002 never was live")
      // Filters of what a record is (league, sport, country, team) keep an event out; those of its state say removed.
      assert.deepStrictEqual(yield* eventsSince({ leagueId: "900" }, before), [["9002", false]])
      assert.deepStrictEqual(yield* eventsSince({ sportIds: [18] }, before), [["9004", true]])
      assert.deepStrictEqual(yield* eventsSince({ hasOdds: true }, before), [["9002", false], ["9004", false]])
      const day = Date.parse("2030-01-02T00:00:00.000Z")
      assert.deepStrictEqual(
        yield* eventsSince({ startsFrom: day, startsBefore: day + 86_400_000 }, before),
        [["9002", false], ["9004", false]],
        "moved out of the day"
      )
      assert.deepStrictEqual(yield* eventsSince({ search: "lakers" }, before), [["9002", false], ["9004", true]])
      // The leagues and teams that went inactive, and a list asked for active ones only says they left it.
      const teams = yield* repo.teamsSince(listQuery({ active: true }), before, all)
      assert.deepStrictEqual(changedIds(teams, (t) => t.id), [["900-Chelsea", false]])
      assert.deepStrictEqual(
        changedIds(yield* repo.teamsSince(listQuery(), before, all), (t) => t.id),
        [["900-Chelsea", true]],
        "still listed, inactive"
      )
      assert.isFalse((yield* repo.teamsSince(listQuery(), before, all)).results[0].record.active)
      assert.deepStrictEqual(yield* repo.leaguesSince(listQuery(), before, all), { results: [], total: 0 })

      // Back as it was: 9002 listed again; the prematch feed since the change hears of it, and of 9004 moving back.
      const middle = yield* repo.head
      yield* published
      assert.deepStrictEqual(yield* eventsSince({}, middle), [["9002", true], ["9004", true]])
      assert.deepStrictEqual(yield* eventsSince({}, before), [["9002", true], ["9004", true]], "each once, as it is")
      // A live event whose minute moves again: not the prematch feed's business.
      const later = yield* repo.head
      yield* repo.publish(snapshotOf([arsenalBrighton, chelseaArsenal, { ...santosFlamengo, minute: 13 }, lakersBulls]))
      assert.deepStrictEqual(yield* eventsSince({}, later), [])
      assert.deepStrictEqual(yield* eventsSince({ source: "live" }, later), [["9003", true]])
      yield* published
    }))

  it.effect("an event's status and reason as the provider said them: abandoned apart from cancelled; a new reason is a change", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      yield* published
      const before = yield* repo.head
      const abandoned = { code: "ABD", text: "Match Abandoned" }
      const postponed = { code: "PST", text: "Match Postponed" }
      const leaving = (reason: { readonly code: string; readonly text: string }) =>
        snapshotOf([
          { ...arsenalBrighton, status: "postponed", reason },
          chelseaArsenal,
          { ...santosFlamengo, status: "abandoned", reason: abandoned },
          lakersBulls
        ])
      yield* repo.publish(leaving(postponed))
      const statuses = (source: "prematch" | "live", since: number) =>
        Effect.map(
          repo.eventsSince(eventQuery({ source }), since, all),
          (page) => page.results.map(({ listed, record }) => [record.id, listed, record.status, record.reason])
        )
      assert.deepStrictEqual(yield* statuses("prematch", before), [["9001", false, "postponed", postponed]])
      assert.deepStrictEqual(yield* statuses("live", before), [["9003", false, "abandoned", abandoned]])
      const middle = yield* repo.head
      const rescheduled = { code: "PST", text: "Postponed to 2030-01-08" }
      assert.strictEqual((yield* repo.publish(leaving(rescheduled))).changed, 1, "the reason is the event's")
      assert.deepStrictEqual(yield* statuses("prematch", middle), [], "it had left: not the feed's change")
      assert.deepStrictEqual(yield* statuses("prematch", before), [["9001", false, "postponed", rescheduled]])
      yield* published
      assert.deepStrictEqual((yield* repo.feedPage(eventQuery(), byTime, all)).map((e) => [e.id, e.reason]), [
        ["9001", null],
        ["9002", null],
        ["9004", null]
      ], "back in the feed, without a reason")
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
      const before = yield* repo.head
      const report = yield* repo.publish(worldOfB())
      assert.deepInclude(report, { leagues: 1, teams: 2, events: 1 })
      // A since from A's world cannot say what left with it: the floor is where B's began.
      const bounds = yield* repo.syncBounds
      assert.isTrue(bounds.floor > before && bounds.floor <= bounds.head, JSON.stringify({ before, bounds }))
      assert.deepStrictEqual(yield* eventsSince({}, bounds.floor - 1), [["9001", true]])
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
