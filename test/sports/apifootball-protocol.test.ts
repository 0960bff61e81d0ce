/** API-Football's payloads read into the domain: leagues, fixtures and their statuses, results, both odds shapes. */
import { assert, describe, it } from "@effect/vitest"
import { Option, Schema } from "effect"
import * as ApiFootball from "../../src/integrations/apifootball/ApiFootball.ts"

const decode = <A>(schema: Schema.Codec<A, unknown>, value: unknown) => Schema.decodeUnknownSync(schema)(value)
const decodes = <A>(schema: Schema.Codec<A, unknown>, value: unknown) =>
  Option.isSome(Schema.decodeUnknownOption(schema)(value))

const fixture = (overrides: Record<string, unknown> = {}) => ({
  fixture: {
    id: 1035037,
    referee: null,
    timezone: "UTC",
    date: "2024-02-06T14:00:00+00:00",
    timestamp: 1707228000,
    periods: { first: 1707228000, second: null },
    venue: { id: 556, name: "Old Trafford", city: "Manchester" },
    status: { long: "First Half", short: "1H", elapsed: 23, extra: null }
  },
  league: {
    id: 39,
    name: "Premier League",
    country: "England",
    logo: "https://media.api-sports.io/football/leagues/39.png",
    flag: "https://media.api-sports.io/flags/gb.svg",
    season: 2023,
    round: "Regular Season - 24"
  },
  teams: {
    home: { id: 33, name: "Manchester United", logo: "x", winner: null },
    away: { id: "40", name: "Liverpool", logo: "y", winner: null }
  },
  goals: { home: 1, away: "0" },
  score: { halftime: { home: null, away: null }, fulltime: { home: null, away: null } },
  ...overrides
})

const fixtureOf = (overrides: Record<string, unknown> = {}) => decode(ApiFootball.Fixture, fixture(overrides))

const withStatus = (short: string, goals: { home: unknown; away: unknown }, teams?: unknown) =>
  fixtureOf({
    fixture: { ...fixture().fixture, status: { long: "x", short, elapsed: 90, extra: null } },
    goals,
    ...(teams === undefined ? {} : { teams })
  })

