/**
 * The SportsCatalog read service over the in-memory repository, without a
 * database: what reaches the repository (equal queries share one read,
 * facets are shared), what a refresh forgets, and one refresh for many
 * callers. The SQL side is read.test.ts and refresh.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { SportsCatalog } from "../../../src/sports/catalog/SportsCatalog.ts"
import { SportsCatalogConfig } from "../../../src/sports/catalog/SportsCatalogConfig.ts"
import { SportsCatalogRepo } from "../../../src/sports/catalog/SportsCatalogRepo.ts"
import * as SportsCatalogRepoMemory from "../../../src/sports/catalog/SportsCatalogRepoMemory.ts"
import type { Page } from "../../../src/domain/Paging.ts"
import type { SportsEvent, SportsLeague } from "../../../src/domain/Sports.ts"
import { InvalidSportsCatalogQuery } from "../../../src/domain/SportsCatalog.ts"
import { type ListQuery, SportsProvider } from "../../../src/sports/SportsProvider.ts"
import { testCatalogConfig } from "../../support/TestApp.ts"

const premier: SportsLeague = { id: "900", name: "Premier Division", sportId: 1, countryCode: "gb" }
const pro: SportsLeague = { id: "950", name: "Pro League", sportId: 18, countryCode: "us" }
const event = (
  id: string,
  league: SportsLeague,
  home: string,
  away: string,
  status: "scheduled" | "live"
): SportsEvent => ({
  id,
  sportId: league.sportId,
  league,
  home: { id: `${league.id}-${home}`, name: home, countryCode: null },
  away: { id: `${league.id}-${away}`, name: away, countryCode: null },
  startsAt: new Date(Date.UTC(2026, 11, 1, Number(id) % 24)),
  status,
  score: status === "live" ? "1-0" : null,
  minute: status === "live" ? 12 : null,
  hasLineup: false,
  hasOdds: true
})

/** A provider over `providerData`, counting league pages, and waiting for `gate` before answering any. */
const dataProvider = (providerData: { events: ReadonlyArray<SportsEvent> }, gate?: Deferred.Deferred<void>) => {
  const calls = { leagues: 0 }
  const page = <A>(results: ReadonlyArray<A>) => ({
    value: { results, page: 1, perPage: 50, total: results.length } satisfies Page<A>,
    raw: null,
    storedAt: 0,
    origin: "upstream" as const
  })
  const events = (status: string) => (query: ListQuery) =>
    Effect.succeed(page(providerData.events.filter((e) => e.status === status && e.sportId === query.sportId)))
  const unused = () => Effect.die("not used by the catalog")
  return {
    calls,
    layer: Layer.succeed(
      SportsProvider,
      SportsProvider.of({
        name: "memory",
        configured: true,
        capabilities: [],
        sportIds: undefined,
        upcomingByDay: false,
        leagues: (query) =>
          Effect.andThen(gate ? Deferred.await(gate) : Effect.void, () => {
            calls.leagues++
            return Effect.succeed(page([premier, pro].filter((league) => league.sportId === query.sportId)))
          }),
        upcoming: events("scheduled"),
        live: events("live"),
        ended: events("final"),
        event: unused,
        odds: unused,
        liveOdds: unused,
        lineup: unused,
        statsTrend: unused,
        result: unused
      })
    )
  }
}

/** The memory repository, counting its reads by name. */
const countingRepo = () => {
  const reads = new Map<string, number>()
  const layer = Layer.effect(
    SportsCatalogRepo,
    Effect.map(Effect.service(SportsCatalogRepo), (repo) => {
      const counted =
        <Args extends ReadonlyArray<unknown>, A>(name: string, read: (...args: Args) => Effect.Effect<A>) =>
        (...args: Args) =>
          Effect.suspend(() => {
            reads.set(name, (reads.get(name) ?? 0) + 1)
            return read(...args)
          })
      return SportsCatalogRepo.of({
        ...repo,
        feedPage: counted("feedPage", repo.feedPage),
        feedTotal: counted("feedTotal", repo.feedTotal),
        eventLeagueNames: counted("eventLeagueNames", repo.eventLeagueNames),
        leagues: counted("leagues", repo.leagues)
      })
    })
  ).pipe(Layer.provide(SportsCatalogRepoMemory.layerMemory))
  return { reads, layer }
}

const catalogOver = (
  options: { readonly providerData: { events: ReadonlyArray<SportsEvent> }; readonly gate?: Deferred.Deferred<void> }
) => {
  const provider = dataProvider(options.providerData, options.gate)
  const repo = countingRepo()
  const layer = SportsCatalog.layerNoDeps.pipe(
    Layer.provide(Layer.mergeAll(
      repo.layer,
      provider.layer,
      Layer.succeed(SportsCatalogConfig, testCatalogConfig({ sportIds: [1, 18], cacheTtl: Duration.hours(1) }))
    ))
  )
  return { layer, reads: repo.reads, calls: provider.calls }
}

const firstPage = { page: 1, perPage: 50 }

