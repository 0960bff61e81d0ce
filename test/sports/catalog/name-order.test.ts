import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { compareNames } from "../../../src/domain/Text.ts"
import { CatalogApp, refresh } from "../../support/CatalogApp.ts"
import { day0, type ProviderEvent } from "../../support/CatalogScripts.ts"
import { live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { givenPartner } from "../../support/TestApp.ts"

/** In the order people read them: case aside, numbers by value. */
const inReadingOrder = ["A. de Minaur", "A. Sabalenka", "a. Zverev", "b. Tsitsipas", "Player 2", "Player 10"]

const league = { id: "990", name: "ATP Finals", cc: null }
const providerData = {
  events: [...inReadingOrder].reverse().map((name, i): ProviderEvent => ({
    id: String(99_000 + i),
    sportId: 13,
    league,
    home: { id: `h${i}`, name },
    away: { id: `a${i}`, name: `Opponent ${i}` },
    startsAt: day0 + i * 3_600_000,
    timeStatus: 0,
    ss: null,
    minute: null,
    hasOdds: true
  }))
}

/** The plan of `query`, as JSON, with sorts and sequential scans priced out: a Sort node left means no index gives the order. */
const planOf = (query: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SET LOCAL enable_sort = off`
      yield* sql`SET LOCAL enable_seqscan = off`
      const rows = yield* sql.unsafe<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${query}`)
      return JSON.stringify(rows[0]["QUERY PLAN"])
    }))
  }).pipe(Effect.orDie)

layer(CatalogApp(providerData, { catalog: { sportIds: [13] } }), live)(
  "names in natural, case-insensitive order",
  (it) => {
    it.effect("the prematch feed sorted by home_name, both ways", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        yield* refresh(token)
        const client = yield* partnerClient(token)
        const up = yield* client.catalog.prematch({ query: { sort_by: "home_name", sort_direction: "asc" } })
        assert.deepStrictEqual(up.data.results.map((event) => event.home_name), inReadingOrder)
        const down = yield* client.catalog.prematch({ query: { sort_by: "home_name", sort_direction: "desc" } })
        assert.deepStrictEqual(down.data.results.map((event) => event.home_name), [...inReadingOrder].reverse())
      }))

    it.effect("the catalog's team list and the filter options", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        yield* refresh(token)
        const expected = [...inReadingOrder, ...inReadingOrder.map((_, i) => `Opponent ${i}`)].sort(compareNames)
        const client = yield* partnerClient(token)
        const teams = yield* client.catalog.teams({ query: { per_page: 200 } })
        assert.deepStrictEqual(teams.data.results.map((team) => team.name), expected)
        const filters = yield* client.catalog.filters({ query: {} })
        assert.deepStrictEqual(filters.data.teams, expected)
      }))

    it("sorts in memory the way the database does", () => {
      assert.deepStrictEqual([...inReadingOrder].reverse().sort(compareNames), inReadingOrder)
      assert.isBelow(compareNames("Chelsea", "chelsea"), 0) // equal but for case: one fixed order
    })

    it.effect("sorts by name are walked on an index, with no sort step", () =>
      Effect.gen(function*() {
        const open = "FROM sports_events WHERE active AND status = 'prematch'"
        for (
          const [column, index] of [
            ["home_name", "sports_events_open_by_home_name"],
            ["away_name", "sports_events_open_by_away_name"],
            ["league_name", "sports_events_open_by_league_name"]
          ]
        ) {
          const plan = yield* planOf(`SELECT id ${open} ORDER BY ${column} COLLATE natural_ci, starts_at, id LIMIT 50`)
          assert.include(plan, index, column)
          assert.notInclude(plan, "\"Node Type\":\"Sort\"", column)
        }
        const teams = yield* planOf("SELECT id, name FROM sports_teams ORDER BY name COLLATE natural_ci, id LIMIT 50")
        assert.include(teams, "sports_teams_name")
        assert.notInclude(teams, "\"Node Type\":\"Sort\"")
        const leagues = yield* planOf(
          "SELECT id, name FROM sports_leagues ORDER BY name COLLATE natural_ci, id LIMIT 50"
        )
        assert.include(leagues, "sports_leagues_name")
        const games = yield* planOf(
          "SELECT id FROM casino_games ORDER BY provider_id, name COLLATE natural_ci, game_code LIMIT 50"
        )
        assert.include(games, "casino_games_listing")
        assert.notInclude(games, "\"Node Type\":\"Sort\"")
      }))
  }
)