describe("API-Football leagues and fixtures", () => {
  it("leagues: sport 1, the country's code lowercased, none for the world", () => {
    const response = decode(ApiFootball.LeaguesResponse, [
      {
        league: { id: 39, name: "Premier League", type: "League", logo: "l" },
        country: { name: "England", code: "GB-ENG", flag: "https://media.api-sports.io/flags/gb-eng.svg" },
        seasons: [{
          year: 2024,
          start: "2024-08-16",
          end: "2025-05-25",
          current: true,
          coverage: { fixtures: { events: true, lineups: true }, odds: false }
        }]
      },
      { league: { id: "1", name: "World Cup", type: "Cup" }, country: { name: "World", code: null, flag: null } }
    ])
    assert.deepStrictEqual(ApiFootball.toLeagues(response), [
      { id: "39", name: "Premier League", sportId: 1, countryCode: "gb-eng" },
      { id: "1", name: "World Cup", sportId: 1, countryCode: null }
    ])
  })

  it("a fixture as an event: the flag's country, the time, the score, the minute", () => {
    assert.deepStrictEqual(ApiFootball.toEvent(fixtureOf()), {
      id: "1035037",
      sportId: 1,
      league: { id: "39", name: "Premier League", sportId: 1, countryCode: "gb" },
      home: { id: "33", name: "Manchester United", countryCode: "gb" },
      away: { id: "40", name: "Liverpool", countryCode: "gb" },
      startsAt: new Date(1707228000 * 1000),
      status: "live",
      score: "1-0",
      minute: 23,
      hasLineup: false,
      hasOdds: false
    })
  })

  it("before kick-off: no score, no minute, the date when there is no timestamp, no flag no country", () => {
    const event = ApiFootball.toEvent(fixtureOf({
      fixture: {
        id: "7",
        date: "2024-02-06T14:00:00+00:00",
        status: { long: "Not Started", short: "NS", elapsed: null, extra: null }
      },
      league: { id: 1, name: "World Cup", flag: null },
      goals: { home: null, away: null }
    }))
    assert.deepStrictEqual(
      [event.startsAt.toISOString(), event.status, event.score, event.minute, event.league.countryCode],
      ["2024-02-06T14:00:00.000Z", "scheduled", null, null, null]
    )
  })

  it("a fixture with no time at all, or an id of neither kind, is refused", () => {
    assert.isFalse(decodes(ApiFootball.Fixture, fixture({ fixture: { id: 1, status: { short: "NS" } } })))
    assert.isFalse(
      decodes(ApiFootball.Fixture, fixture({ fixture: { ...fixture().fixture, date: "soon", timestamp: null } }))
    )
    assert.isFalse(decodes(ApiFootball.Fixture, fixture({ fixture: { ...fixture().fixture, id: null } })))
    assert.isTrue(decodes(ApiFootball.FixturesResponse, [fixture(), fixture()]))
  })

  it("every status code of the notes in the life cycle, with its words as the reason where it tells one", () => {
    const codes = {
      TBD: ["scheduled", "Time To Be Defined"],
      NS: ["scheduled", null],
      "1H": ["live", null],
      HT: ["live", null],
      "2H": ["live", null],
      ET: ["live", null],
      BT: ["live", null],
      P: ["live", null],
      LIVE: ["live", null],
      SUSP: ["suspended", "Match Suspended"],
      INT: ["suspended", "Match Interrupted"],
      FT: ["final", null],
      AET: ["final", null],
      PEN: ["final", null],
      AWD: ["final", "Technical Loss"],
      WO: ["final", "WalkOver"],
      PST: ["postponed", "Match Postponed"],
      CANC: ["cancelled", "Match Cancelled"],
      ABD: ["abandoned", "Match Abandoned"],
      XYZ: ["suspended", "Status not documented"]
    } as const
    for (const [short, [status, text]] of Object.entries(codes)) {
      const mapped = ApiFootball.statusOf(short)
      assert.deepStrictEqual([mapped.status, mapped.reason?.text ?? null], [status, text], short)
      if (text !== null) assert.strictEqual(mapped.reason?.code, short)
    }
    assert.deepStrictEqual(
      ApiFootball.statusOf("pst", "Match Postponed - bad weather"),
      { status: "postponed", reason: { code: "PST", text: "Match Postponed - bad weather" } },
      "the answer's own words (status.long) first"
    )
  })

  it("the inline line-ups: the starting elevens matched by team id", () => {
    const lineups = [
      { team: { id: 40, name: "Liverpool" }, formation: "4-3-3", startXI: [{ player: { id: 1, name: "Alisson" } }] },
      {
        team: { id: 33, name: "Manchester United" },
        startXI: [{ player: { id: 2, name: "Onana", number: 24, pos: "G", grid: "1:1" } }, {
          player: { name: "Dalot" }
        }],
        substitutes: [{ player: { id: 3, name: "Bayindir", grid: null } }]
      }
    ]
    const withLineups = fixtureOf({ lineups })
    assert.deepStrictEqual(ApiFootball.toLineup(withLineups), { home: ["Onana", "Dalot"], away: ["Alisson"] })
    assert.isTrue(ApiFootball.toEvent(withLineups).hasLineup)
    assert.isUndefined(ApiFootball.toLineup(fixtureOf()))
    assert.isUndefined(ApiFootball.toLineup(fixtureOf({ lineups: [{ team: { id: 33 }, startXI: [] }] })))
    assert.isFalse(ApiFootball.toEvent(fixtureOf({ lineups: [{ team: { id: 33 }, startXI: [] }] })).hasLineup)
  })

  it("the inline statistics: possession \"58%\", a number, a null, and the ones not mapped", () => {
    const statistics = [
      {
        team: { id: 33, name: "Manchester United" },
        statistics: [
          { type: "Ball Possession", value: "58%" },
          { type: "Shots on Goal", value: 8 },
          { type: "Shots off Goal", value: "3" },
          { type: "Corner Kicks", value: null },
          { type: "Yellow Cards", value: 2 },
          { type: "Total passes", value: 500 },
          { type: "expected_goals", value: "1.24" }
        ]
      },
      {
        team: { id: 40, name: "Liverpool" },
        statistics: [
          { type: "Ball Possession", value: "42%" },
          { type: "Red Cards", value: 1 },
          { type: "Corner Kicks", value: "58.5%" }
        ]
      }
    ]
    assert.deepStrictEqual(ApiFootball.toStatistics(fixtureOf({ statistics })), {
      possession_home: 58,
      shots_on_target_home: 8,
      shots_off_target_home: 3,
      yellow_cards_home: 2,
      possession_away: 42,
      red_cards_away: 1
    })
    assert.isUndefined(ApiFootball.toStatistics(fixtureOf()))
    assert.isUndefined(
      ApiFootball.toStatistics(
        fixtureOf({ statistics: [{ team: { id: 33 }, statistics: [{ type: "Fouls", value: 3 }] }] })
      )
    )
  })
})