describe("the sports catalog over its in-memory repository", () => {
  it.effect("sport_id 1, 01, 001 and Soccer are one read of the repository, answered alike", () => {
    const providerData = {
      events: [event("1", premier, "Arsenal", "Chelsea", "scheduled"), event("2", pro, "Boston", "Denver", "scheduled")]
    }
    const { layer, reads } = catalogOver({ providerData })
    return Effect.gen(function*() {
      const catalog = yield* SportsCatalog
      yield* catalog.refresh(null)
      const answers = yield* Effect.forEach(
        ["1", "01", "001", "Soccer"],
        (sport) => catalog.prematch({ sport }, {}, firstPage)
      )
      for (const answer of answers) assert.deepStrictEqual(answer, answers[0])
      assert.deepStrictEqual(answers[0].results.map((e) => e.id), ["1"])
      assert.deepStrictEqual([reads.get("feedPage"), reads.get("feedTotal")], [1, 1])
      // Another page or sort of the same filters reads its rows, but not its total again.
      yield* catalog.prematch({ sport: "1" }, { sortBy: "home_name" }, firstPage)
      assert.deepStrictEqual([reads.get("feedPage"), reads.get("feedTotal")], [2, 1])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a live answer is one value while its minutes stand, and a new one when a minute moves", () => {
    // No match clock from the provider: the minute is counted from the kick-off, as of now.
    const clockless = { ...event("3", premier, "Everton", "Fulham", "live"), minute: null }
    const { layer } = catalogOver({ providerData: { events: [clockless] } })
    return Effect.gen(function*() {
      yield* TestClock.setTime(clockless.startsAt.getTime() + 5 * 60_000 + 10_000)
      const catalog = yield* SportsCatalog
      yield* catalog.refresh(null)
      const first = yield* catalog.live({}, {}, firstPage)
      assert.deepStrictEqual(first.results.map((e) => e.minute), [5])
      assert.strictEqual(yield* catalog.live({}, {}, firstPage), first, "the same value: its JSON is written once")
      yield* TestClock.adjust("1 minute")
      const later = yield* catalog.live({}, {}, firstPage)
      assert.deepStrictEqual(later.results.map((e) => e.minute), [6])
    }).pipe(Effect.provide(layer))
  })

  it.effect("the leagues facet is one read for every league chosen; lists ignore the feed-only filters", () => {
    const providerData = {
      events: [event("1", premier, "Arsenal", "Chelsea", "scheduled"), event("2", pro, "Boston", "Denver", "scheduled")]
    }
    const { layer, reads } = catalogOver({ providerData })
    return Effect.gen(function*() {
      const catalog = yield* SportsCatalog
      yield* catalog.refresh(null)
      const facets = yield* catalog.filters("prematch", { leagueId: "900" })
      assert.deepStrictEqual(facets, {
        sports: ["Soccer"],
        countries: ["England"],
        leagues: ["Premier Division", "Pro League"],
        teams: ["Arsenal", "Chelsea"]
      })
      yield* catalog.filters("prematch", { leagueId: "950" })
      assert.strictEqual(reads.get("eventLeagueNames"), 1)
      const leagues = yield* catalog.leagues({ search: "PRO" }, firstPage)
      yield* catalog.leagues({ search: " pro ", hasOdds: false, date: "20261201" }, firstPage)
      assert.deepStrictEqual(leagues.results.map((l) => l.name), ["Pro League"])
      assert.strictEqual(reads.get("leagues"), 1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a query that cannot be answered fails before any read", () => {
    const { layer, reads } = catalogOver({ providerData: { events: [] } })
    return Effect.gen(function*() {
      const catalog = yield* SportsCatalog
      const error = yield* Effect.flip(catalog.live({ dateFrom: "20261203", dateTo: "20261201" }, {}, firstPage))
      assert.instanceOf(error, InvalidSportsCatalogQuery)
      assert.deepStrictEqual(error.errors, { date_to: ["The date to field must be a day on or after date from."] })
      assert.strictEqual(reads.size, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a refresh that changes the catalog is seen at once, cache or not", () => {
    const providerData = { events: [event("1", premier, "Arsenal", "Chelsea", "live")] }
    const { layer } = catalogOver({ providerData })
    return Effect.gen(function*() {
      const catalog = yield* SportsCatalog
      yield* catalog.refresh(null)
      assert.strictEqual((yield* catalog.live({}, {}, firstPage)).total, 1)
      providerData.events = [...providerData.events, event("2", premier, "Derby", "Brighton", "live")]
      const { report } = yield* catalog.refreshLive
      assert.strictEqual(report.changed, 1 + 2) // the event and its two teams
      const after = yield* catalog.live({}, { sortBy: "home_name" }, firstPage)
      assert.deepStrictEqual(after.results.map((e) => e.homeName), ["Arsenal", "Derby"])
      assert.strictEqual((yield* catalog.overview).events, 2)
    }).pipe(Effect.provide(layer))
  })

  it.effect("the same refresh asked for twice at once runs once, and both callers get its outcome", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { calls, layer } = catalogOver({
        providerData: { events: [event("1", premier, "Arsenal", "Chelsea", "scheduled")] },
        gate
      })
      yield* Effect.gen(function*() {
        const catalog = yield* SportsCatalog
        const both = yield* Effect.forkChild(
          Effect.all([catalog.refresh(null), catalog.refresh({})], { concurrency: "unbounded" })
        )
        yield* Effect.yieldNow
        yield* Deferred.succeed(gate, undefined)
        const [first, second] = yield* Fiber.join(both)
        assert.deepStrictEqual(first, second)
        assert.strictEqual(calls.leagues, 2, "one page of leagues per sport, once")
        // A different scope is another refresh.
        yield* catalog.refresh({ sport: "soccer" })
        assert.strictEqual(calls.leagues, 3)
      }).pipe(Effect.provide(layer))
    }))
})
