import { assert, describe, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { PrematchEntry } from "../../../src/api/CatalogWire.ts"
import { api, CatalogApp, refresh } from "../../support/CatalogApp.ts"
import { type ProviderEvent, providerEvents } from "../../support/CatalogScripts.ts"
import { live } from "../../support/live.ts"
import { type FeedQuery, partnerClient } from "../../support/PartnerClient.ts"
import { bodyAs, givenPartner } from "../../support/TestApp.ts"

const providerData = providerEvents()
const upcoming = providerData.filter((event) => event.timeStatus === 0)
const inPlay = providerData.filter((event) => event.timeStatus === 1)
const day = (offset: number) => new Date(Date.UTC(2026, 11, 1 + offset)).toISOString().slice(0, 10)
/** The same day as the provider writes it (YYYYMMDD), the form the typed client sends. */
const compactDay = (offset: number) => day(offset).replaceAll("-", "")
const onDay = (event: ProviderEvent, offset: number) =>
  new Date(event.startsAt).toISOString().slice(0, 10) === day(offset)
/** Whether an event kicks off on `day` (YYYY-MM-DD) on the clocks of `timeZone`, as Intl's own calendar says. */
const onDayIn = (event: ProviderEvent, day: string, timeZone: string) =>
  new Date(event.startsAt).toLocaleDateString("en-CA", { timeZone }) === day
const ids = (events: ReadonlyArray<ProviderEvent>) => events.map((event) => event.id).sort()
const resultIds = (page: { readonly data: { readonly results: ReadonlyArray<{ readonly event_id: string }> } }) =>
  page.data.results.map((entry) => entry.event_id).sort()
const names = (page: { readonly data: { readonly results: ReadonlyArray<{ readonly name: string }> } }) =>
  page.data.results.map((entry) => entry.name)

/** Raw answers read on the wire, decoded to what the assertions need. */
const FeedBody = Schema.Struct({
  data: Schema.Struct({ results: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) })
})
const FeedIds = Schema.Struct({ data: Schema.Struct({ results: Schema.Array(PrematchEntry) }) })
const FiltersBody = Schema.Struct({ data: Schema.Struct({ leagues: Schema.Array(Schema.String) }) })

/** A prematch query as the query string spells it (other spellings than the typed client sends): the events it finds. */
const wireCheck = (token: string, query: string, expected: ReadonlyArray<ProviderEvent>) =>
  Effect.gen(function*() {
    const response = yield* api(token, `/sports/feed/prematch?per_page=200&${query}`)
    assert.strictEqual(response.status, 200, query)
    assert.deepStrictEqual(resultIds(bodyAs(FeedIds)(response)), ids(expected), query)
  })

/** Every test reads the same catalog: the fixed sports data, refreshed once. Answers the partner's token and typed client. */
const withCatalog = Effect.gen(function*() {
  const { token } = yield* givenPartner()
  const client = yield* partnerClient(token)
  const overview = yield* client.catalog.overview()
  if (overview.data.events_total === 0) yield* refresh(token)
  return { token, client }
})