describe("API-Football results", () => {
  it("final: the goals and the winner by them, a draw included", () => {
    assert.deepStrictEqual(ApiFootball.toResult(withStatus("FT", { home: 2, away: "1" })), {
      _tag: "Result",
      result: { eventId: "1035037", homeScore: 2, awayScore: 1, winner: "home" }
    })
    const draw = ApiFootball.toResult(withStatus("AET", { home: 1, away: 1 }))
    assert.strictEqual(draw._tag === "Result" ? draw.result.winner : draw._tag, "draw")
  })

  it("after penalties: the goals level, the winner the provider flags (or the shoot-out when it flags none)", () => {
    const teams = {
      home: { id: 33, name: "Manchester United", winner: false },
      away: { id: 40, name: "Liverpool", winner: true }
    }
    assert.deepStrictEqual(ApiFootball.toResult(withStatus("PEN", { home: 1, away: 1 }, teams)), {
      _tag: "Result",
      result: { eventId: "1035037", homeScore: 1, awayScore: 1, winner: "away" }
    })
    const unflagged = fixtureOf({
      fixture: { ...fixture().fixture, status: { short: "PEN" } },
      goals: { home: 2, away: 2 },
      score: { penalty: { home: 5, away: 4 } }
    })
    const result = ApiFootball.toResult(unflagged)
    assert.strictEqual(result._tag === "Result" ? result.result.winner : result._tag, "home")
  })

  it("an award without goals is unknown; one with goals is final", () => {
    assert.deepStrictEqual(ApiFootball.toResult(withStatus("AWD", { home: null, away: null })), { _tag: "Unknown" })
    assert.deepStrictEqual(
      ApiFootball.toResult(fixtureOf({ fixture: { ...fixture().fixture, status: { short: "WO" } }, goals: undefined })),
      {
        _tag: "Unknown"
      }
    )
    const awarded = ApiFootball.toResult(withStatus("AWD", { home: 3, away: 0 }))
    assert.strictEqual(awarded._tag === "Result" ? awarded.result.winner : awarded._tag, "home")
  })

  it("not final yet: the status; no fixture: unknown", () => {
    assert.deepStrictEqual(ApiFootball.toResult(withStatus("HT", { home: 0, away: 0 })), {
      _tag: "NotFinished",
      status: "live"
    })
    assert.deepStrictEqual(ApiFootball.toResult(withStatus("PST", { home: null, away: null })), {
      _tag: "NotFinished",
      status: "postponed",
      reason: { code: "PST", text: "x" }
    }, "the reason in the answer's words (status.long)")
    assert.deepStrictEqual(ApiFootball.toResult(undefined), { _tag: "Unknown" })
  })
})

