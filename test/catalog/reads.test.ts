import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { api, CatalogApp, refresh } from "../support/CatalogApp.ts"
import { type WorldEvent, worldEvents } from "../support/CatalogScripts.ts"
import { live } from "../support/live.ts"
import { givenPartner } from "../support/TestApp.ts"

const world = worldEvents()
const upcoming = world.filter((event) => event.timeStatus === 0)
const inPlay = world.filter((event) => event.timeStatus === 1)
const day = (offset: number) => new Date(Date.UTC(2026, 11, 1 + offset)).toISOString().slice(0, 10)
const onDay = (event: WorldEvent, offset: number) => new Date(event.startsAt).toISOString().slice(0, 10) === day(offset)
const ids = (events: ReadonlyArray<WorldEvent>) => events.map((event) => event.id).sort()
const resultIds = (body: any): Array<string> => body.data.results.map((entry: { event_id: string }) => entry.event_id).sort()
const names = (body: any): Array<string> => body.data.results.map((entry: { name: string }) => entry.name)

/** Every test reads the same catalog: the fixed world, refreshed once. */
const withCatalog = Effect.gen(function*() {
  const { token } = yield* givenPartner()
  const overview = yield* api(token, "/sports/catalog/overview")
  if (overview.body.data.events_total === 0) yield* refresh(token)
  return token
})