layer(CatalogApp(), live)("the sports catalog, read", (it) => {
  describe("GET /sports/feed/prematch", () => {
    it.effect("lists every upcoming event with the contract's fields, in kick-off order by default", () =>
      Effect.gen(function*() {
        const { client, token } = yield* withCatalog
        const response = yield* client.catalog.prematch({ query: { per_page: 200 } })
        assert.strictEqual(response.data.meta.total, upcoming.length)
        const times = response.data.results.map((event) => event.starts_at)
        assert.deepStrictEqual(times, [...times].sort())
        // The fields on the wire, not only those the client's schema keeps.
        const wire = yield* api(token, "/sports/feed/prematch?per_page=200")
        assert.strictEqual(wire.status, 200)
        assert.deepStrictEqual(Object.keys(bodyAs(FeedBody)(wire).data.results[0]).sort(), [
          "away_name",
          "country",
          "event_id",
          "has_odds",
          "home_name",
          "last_update",
          "league_id",
          "league_name",
          "reason",
          "sport_id",
          "starts_at",
          "status"
        ])
      }))

    it.effect("filters: sport (id or name), country (code or name), league, team (home or away), search, has_odds", () =>
      Effect.gen(function*() {
        const { client, token } = yield* withCatalog
        const check = (query: FeedQuery, expected: ReadonlyArray<ProviderEvent>) =>
          Effect.gen(function*() {
            const response = yield* client.catalog.prematch({ query: { per_page: 200, ...query } })
            assert.deepStrictEqual(resultIds(response), ids(expected), JSON.stringify(query))
            assert.strictEqual(response.data.meta.total, expected.length, JSON.stringify(query))
          })
        yield* check({ sport_id: "1" }, upcoming.filter((e) => e.sportId === 1))
        yield* check({ sport_id: "Basketball" }, upcoming.filter((e) => e.sportId === 18))
        yield* check({ country: "gb" }, upcoming.filter((e) => e.league.cc === "gb"))
        yield* check({ country: "England" }, upcoming.filter((e) => e.league.cc === "gb"))
        // England is both en and gb, as the partner guide says: either code (any case) finds the other's events.
        yield* check({ country: "en" }, upcoming.filter((e) => e.league.cc === "gb"))
        yield* check({ country: "GB" }, upcoming.filter((e) => e.league.cc === "gb"))
        yield* check({ country: "spain" }, upcoming.filter((e) => e.league.cc === "es"))
        yield* check({ country: "Atlantis" }, [])
        yield* check({ league_id: "902" }, upcoming.filter((e) => e.league.id === "902"))
        yield* check({ team_id: "900-0" }, upcoming.filter((e) => e.home.id === "900-0" || e.away.id === "900-0"))
        yield* check(
          { search: "ARSENAL" },
          upcoming.filter((e) => e.home.name === "Arsenal" || e.away.name === "Arsenal")
        )
        yield* check({ search: "pro lea" }, upcoming.filter((e) => e.league.name === "Pro League"))
        yield* check({ search: "%" }, [])
        yield* check({ has_odds: true }, upcoming.filter((e) => e.hasOdds))
        yield* check({ has_odds: false }, upcoming.filter((e) => !e.hasOdds))
        yield* check(
          { sport_id: "1", country: "es", has_odds: true },
          upcoming.filter((e) => e.sportId === 1 && e.league.cc === "es" && e.hasOdds)
        )
        // The other spellings of a boolean the query string accepts (the typed client sends true/false).
        yield* wireCheck(token, "has_odds=0", upcoming.filter((e) => !e.hasOdds))
        yield* wireCheck(
          token,
          "sport_id=1&country=es&has_odds=yes",
          upcoming.filter((e) => e.sportId === 1 && e.league.cc === "es" && e.hasOdds)
        )
      }))

    it.effect("dates are UTC days: date is one day, date_from/date_to an inclusive range, both forms accepted", () =>
      Effect.gen(function*() {
        const { client, token } = yield* withCatalog
        const check = (query: FeedQuery, expected: ReadonlyArray<ProviderEvent>) =>
          Effect.gen(function*() {
            const response = yield* client.catalog.prematch({ query: { per_page: 200, ...query } })
            assert.deepStrictEqual(resultIds(response), ids(expected), JSON.stringify(query))
          })
        yield* check({ date: compactDay(0) }, upcoming.filter((e) => onDay(e, 0)))
        yield* check({ date: compactDay(2) }, upcoming.filter((e) => onDay(e, 2)))
        yield* check(
          { date_from: compactDay(1), date_to: compactDay(2) },
          upcoming.filter((e) => onDay(e, 1) || onDay(e, 2))
        )
        yield* check({ date_from: compactDay(3) }, upcoming.filter((e) => onDay(e, 3) || onDay(e, 4)))
        yield* check({ date_to: compactDay(0) }, upcoming.filter((e) => onDay(e, 0)))
        yield* check({ date: compactDay(1), date_from: compactDay(2) }, [])
        yield* check({ date: compactDay(9) }, [])
        // YYYY-MM-DD, the other form a query string may carry (the typed client sends YYYYMMDD).
        yield* wireCheck(token, `date=${day(0)}`, upcoming.filter((e) => onDay(e, 0)))
        yield* wireCheck(
          token,
          `date_from=${day(1)}&date_to=${day(2)}`,
          upcoming.filter((e) => onDay(e, 1) || onDay(e, 2))
        )
        yield* wireCheck(token, `date_from=${day(3)}`, upcoming.filter((e) => onDay(e, 3) || onDay(e, 4)))
        yield* wireCheck(token, `date_to=${day(0)}`, upcoming.filter((e) => onDay(e, 0)))
        yield* wireCheck(token, `date=${day(1)}&date_from=${day(2)}`, [])
        yield* wireCheck(token, `date=${day(9)}`, [])
      }))

    it.effect("days in a time zone: cut by kick-off on its clocks (Tokyo's midnight is 15:00 UTC), times still UTC", () =>
      Effect.gen(function*() {
        const { client, token } = yield* withCatalog
        const check = (query: FeedQuery, expected: ReadonlyArray<ProviderEvent>) =>
          Effect.gen(function*() {
            const response = yield* client.catalog.prematch({ query: { per_page: 200, ...query } })
            assert.deepStrictEqual(resultIds(response), ids(expected), JSON.stringify(query))
            return response
          })
        const tokyo = (event: ProviderEvent, offset: number) => onDayIn(event, day(offset), "Asia/Tokyo")
        // Kick-offs at 15:00 and 16:00 UTC are the next day in Tokyo: the UTC day and Tokyo's are not the same events.
        const crossing = upcoming.filter((e) => onDay(e, 0) && !tokyo(e, 0))
        assert.isAbove(crossing.length, 0)
        const response = yield* check(
          { date: compactDay(0), timezone: "Asia/Tokyo" },
          upcoming.filter((e) => tokyo(e, 0))
        )
        assert.isTrue(response.data.results.every((entry) => entry.starts_at.endsWith("Z")), "times stay UTC")
        yield* check({ date: compactDay(1), timezone: "Asia/Tokyo" }, upcoming.filter((e) => tokyo(e, 1)))
        yield* check(
          { date_from: compactDay(1), date_to: compactDay(2), timezone: "Asia/Tokyo" },
          upcoming.filter((e) => tokyo(e, 1) || tokyo(e, 2))
        )
        yield* check({ date: compactDay(0), timezone: "UTC" }, upcoming.filter((e) => onDay(e, 0)))
        // Any case on the wire; the live feed and the dynamic filters cut days the same way.
        yield* wireCheck(token, `date=${day(0)}&timezone=asia/tokyo`, upcoming.filter((e) => tokyo(e, 0)))
        const saoPaulo = (event: ProviderEvent, offset: number) => onDayIn(event, day(offset), "America/Sao_Paulo")
        for (const offset of [-1, 0]) {
          const live = yield* client.catalog.live({
            query: { per_page: 200, date: compactDay(offset), timezone: "America/Sao_Paulo" }
          })
          const expected = inPlay.filter((e) => saoPaulo(e, offset))
          assert.isAbove(expected.length, 0, "in play either side of São Paulo's midnight (03:00 UTC)")
          assert.deepStrictEqual(resultIds(live), ids(expected), `live, day ${offset} in São Paulo`)
        }
        const dated = yield* client.catalog.filters({ query: { date: compactDay(0), timezone: "Asia/Tokyo" } })
        assert.deepStrictEqual(
          dated.data.leagues,
          [...new Set(upcoming.filter((e) => tokyo(e, 0)).map((e) => e.league.name))].sort()
        )
      }))

    it.effect("a time zone the service does not know, or an offset, is the contract's 422 naming timezone", () =>
      Effect.gen(function*() {
        const { token } = yield* withCatalog
        for (const path of ["/sports/feed/prematch", "/sports/feed/live", "/sports/catalog/filters"]) {
          for (const zone of ["Mars/Olympus", "%2B09:00", "Tokyo"]) {
            const refused = yield* api(token, `${path}?date=${day(0)}&timezone=${zone}`)
            assert.strictEqual(refused.status, 422, `${path} ${zone}`)
            assert.deepStrictEqual((refused.body as { errors: unknown }).errors, {
              timezone: ["The timezone field must be an IANA time zone name, like America/Sao_Paulo or Asia/Tokyo."]
            })
          }
        }
      }))

    it.effect("sorts by each field, both ways; an unknown sort means time ascending", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        type Key = "starts_at" | "league_name" | "home_name" | "away_name" | "last_update"
        const field = (query: FeedQuery, key: Key) =>
          Effect.map(
            client.catalog.prematch({ query: { per_page: 200, ...query } }),
            (response) => response.data.results.map((event) => event[key])
          )
        // ASCII-only names, so the check does not depend on the database's collation.
        const ascending = (values: ReadonlyArray<string>) => [...values].sort()
        for (
          const [sortBy, key, filter] of [
            ["time", "starts_at", {}],
            ["league_name", "league_name", { search: "e" }],
            ["home_name", "home_name", { league_id: "900" }],
            ["away_name", "away_name", { league_id: "950" }],
            ["last_update", "last_update", {}]
          ] as const
        ) {
          const up = yield* field({ sort_by: sortBy, sort_direction: "asc", ...filter }, key)
          assert.deepStrictEqual(up, ascending(up), `${sortBy} asc`)
          const down = yield* field({ sort_by: sortBy, sort_direction: "DESC", ...filter }, key)
          assert.deepStrictEqual(down, ascending(down).reverse(), `${sortBy} desc`)
        }
        const unknown = yield* field({ sort_by: "popularity", sort_direction: "desc" }, "starts_at")
        assert.deepStrictEqual(unknown, ascending(unknown))
        const badDirection = yield* field(
          { sort_by: "home_name", sort_direction: "sideways", league_id: "900" },
          "home_name"
        )
        assert.deepStrictEqual(badDirection, ascending(badDirection))
      }))

    it.effect("pages: totals, per_page capped at 200, and stable pages that cover everything once", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        const pages = yield* Effect.forEach(
          [1, 2, 3],
          (page) => client.catalog.prematch({ query: { per_page: 50, page } })
        )
        assert.deepStrictEqual(pages.map((p) => p.data.results.length), [50, 50, upcoming.length - 100])
        const all = pages.flatMap((p) => p.data.results.map((e) => e.event_id))
        assert.strictEqual(new Set(all).size, upcoming.length)
        for (const page of pages) assert.strictEqual(page.data.meta.total, upcoming.length)
        const capped = yield* client.catalog.prematch({ query: { per_page: 999, page: 1 } })
        assert.deepStrictEqual(capped.data.meta, {
          page: 1,
          per_page: 200,
          total: upcoming.length,
          next_since: capped.data.meta.next_since
        })
        assert.isAbove(capped.data.meta.next_since, 0, "the position the answer goes on from")
        const beyond = yield* client.catalog.prematch({ query: { page: 50 } })
        assert.deepStrictEqual(beyond.data.results, [])
      }))
  })

  describe("GET /sports/feed/live", () => {
    it.effect("lists events in play with score and minute, and takes the same filters", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        const response = yield* client.catalog.live({ query: { per_page: 200 } })
        assert.deepStrictEqual(resultIds(response), ids(inPlay))
        for (const entry of response.data.results) {
          const event = inPlay.find((e) => e.id === entry.event_id)!
          assert.deepInclude(entry, { score: event.ss!, minute: event.minute!, home_name: event.home.name })
        }
        const filtered = yield* client.catalog.live({
          query: { league_id: "901", sort_by: "time", sort_direction: "desc" }
        })
        assert.deepStrictEqual(resultIds(filtered), ids(inPlay.filter((e) => e.league.id === "901")))
      }))
  })

  describe("GET /sports/catalog/filters", () => {
    it.effect("without filters: every option the source has, sorted", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        const response = yield* client.catalog.filters({ query: {} })
        assert.deepStrictEqual(response.data, {
          source: "prematch",
          sports: ["Basketball", "Soccer"],
          countries: ["England", "Spain", "USA"],
          leagues: ["Liga Primera", "Premier Division", "Pro League", "World Cup"],
          teams: [...new Set(upcoming.flatMap((e) => [e.home.name, e.away.name]))].sort(new Intl.Collator("en").compare)
        })
      }))

    it.effect("narrows every list by the other chosen filters, never by its own", () =>
      Effect.gen(function*() {
        const { client, token } = yield* withCatalog
        const filters = (query: Parameters<typeof client.catalog.filters>[0]["query"]) =>
          Effect.map(client.catalog.filters({ query }), (response) => response.data)
        const basketball = yield* filters({ sport_id: "18" })
        assert.deepStrictEqual(basketball.sports, ["Basketball", "Soccer"])
        assert.deepStrictEqual(basketball.countries, ["USA"])
        assert.deepStrictEqual(basketball.leagues, ["Pro League"])
        assert.deepStrictEqual(basketball.teams, ["Boston", "Chicago", "Denver", "Houston"])

        const worldCup = yield* filters({ league_id: "902" })
        assert.deepStrictEqual(worldCup.countries, []) // the World Cup has no country
        assert.deepStrictEqual(worldCup.sports, ["Soccer"])
        assert.deepStrictEqual(worldCup.teams, ["Brazil", "Croatia", "Denmark", "England"])
        assert.lengthOf(worldCup.leagues, 4)

        const english = yield* filters({ country: "England", team_id: "900-0" })
        assert.deepStrictEqual(english.leagues, ["Premier Division"])
        assert.deepStrictEqual(english.countries, ["England"])
        assert.include(english.teams, "Brighton")

        const dated = yield* filters({ date: compactDay(0), has_odds: false, search: "arsenal" })
        const expected = upcoming.filter((e) =>
          onDay(e, 0) && !e.hasOdds && (e.home.name === "Arsenal" || e.away.name === "Arsenal")
        )
        assert.deepStrictEqual(dated.leagues, [...new Set(expected.map((e) => e.league.name))].sort())
        // The same question with the day as YYYY-MM-DD, which the typed client does not send.
        assert.deepStrictEqual(
          bodyAs(FiltersBody)(yield* api(token, `/sports/catalog/filters?date=${day(0)}&has_odds=false&search=arsenal`))
            .data.leagues,
          dated.leagues
        )
      }))

    it.effect("for source=live, only what is in play", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        const response = yield* client.catalog.filters({ query: { source: "live" } })
        assert.deepStrictEqual(response.data.sports, ["Soccer"])
        assert.deepStrictEqual(response.data.leagues, ["Liga Primera", "Premier Division"])
        assert.deepStrictEqual(response.data.teams, ["Almería", "Arsenal", "Betis", "Brighton"])
      }))
  })

  describe("GET /sports/catalog/sports, /countries, /leagues, /teams", () => {
    it.effect("sports: {id, name, active}, filtered by search, sport and country", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        const sports = (query: Parameters<typeof client.catalog.sports>[0]["query"]) => client.catalog.sports({ query })
        const all = yield* sports({})
        assert.deepStrictEqual(all.data, {
          results: [{ id: 18, name: "Basketball", active: true }, { id: 1, name: "Soccer", active: true }],
          meta: { page: 1, per_page: 50, total: 2, next_since: all.data.meta.next_since }
        })
        assert.deepStrictEqual(names(yield* sports({ search: "SOC" })), ["Soccer"])
        assert.deepStrictEqual(names(yield* sports({ country: "us" })), ["Basketball"])
        assert.deepStrictEqual(names(yield* sports({ sport_id: "soccer" })), ["Soccer"])
        assert.deepStrictEqual(names(yield* sports({ active: false })), [])
      }))

    it.effect("countries: {name, code, active}, filtered by sport and search", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        const countries = (query: Parameters<typeof client.catalog.countries>[0]["query"]) =>
          client.catalog.countries({ query })
        assert.deepStrictEqual(names(yield* countries({})), ["England", "Spain", "USA"])
        assert.deepStrictEqual(names(yield* countries({ sport_id: "1" })), ["England", "Spain"])
        assert.deepStrictEqual(names(yield* countries({ search: "spa" })), ["Spain"])
        const first = (yield* countries({ per_page: 1 })).data
        assert.deepStrictEqual(first, {
          results: [{ name: "England", code: "gb", active: true }],
          meta: { page: 1, per_page: 1, total: 3, next_since: first.meta.next_since }
        })
      }))

    it.effect("leagues: {id, name, country}, filtered by search, sport, country, league and team", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        const leagues = (query: Parameters<typeof client.catalog.leagues>[0]["query"]) =>
          client.catalog.leagues({ query })
        const all = yield* leagues({})
        assert.deepStrictEqual(names(all), ["Liga Primera", "Premier Division", "Pro League", "World Cup"])
        assert.deepInclude(all.data.results[3], { id: "902", name: "World Cup", country: null })
        assert.deepInclude(all.data.results[0], { id: "901", country: "Spain", country_code: "es", sport_id: 1 })
        assert.deepStrictEqual(names(yield* leagues({ search: "league" })), ["Pro League"])
        assert.deepStrictEqual(names(yield* leagues({ country: "Spain" })), ["Liga Primera"])
        assert.deepStrictEqual(names(yield* leagues({ sport_id: "18" })), ["Pro League"])
        assert.deepStrictEqual(names(yield* leagues({ league_id: "900" })), ["Premier Division"])
        assert.deepStrictEqual(names(yield* leagues({ team_id: "902-3" })), ["World Cup"])
      }))

    it.effect("teams: {id, name, country}, filtered by search, sport, country, league and team; paged", () =>
      Effect.gen(function*() {
        const { client } = yield* withCatalog
        const teams = (query: Parameters<typeof client.catalog.teams>[0]["query"]) => client.catalog.teams({ query })
        const all = yield* teams({ per_page: 200 })
        assert.strictEqual(all.data.meta.total, 16)
        assert.deepStrictEqual(names(yield* teams({ sport_id: "18" })), ["Boston", "Chicago", "Denver", "Houston"])
        assert.deepStrictEqual(names(yield* teams({ league_id: "902" })), ["Brazil", "Croatia", "Denmark", "England"])
        assert.deepStrictEqual(names(yield* teams({ team_id: "900-1" })), ["Brighton"])
        assert.deepStrictEqual(names(yield* teams({ search: "den" })), ["Denmark", "Denver"])
        assert.deepStrictEqual(names(yield* teams({ country: "gb" })), ["Arsenal", "Brighton", "Chelsea", "Derby"])
        const lastPage = yield* teams({ per_page: 5, page: 4 })
        assert.deepStrictEqual([lastPage.data.results.length, lastPage.data.meta], [1, {
          page: 4,
          per_page: 5,
          total: 16,
          next_since: lastPage.data.meta.next_since
        }])
      }))
  })
})