describe("API-Football odds", () => {
  const update = "2024-02-06T09:49:32+00:00"
  const quotedAt = Date.parse(update)
  const prematch = decode(ApiFootball.OddsResponse, [{
    league: { id: 39, name: "Premier League", country: "England", logo: "l", flag: "f", season: 2023 },
    fixture: { id: 1035037, timezone: "UTC", date: "2024-02-06T14:00:00+00:00", timestamp: 1707228000 },
    update,
    bookmakers: [
      {
        id: 6,
        name: "Bwin",
        bets: [{
          id: 1,
          name: "Match Winner",
          values: [{ value: "Home", odd: "1.40" }, { value: "Away", odd: "7.00" }]
        }]
      },
      {
        id: "8",
        name: "Bet365",
        bets: [
          {
            id: 10,
            name: "Exact Score",
            values: [{ value: "1:0", odd: "6.50" }, { value: "9:9", odd: "N/A" }, { value: "0:0", odd: "1" }]
          },
          {
            id: "1",
            name: "Match Winner",
            values: [{ value: "Home", odd: "1.50" }, { value: "Draw", odd: 4.2 }, { value: "Away", odd: "6.00" }]
          },
          { id: 38, name: "Exact Goals Number", values: [{ value: 4, odd: "9.00" }] },
          { id: 2, name: "Home/Away", values: [{ value: "Home", odd: "" }, { value: "Away", odd: null }] }
        ]
      }
    ]
  }])

  it("pre-match: the bookmaker asked for, a market per bet in bet id order, numbers as text, odd prices dropped", () => {
    assert.deepStrictEqual(ApiFootball.toOdds(prematch, 8), [
      {
        key: "1",
        name: "Match Winner",
        odds: [{ label: "Home", value: 1.5 }, { label: "Draw", value: 4.2 }, { label: "Away", value: 6 }],
        quotedAt
      },
      { key: "10", name: "Exact Score", odds: [{ label: "1:0", value: 6.5 }], quotedAt },
      { key: "38", name: "Exact Goals Number", odds: [{ label: "4", value: 9 }], quotedAt }
    ])
  })

  it("pre-match: another bookmaker by its id; the first one when the one asked for is absent", () => {
    const bwin = [{
      key: "1",
      name: "Match Winner",
      odds: [{ label: "Home", value: 1.4 }, { label: "Away", value: 7 }],
      quotedAt
    }]
    assert.deepStrictEqual(ApiFootball.toOdds(prematch, 6), bwin)
    assert.deepStrictEqual(ApiFootball.toOdds(prematch, 99), bwin)
    assert.deepStrictEqual(ApiFootball.toOdds([], 8), [])
  })

  it("pre-match: no quotedAt when the update is not a date", () => {
    const [market] = ApiFootball.toOdds([{ ...prematch[0], update: "later" }], 6)
    assert.isFalse("quotedAt" in market)
  })

  const live = (overrides: Record<string, unknown> = {}) =>
    decode(ApiFootball.LiveOddsResponse, [{
      fixture: { id: 1035037, status: { long: "Second Half", elapsed: 62, seconds: "62:14" } },
      league: { id: 39, season: 2023 },
      teams: { home: { id: 33, goals: 1 }, away: { id: 40, goals: 0 } },
      status: { stopped: false, blocked: false, finished: false },
      update,
      odds: [
        {
          id: 36,
          name: "Over/Under Line",
          values: [
            { value: "Over", odd: "1.90", handicap: "2.5", main: false, suspended: false },
            { value: "Over", odd: "1.85", handicap: "2.5", main: true, suspended: false },
            { value: "Under", odd: "1.95", handicap: "2.5", main: null, suspended: false },
            { value: "Over", odd: "2.40", handicap: 3, main: null, suspended: true },
            { value: "Under", odd: "3.10", handicap: "1.5", main: false, suspended: false },
            { value: "Under", odd: "3.20", handicap: "1.5", main: null, suspended: false }
          ]
        },
        {
          id: "20",
          name: "Match Corners",
          values: [{ value: "Over", odd: "2.5", handicap: "8", main: null, suspended: true }]
        },
        {
          id: 2,
          name: "Fulltime Result",
          values: [
            { value: "Home", odd: "1.33", handicap: null, main: null, suspended: false },
            { value: "Draw", odd: 4.5, handicap: "", suspended: false },
            { value: "Away", odd: "0", suspended: false }
          ]
        }
      ],
      ...overrides
    }])

  it("live: the main line of a repeated label, suspended and unpriced outcomes dropped, a market per bet", () => {
    assert.deepStrictEqual(ApiFootball.toLiveOdds(live()), [
      {
        key: "2",
        name: "Fulltime Result",
        odds: [{ label: "Home", value: 1.33 }, { label: "Draw", value: 4.5 }],
        quotedAt
      },
      {
        key: "36",
        name: "Over/Under Line",
        odds: [{ label: "Over 2.5", value: 1.85 }, { label: "Under 2.5", value: 1.95 }],
        quotedAt
      }
    ])
  })

  it("live: a suspended main line does not give way to another line of its label", () => {
    const odds = live({
      odds: [{
        id: 36,
        name: "Over/Under Line",
        values: [
          { value: "Over", odd: "1.90", handicap: "2.5", main: false, suspended: false },
          { value: "Over", odd: "1.85", handicap: "2.5", main: true, suspended: true },
          { value: "Under", odd: "1.95", handicap: "2.5", main: null, suspended: false }
        ]
      }]
    })
    assert.deepStrictEqual(ApiFootball.toLiveOdds(odds)[0].odds, [{ label: "Under 2.5", value: 1.95 }])
  })

  it("live: nothing while bets are blocked or the match is not on; nothing without an item", () => {
    assert.deepStrictEqual(
      ApiFootball.toLiveOdds(live({ status: { stopped: false, blocked: true, finished: false } })),
      []
    )
    assert.deepStrictEqual(ApiFootball.toLiveOdds(live({ status: { blocked: false, finished: true } })), [])
    assert.strictEqual(ApiFootball.toLiveOdds(live({ status: { stopped: true, blocked: false } })).length, 2)
    assert.deepStrictEqual(ApiFootball.toLiveOdds([]), [])
  })

  it("a payload that does not fit is refused", () => {
    assert.isFalse(
      decodes(ApiFootball.OddsResponse, [{ fixture: { id: 1 }, bookmakers: [{ id: "bet365", bets: [] }] }])
    )
    assert.isFalse(decodes(ApiFootball.LiveOddsResponse, [{ fixture: { id: 1 }, odds: [{ id: 1, values: [] }] }]))
    assert.isFalse(decodes(ApiFootball.LeaguesResponse, { league: { id: 1, name: "x" } }))
  })
})