layer(CatalogApp(), live)("the sports catalog, read", (it) => {
  describe("GET /sports/feed/prematch", () => {
    it.effect("lists every upcoming event with the contract's fields, in kick-off order by default", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const response = yield* api(token, "/sports/feed/prematch?per_page=200")
        assert.strictEqual(response.status, 200)
        assert.strictEqual(response.body.data.meta.total, upcoming.length)
        const first = response.body.data.results[0]
        assert.deepStrictEqual(Object.keys(first).sort(), [
          "away_name", "country", "event_id", "has_odds", "home_name", "last_update", "league_id", "league_name",
          "sport_id", "starts_at"
        ])
        const times = response.body.data.results.map((event: { starts_at: string }) => event.starts_at)
        assert.deepStrictEqual(times, [...times].sort())
      }))

    it.effect("filters: sport (id or name), country (code or name), league, team (home or away), search, has_odds", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const check = (query: string, expected: ReadonlyArray<WorldEvent>) =>
          Effect.gen(function*() {
            const response = yield* api(token, `/sports/feed/prematch?per_page=200&${query}`)
            assert.strictEqual(response.status, 200, query)
            assert.deepStrictEqual(resultIds(response.body), ids(expected), query)
            assert.strictEqual(response.body.data.meta.total, expected.length, query)
          })
        yield* check("sport_id=1", upcoming.filter((e) => e.sportId === 1))
        yield* check("sport_id=Basketball", upcoming.filter((e) => e.sportId === 18))
        yield* check("country=gb", upcoming.filter((e) => e.league.cc === "gb"))
        yield* check("country=England", upcoming.filter((e) => e.league.cc === "gb"))
        // England is both en and gb, as the README says: either code (any case) finds the other's events.
        yield* check("country=en", upcoming.filter((e) => e.league.cc === "gb"))
        yield* check("country=GB", upcoming.filter((e) => e.league.cc === "gb"))
        yield* check("country=spain", upcoming.filter((e) => e.league.cc === "es"))
        yield* check("country=Atlantis", [])
        yield* check("league_id=902", upcoming.filter((e) => e.league.id === "902"))
        yield* check("team_id=900-0", upcoming.filter((e) => e.home.id === "900-0" || e.away.id === "900-0"))
        yield* check("search=ARSENAL", upcoming.filter((e) => e.home.name === "Arsenal" || e.away.name === "Arsenal"))
        yield* check("search=pro%20lea", upcoming.filter((e) => e.league.name === "Pro League"))
        yield* check("search=%25", [])
        yield* check("has_odds=true", upcoming.filter((e) => e.hasOdds))
        yield* check("has_odds=0", upcoming.filter((e) => !e.hasOdds))
        yield* check(
          "sport_id=1&country=es&has_odds=yes",
          upcoming.filter((e) => e.sportId === 1 && e.league.cc === "es" && e.hasOdds)
        )
      }))

    it.effect("dates are UTC days: date is one day, date_from/date_to an inclusive range, both forms accepted", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const check = (query: string, expected: ReadonlyArray<WorldEvent>) =>
          Effect.gen(function*() {
            const response = yield* api(token, `/sports/feed/prematch?per_page=200&${query}`)
            assert.deepStrictEqual(resultIds(response.body), ids(expected), query)
          })
        yield* check(`date=${day(0)}`, upcoming.filter((e) => onDay(e, 0)))
        yield* check(`date=${day(2).replaceAll("-", "")}`, upcoming.filter((e) => onDay(e, 2)))
        yield* check(`date_from=${day(1)}&date_to=${day(2)}`, upcoming.filter((e) => onDay(e, 1) || onDay(e, 2)))
        yield* check(`date_from=${day(3)}`, upcoming.filter((e) => onDay(e, 3) || onDay(e, 4)))
        yield* check(`date_to=${day(0)}`, upcoming.filter((e) => onDay(e, 0)))
        yield* check(`date=${day(1)}&date_from=${day(2)}`, [])
        yield* check(`date=${day(9)}`, [])
      }))

    it.effect("sorts by each field, both ways; an unknown sort means time ascending", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const field = (query: string, key: string) =>
          Effect.map(
            api(token, `/sports/feed/prematch?per_page=200&${query}`),
            (response) => response.body.data.results.map((event: Record<string, string>) => event[key])
          )
        // ASCII-only names, so the check does not depend on the database's collation.
        const ascending = (values: ReadonlyArray<string>) => [...values].sort()
        for (const [sortBy, key, filter] of [
          ["time", "starts_at", ""],
          ["league_name", "league_name", "&search=e"],
          ["home_name", "home_name", "&league_id=900"],
          ["away_name", "away_name", "&league_id=950"],
          ["last_update", "last_update", ""]
        ] as const) {
          const up = yield* field(`sort_by=${sortBy}&sort_direction=asc${filter}`, key)
          assert.deepStrictEqual(up, ascending(up), `${sortBy} asc`)
          const down = yield* field(`sort_by=${sortBy}&sort_direction=DESC${filter}`, key)
          assert.deepStrictEqual(down, ascending(down).reverse(), `${sortBy} desc`)
        }
        const unknown = yield* field("sort_by=popularity&sort_direction=desc", "starts_at")
        assert.deepStrictEqual(unknown, ascending(unknown))
        const badDirection = yield* field("sort_by=home_name&sort_direction=sideways&league_id=900", "home_name")
        assert.deepStrictEqual(badDirection, ascending(badDirection))
      }))

    it.effect("pages: totals, per_page capped at 200, and stable pages that cover everything once", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const pages = yield* Effect.forEach([1, 2, 3], (page) => api(token, `/sports/feed/prematch?per_page=50&page=${page}`))
        assert.deepStrictEqual(pages.map((p) => p.body.data.results.length), [50, 50, upcoming.length - 100])
        const all = pages.flatMap((p) => p.body.data.results.map((e: { event_id: string }) => e.event_id))
        assert.strictEqual(new Set(all).size, upcoming.length)
        for (const page of pages) assert.strictEqual(page.body.data.meta.total, upcoming.length)
        const capped = yield* api(token, "/sports/feed/prematch?per_page=999&page=1")
        assert.deepStrictEqual(capped.body.data.meta, { page: 1, per_page: 200, total: upcoming.length })
        const beyond = yield* api(token, "/sports/feed/prematch?page=50")
        assert.deepStrictEqual(beyond.body.data.results, [])
      }))

    it.effect("a value that cannot be read is a 422 naming the field", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const response = yield* api(token, "/sports/feed/prematch?has_odds=maybe&date=2026-13-01&date_from=yesterday")
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(Object.keys(response.body.errors).sort(), ["date", "date_from", "has_odds"])
        const numbers = yield* api(token, "/sports/feed/prematch?page=abc&per_page=1e2&sport_id=0x10")
        assert.deepStrictEqual([numbers.status, numbers.body.errors], [422, {
          page: ["The page field must be an integer."],
          per_page: ["The per page field must be an integer."],
          sport_id: ["The sport id field must be a sport id (like 1) or a sport name (like Soccer)."]
        }])
        for (const query of ["page=0", "page=-1", "per_page=0", "sport_id=0", "sport_id=1.5", "page=%201", "page=+2"]) {
          const refused = yield* api(token, `/sports/catalog/leagues?${query}`)
          assert.strictEqual(refused.status, 422, query)
          assert.deepStrictEqual(Object.keys(refused.body.errors), [query.split("=")[0]], query)
        }
        const reversed = yield* api(token, `/sports/feed/prematch?date_from=${day(3)}&date_to=${day(1)}`)
        assert.deepStrictEqual([reversed.status, reversed.body.errors], [422, {
          date_to: ["The date to field must be a day on or after date from."]
        }])
      }))
  })

  describe("GET /sports/feed/live", () => {
    it.effect("lists events in play with score and minute, and takes the same filters", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const response = yield* api(token, "/sports/feed/live?per_page=200")
        assert.deepStrictEqual(resultIds(response.body), ids(inPlay))
        for (const entry of response.body.data.results) {
          const event = inPlay.find((e) => e.id === entry.event_id)!
          assert.deepInclude(entry, { score: event.ss, minute: event.minute, home_name: event.home.name })
        }
        const filtered = yield* api(token, "/sports/feed/live?league_id=901&sort_by=time&sort_direction=desc")
        assert.deepStrictEqual(resultIds(filtered.body), ids(inPlay.filter((e) => e.league.id === "901")))
      }))
  })

  describe("GET /sports/catalog/filters", () => {
    it.effect("without filters: every option the source has, sorted", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const response = yield* api(token, "/sports/catalog/filters")
        assert.deepStrictEqual(response.body.data, {
          source: "prematch",
          sports: ["Basketball", "Soccer"],
          countries: ["England", "Spain", "USA"],
          leagues: ["Liga Primera", "Premier Division", "Pro League", "World Cup"],
          teams: [...new Set(upcoming.flatMap((e) => [e.home.name, e.away.name]))].sort(new Intl.Collator("en").compare)
        })
      }))

    it.effect("narrows every list by the other chosen filters, never by its own", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const basketball = (yield* api(token, "/sports/catalog/filters?sport_id=18")).body.data
        assert.deepStrictEqual(basketball.sports, ["Basketball", "Soccer"])
        assert.deepStrictEqual(basketball.countries, ["USA"])
        assert.deepStrictEqual(basketball.leagues, ["Pro League"])
        assert.deepStrictEqual(basketball.teams, ["Boston", "Chicago", "Denver", "Houston"])

        const worldCup = (yield* api(token, "/sports/catalog/filters?league_id=902")).body.data
        assert.deepStrictEqual(worldCup.countries, []) // the World Cup has no country
        assert.deepStrictEqual(worldCup.sports, ["Soccer"])
        assert.deepStrictEqual(worldCup.teams, ["Brazil", "Croatia", "Denmark", "England"])
        assert.lengthOf(worldCup.leagues, 4)

        const english = (yield* api(token, "/sports/catalog/filters?country=England&team_id=900-0")).body.data
        assert.deepStrictEqual(english.leagues, ["Premier Division"])
        assert.deepStrictEqual(english.countries, ["England"])
        assert.include(english.teams, "Brighton")

        const dated = (yield* api(token, `/sports/catalog/filters?date=${day(0)}&has_odds=false&search=arsenal`)).body.data
        const expected = upcoming.filter((e) =>
          onDay(e, 0) && !e.hasOdds && (e.home.name === "Arsenal" || e.away.name === "Arsenal")
        )
        assert.deepStrictEqual(dated.leagues, [...new Set(expected.map((e) => e.league.name))].sort())
      }))

    it.effect("for source=live, only what is in play; an unknown source is a 422", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const response = yield* api(token, "/sports/catalog/filters?source=live")
        assert.deepStrictEqual(response.body.data.sports, ["Soccer"])
        assert.deepStrictEqual(response.body.data.leagues, ["Liga Primera", "Premier Division"])
        assert.deepStrictEqual(response.body.data.teams, ["Almería", "Arsenal", "Betis", "Brighton"])
        const bad = yield* api(token, "/sports/catalog/filters?source=ended")
        assert.deepStrictEqual([bad.status, bad.body.errors], [422, {
          source: ["The selected source is invalid. Use prematch or live."]
        }])
      }))
  })

  describe("GET /sports/catalog/sports, /countries, /leagues, /teams", () => {
    it.effect("sports: {id, name, active}, filtered by search, sport and country", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const all = yield* api(token, "/sports/catalog/sports")
        assert.deepStrictEqual(all.body.data, {
          results: [{ id: 18, name: "Basketball", active: true }, { id: 1, name: "Soccer", active: true }],
          meta: { page: 1, per_page: 50, total: 2 }
        })
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/sports?search=SOC")).body), ["Soccer"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/sports?country=us")).body), ["Basketball"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/sports?sport_id=soccer")).body), ["Soccer"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/sports?active=false")).body), [])
      }))

    it.effect("countries: {name, code, active}, filtered by sport and search", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/countries")).body), ["England", "Spain", "USA"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/countries?sport_id=1")).body), ["England", "Spain"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/countries?search=spa")).body), ["Spain"])
        const first = (yield* api(token, "/sports/catalog/countries?per_page=1")).body.data
        assert.deepStrictEqual(first, { results: [{ name: "England", code: "gb", active: true }], meta: { page: 1, per_page: 1, total: 3 } })
      }))

    it.effect("leagues: {id, name, country}, filtered by search, sport, country, league and team", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const all = yield* api(token, "/sports/catalog/leagues")
        assert.deepStrictEqual(names(all.body), ["Liga Primera", "Premier Division", "Pro League", "World Cup"])
        assert.deepInclude(all.body.data.results[3], { id: "902", name: "World Cup", country: null })
        assert.deepInclude(all.body.data.results[0], { id: "901", country: "Spain", country_code: "es", sport_id: 1 })
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/leagues?search=league")).body), ["Pro League"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/leagues?country=Spain")).body), ["Liga Primera"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/leagues?sport_id=18")).body), ["Pro League"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/leagues?league_id=900")).body), ["Premier Division"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/leagues?team_id=902-3")).body), ["World Cup"])
      }))

    it.effect("teams: {id, name, country}, filtered by search, sport, country, league and team; paged", () =>
      Effect.gen(function*() {
        const token = yield* withCatalog
        const all = yield* api(token, "/sports/catalog/teams?per_page=200")
        assert.strictEqual(all.body.data.meta.total, 16)
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/teams?sport_id=18")).body), ["Boston", "Chicago", "Denver", "Houston"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/teams?league_id=902")).body), ["Brazil", "Croatia", "Denmark", "England"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/teams?team_id=900-1")).body), ["Brighton"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/teams?search=den")).body), ["Denmark", "Denver"])
        assert.deepStrictEqual(names((yield* api(token, "/sports/catalog/teams?country=gb")).body), ["Arsenal", "Brighton", "Chelsea", "Derby"])
        const lastPage = yield* api(token, "/sports/catalog/teams?per_page=5&page=4")
        assert.deepStrictEqual([lastPage.body.data.results.length, lastPage.body.data.meta], [1, { page: 4, per_page: 5, total: 16 }])
        const outOfRange = yield* api(token, "/sports/catalog/teams?per_page=0&page=-1")
        assert.deepStrictEqual([outOfRange.status, Object.keys(outOfRange.body.errors).sort()], [422, ["page", "per_page"]])
        const bad = yield* api(token, "/sports/catalog/teams?active=sometimes")
        assert.deepStrictEqual(Object.keys(bad.body.errors), ["active"])
      }))
  })
})
