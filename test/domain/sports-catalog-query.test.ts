/**
 * The sports catalog's rules without a database: how a query is read,
 * narrowed and paged. Queries that mean the same thing read to equal
 * values (effect's Equal and Hash), which is what lets them share a cache entry.
 */
import { assert, describe, it } from "@effect/vitest"
import { Equal, Hash, Result } from "effect"
import { pageOf, pageWindow, slicePage } from "../../src/domain/Paging.ts"
import {
  eventQueryOf,
  facetQueryOf,
  feedOrderOf,
  listQueryOf,
  refreshScopeOf,
  sortedNames,
  sportIdsOf,
  startRangeOf
} from "../../src/domain/SportsCatalogQuery.ts"

const sameKey = (a: unknown, b: unknown, label: string) => {
  assert.isTrue(Equal.equals(a, b), label)
  assert.strictEqual(Hash.hash(a), Hash.hash(b), label)
}
const eventQuery = (filters: Parameters<typeof eventQueryOf>[1], source: "prematch" | "live" = "prematch") =>
  Result.getOrThrow(eventQueryOf(source, filters))
const day = (text: string) => Date.parse(`${text}T00:00:00Z`)

describe("reading a sports catalog query", () => {
  it("a sport is an id in any number of leading zeros, or its name in any case; an unknown name is none", () => {
    assert.deepStrictEqual(sportIdsOf("1"), [1])
    assert.deepStrictEqual(sportIdsOf("001"), [1])
    assert.deepStrictEqual(sportIdsOf(" Soccer "), [1])
    assert.deepStrictEqual(sportIdsOf("BASKETBALL"), [18])
    assert.deepStrictEqual(sportIdsOf("curling"), [])
  })

  it("sport_id=1, 01, 001 and Soccer are one query; so are en, GB and England", () => {
    const [one, ...same] = ["1", "01", "001", "soccer"].map((sport) => listQueryOf({ sport }))
    for (const query of same) sameKey(query, one, "sport")
    const [england, ...alike] = ["en", "GB", "England", " england "].map((country) => eventQuery({ country }))
    assert.deepStrictEqual(england.countryCodes, ["en", "gb"])
    for (const query of alike) sameKey(query, england, "country")
    assert.isFalse(Equal.equals(listQueryOf({ sport: "1" }), listQueryOf({ sport: "18" })))
  })

  it("search is trimmed and folded to lower case; blank is no search", () => {
    sameKey(listQueryOf({ search: "  ARSENAL " }), listQueryOf({ search: "arsenal" }), "search")
    assert.strictEqual(listQueryOf({ search: "   " }).search, null)
    sameKey(listQueryOf({ search: "" }), listQueryOf({}), "blank search")
  })

  it("a filter that does not apply is not part of the query: lists ignore the event filters, feeds `active`", () => {
    sameKey(listQueryOf({ hasOdds: true, date: "20261201" }), listQueryOf({}), "list")
    sameKey(eventQuery({ active: false }), eventQuery({}), "feed")
    assert.isFalse(Equal.equals(eventQuery({}), eventQuery({}, "live")))
  })

  it("days are UTC: date one day, date_from/date_to inclusive, together their overlap", () => {
    assert.deepStrictEqual(Result.getOrThrow(startRangeOf({ date: "20261201" })), {
      startsFrom: day("2026-12-01"),
      startsBefore: day("2026-12-02")
    })
    assert.deepStrictEqual(Result.getOrThrow(startRangeOf({ dateFrom: "20261201", dateTo: "20261203" })), {
      startsFrom: day("2026-12-01"),
      startsBefore: day("2026-12-04")
    })
    assert.deepStrictEqual(Result.getOrThrow(startRangeOf({ dateTo: "20261203" })), {
      startsFrom: null,
      startsBefore: day("2026-12-04")
    })
    // A date outside the range selects nothing: an empty range, not an error.
    const apart = Result.getOrThrow(startRangeOf({ date: "20261201", dateFrom: "20261202" }))
    assert.isTrue(apart.startsFrom! >= apart.startsBefore!)
    // One day asked two ways is one query.
    sameKey(eventQuery({ date: "20261201" }), eventQuery({ dateFrom: "20261201", dateTo: "20261201" }), "one day")
  })

  it("days cut in a time zone: kick-offs of that zone's day, as UTC instants; one day asked two ways is one query", () => {
    assert.deepStrictEqual(Result.getOrThrow(startRangeOf({ date: "20261201", timeZone: "America/Sao_Paulo" })), {
      startsFrom: Date.parse("2026-12-01T03:00:00Z"),
      startsBefore: Date.parse("2026-12-02T03:00:00Z")
    })
    assert.deepStrictEqual(
      Result.getOrThrow(startRangeOf({ dateFrom: "20261201", dateTo: "20261203", timeZone: "Asia/Tokyo" })),
      { startsFrom: Date.parse("2026-11-30T15:00:00Z"), startsBefore: Date.parse("2026-12-03T15:00:00Z") }
    )
    sameKey(
      eventQuery({ date: "20261201", timeZone: "Asia/Tokyo" }),
      eventQuery({ dateFrom: "20261201", dateTo: "20261201", timeZone: "Asia/Tokyo" }),
      "one Tokyo day"
    )
    sameKey(eventQuery({ date: "20261201", timeZone: "UTC" }), eventQuery({ date: "20261201" }), "UTC is the default")
    assert.isFalse(
      Equal.equals(eventQuery({ date: "20261201", timeZone: "Asia/Tokyo" }), eventQuery({ date: "20261201" }))
    )
  })

  it("date_to before date_from cannot be answered, and says so on date_to", () => {
    const reversed = eventQueryOf("prematch", { dateFrom: "20261203", dateTo: "20261201" })
    assert.isTrue(Result.isFailure(reversed))
    if (Result.isFailure(reversed)) {
      assert.deepStrictEqual(reversed.failure.errors, {
        date_to: ["The date to field must be a day on or after date from."]
      })
    }
  })

  it("a facet is narrowed by every chosen filter except its own", () => {
    const query = eventQuery({ sport: "1", country: "es", leagueId: "7", teamId: "9", search: "x" })
    const leagues = facetQueryOf("league", query)
    assert.strictEqual(leagues.leagueId, null)
    assert.deepInclude(leagues, { teamId: "9", search: "x" })
    assert.deepStrictEqual([leagues.sportIds, leagues.countryCodes], [[1], ["es"]])
    assert.strictEqual(facetQueryOf("sport", query).sportIds, null)
    assert.strictEqual(facetQueryOf("country", query).countryCodes, null)
    assert.strictEqual(facetQueryOf("team", query).teamId, null)
    // So every league a partner clicks through shares the leagues facet of no league chosen.
    sameKey(
      facetQueryOf("league", eventQuery({ leagueId: "7" })),
      facetQueryOf("league", eventQuery({ leagueId: "8" })),
      "facet"
    )
  })

  it("the feed's order: known keys in any case, desc or asc; anything unknown is time ascending", () => {
    assert.deepStrictEqual(feedOrderOf(undefined, undefined), { by: "time", descending: false })
    assert.deepStrictEqual(feedOrderOf(" Home_Name ", "DESC"), { by: "home_name", descending: true })
    assert.deepStrictEqual(feedOrderOf("league_name", "sideways"), { by: "league_name", descending: false })
    assert.deepStrictEqual(feedOrderOf("popularity", "desc"), { by: "time", descending: false })
  })

  it("names are offered once each, in reading order", () => {
    assert.deepStrictEqual(sortedNames(["Team 10", "team 2", "Team 10", "Alpha"]), ["Alpha", "team 2", "Team 10"])
  })
})

