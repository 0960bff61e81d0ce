/** What a refresh's snapshot publishes, record by record, without a database. */
import { assert, describe, it } from "@effect/vitest"
import { eventStatuses, type SportsEvent, type SportsLeague } from "../../src/domain/Sports.ts"
import { catalogStatuses, lifeCycleStatusOf } from "../../src/domain/SportsCatalog.ts"
import { catalogStatus, snapshotRecords } from "../../src/domain/SportsCatalogPublish.ts"

const listed: SportsLeague = { id: "900", name: "Premier Division", sportId: 1, countryCode: "GB" }
const unlisted: SportsLeague = { id: "902", name: "World Cup", sportId: 1, countryCode: null }
const event = (
  id: string,
  league: SportsLeague,
  home: { id: string; name: string; countryCode: string | null }
): SportsEvent => ({
  id,
  sportId: league.sportId,
  league,
  home,
  away: { id: "away", name: "Away", countryCode: null },
  startsAt: new Date(Date.UTC(2026, 11, 1)),
  status: "scheduled",
  score: null,
  minute: null,
  hasLineup: false,
  hasOdds: false
})
const scope = { sportIds: [1, 987654], leagues: true, events: true, liveOnly: false }

describe("a snapshot's records", () => {
  it("leagues listed and those only events mention; countries in lower case; sports only when something of them is listed", () => {
    const records = snapshotRecords({
      provider: "betsapi",
      scope,
      leagues: [listed],
      events: [event("1", unlisted, { id: "br", name: "Brazil", countryCode: "BR" })]
    })
    assert.deepStrictEqual(records.leagues.map((l) => [l.id, l.countryCode]), [["900", "gb"], ["902", null]])
    assert.deepStrictEqual(records.sports, [{ id: 1, name: "Soccer" }])
    assert.sameDeepMembers([...records.countries], [{ code: "gb", name: "England" }, { code: "br", name: "Brazil" }])
  })

  it("a team takes its own country, else its league's; plays in every league it is seen in, once", () => {
    const home = { id: "h", name: "Home", countryCode: null }
    const records = snapshotRecords({
      provider: "betsapi",
      scope,
      leagues: [],
      events: [event("1", listed, home), event("2", listed, home), event("3", unlisted, { ...home, countryCode: "ES" })]
    })
    assert.deepInclude(records.teams.find((team) => team.id === "h"), { countryCode: "es" })
    assert.deepInclude(records.teams.find((team) => team.id === "away"), { countryCode: null })
    assert.sameDeepMembers([...records.memberships], [
      { teamId: "h", leagueId: "900" },
      { teamId: "away", leagueId: "900" },
      { teamId: "h", leagueId: "902" },
      { teamId: "away", leagueId: "902" }
    ])
  })

  it("an event carries the names its league and team records carry", () => {
    const renamed = { ...listed, name: "Premier Division (new)" }
    const records = snapshotRecords({
      provider: "betsapi",
      scope,
      leagues: [renamed],
      events: [
        event("1", listed, { id: "h", name: "Old name", countryCode: null }),
        event("2", listed, { id: "h", name: "New name", countryCode: null })
      ]
    })
    assert.deepStrictEqual(records.events.map((e) => [e.leagueName, e.homeName, e.countryCode]), [
      ["Premier Division (new)", "New name", "gb"],
      ["Premier Division (new)", "New name", "gb"]
    ])
  })

  it("an event's status in the catalog's words, one for each of the life cycle's, and its reason; the feeds answer the life cycle's", () => {
    const postponed = { code: "PST", text: "Match Postponed" }
    const records = snapshotRecords({
      provider: "apifootball",
      scope,
      leagues: [],
      events: eventStatuses.map((status, i) => ({
        ...event(String(i), listed, { id: "home", name: "Home", countryCode: null }),
        status,
        ...(status === "postponed" ? { reason: postponed } : {})
      }))
    })
    assert.deepStrictEqual(records.events.map((row) => [row.status, row.reason]), [
      ["prematch", null],
      ["live", null],
      ["ended", null],
      ["postponed", postponed],
      ["cancelled", null],
      ["abandoned", null],
      ["interrupted", null]
    ])
    assert.deepStrictEqual(eventStatuses.map((status) => lifeCycleStatusOf(catalogStatus[status])), [...eventStatuses])
    assert.sameMembers(
      Object.values(catalogStatus),
      [...catalogStatuses],
      "every catalog word is one of the life cycle's"
    )
  })
})