describe("what a refresh covers", () => {
  it("every configured sport (in order, once) with leagues and events unless told otherwise", () => {
    assert.deepStrictEqual(Result.getOrThrow(refreshScopeOf(null, [18, 1, 18])), {
      sportIds: [1, 18],
      leagues: true,
      events: true,
      liveOnly: false
    })
    assert.deepStrictEqual(Result.getOrThrow(refreshScopeOf({ sport: "basketball", importEvents: false }, [1])), {
      sportIds: [18],
      leagues: true,
      events: false,
      liveOnly: false
    })
    assert.deepStrictEqual(Result.getOrThrow(refreshScopeOf({ sport: 987654 }, [1])).sportIds, [987654])
  })

  it("a name that names no sport is refused on sport_id", () => {
    const refused = refreshScopeOf({ sport: "curling" }, [1])
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) {
      assert.deepStrictEqual(refused.failure.errors, { sport_id: ["The selected sport id is invalid."] })
    }
  })
})

describe("paging", () => {
  it("a page is a window of perPage rows from (page - 1) * perPage", () => {
    assert.deepStrictEqual(pageWindow({ page: 1, perPage: 50 }), { limit: 50, offset: 0 })
    assert.deepStrictEqual(pageWindow({ page: 3, perPage: 20 }), { limit: 20, offset: 40 })
  })

  it("slices a list, totals it, and a page past the last is empty", () => {
    const items = Array.from({ length: 16 }, (_, i) => i)
    assert.deepStrictEqual(slicePage({ page: 4, perPage: 5 }, items), { results: [15], page: 4, perPage: 5, total: 16 })
    assert.deepStrictEqual(slicePage({ page: 9, perPage: 5 }, items), pageOf({ page: 9, perPage: 5 }, [], 16))
  })
})
