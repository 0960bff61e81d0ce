/**
 * What the fake API-Football answers on each path once a call is let through (key, headers, quota): the
 * parameters checked as the upstream checks them (an error object keyed by the parameter, in an HTTP 200),
 * then the world's data in the shapes of the protocol notes, section 6.
 */
import {
  bookmakers,
  DAY,
  finishedStatuses,
  type Fixture,
  HOUR,
  inPlay,
  iso,
  isoDate,
  type League,
  leagueList,
  MINUTE,
  notStarted,
  seasonOf,
  statusLong
} from "./FakeApiFootballWorld.ts"
import { fixtureJson, fixtureLeagueJson, leagueLogo, lineupsJson, statisticsJson } from "./FakeApiFootballShapes.ts"

export interface RouteAnswer {
  readonly errors?: Record<string, string>
  readonly response: ReadonlyArray<unknown>
  readonly paging?: { readonly current: number; readonly total: number }
}

type Check = (value: string, name: string) => string | undefined
type Query = Record<string, string>

const Field = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)
const integer: Check = (value, name) =>
  /^\d+$/.test(value) ? undefined : `The ${Field(name)} field must contain an integer.`
const date: Check = (value, name) => {
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) &&
    new Date(Date.parse(value)).toISOString().startsWith(value)
  return valid ? undefined : `The ${Field(name)} field must contain a valid date. Example: 2020-01-01`
}
const season: Check = (value) =>
  /^\d{4}$/.test(value) ? undefined : "The Season field must contain 4 digits. Example: 2019"
const oneOf = (...values: ReadonlyArray<string>): Check => (value, name) =>
  values.includes(value.toLowerCase())
    ? undefined
    : `The ${Field(name)} field must contain one of: ${values.join(", ")}.`
const upTo99: Check = (value, name) =>
  integer(value, name) ?? (Number(value) >= 1 && Number(value) <= 99
    ? undefined
    : `The ${Field(name)} field must contain an integer between 1 and 99.`)
const dashed = (each: (part: string) => boolean, message: string): Check => (value) =>
  value.split("-").every(each) ? undefined : message
const timezone: Check = (value) => value === "UTC" ? undefined : "The Timezone field must contain a valid timezone."

/** The first parameter that is unknown or badly formed, as the upstream's error object; undefined when all pass. */
const checked = (query: Query, checks: Record<string, Check>): Record<string, string> | undefined => {
  for (const [name, value] of Object.entries(query)) {
    const check = checks[name]
    const message = check === undefined ? `The ${Field(name)} field do not exist.` : check(value, name)
    if (message !== undefined) return { [name]: message }
  }
  return undefined
}

const failed = (errors: Record<string, string>): RouteAnswer => ({ errors, response: [] })
const byKickoff = (a: Fixture, b: Fixture) => a.kickoff - b.kickoff || a.id - b.id
const int = (value: string | undefined) => value === undefined ? undefined : Number(value)

const leaguesAnswer = (query: Query, now: number): RouteAnswer => {
  const errors = checked(query, {
    id: integer,
    name: () => undefined,
    country: () => undefined,
    code: (value) => /^[A-Za-z]{2}$/.test(value) ? undefined : "The Code field must contain 2 characters.",
    season,
    current: oneOf("true", "false"),
    type: oneOf("league", "cup"),
    search: (value) => value.length >= 3 ? undefined : "The Search field must contain at least 3 characters."
  })
  if (errors) return failed(errors)
  const response = leagueList.filter((league) =>
    (query.id === undefined || league.id === int(query.id)) &&
    (query.name === undefined || league.name.toLowerCase() === query.name.toLowerCase()) &&
    (query.country === undefined || league.country.toLowerCase() === query.country.toLowerCase()) &&
    (query.code === undefined || league.code === query.code.toUpperCase()) &&
    (query.type === undefined || league.type.toLowerCase() === query.type.toLowerCase()) &&
    (query.search === undefined ||
      `${league.name} ${league.country}`.toLowerCase().includes(query.search.toLowerCase()))
  ).flatMap((league) => {
    const seasons = seasonsOf(league, now).filter((s) =>
      (query.season === undefined || s.year === int(query.season)) &&
      (query.current === undefined || s.current === (query.current.toLowerCase() === "true"))
    )
    if (seasons.length === 0 && (query.season !== undefined || query.current !== undefined)) return []
    return [{
      league: { id: league.id, name: league.name, type: league.type, logo: leagueLogo(league) },
      country: { name: league.country, code: league.code, flag: league.flag },
      seasons
    }]
  })
  return { response }
}

/** The previous season and the current one (chronological, as the upstream lists them), with coverage flags. */
const seasonsOf = (league: League, now: number) => {
  const current = seasonOf(league, now)
  const flags = ["standings", "players", "top_scorers", "top_assists", "top_cards", "injuries", "predictions", "odds"]
  const covered = (flag: string) => !league.uncovered.includes(flag)
  return [current - 1, current].map((year) => ({
    year,
    start: league.european ? `${year}-08-15` : `${year}-02-01`,
    end: league.european ? `${year + 1}-05-24` : `${year}-12-06`,
    current: year === current,
    coverage: {
      fixtures: {
        events: covered("events"),
        lineups: covered("lineups"),
        statistics_fixtures: covered("statistics_fixtures"),
        statistics_players: covered("statistics_players")
      },
      ...Object.fromEntries(flags.map((flag) => [flag, covered(flag)]))
    }
  }))
}

const knownStatuses = Object.keys(statusLong)

const fixturesAnswer = (world: Map<number, Fixture>, query: Query, now: number): RouteAnswer => {
  const errors = checked(query, {
    id: integer,
    ids: (value) =>
      dashed((part) => /^\d+$/.test(part), "The Ids field must contain ids separated by a dash. Example: 1-2-3")(
        value,
        "ids"
      ) ?? (value.split("-").length > 20 ? "Maximum of 20 ids" : undefined),
    live: (value) =>
      value === "all" ? undefined : dashed(
        (part) => /^\d+$/.test(part),
        "The Live field must contain 'all' or league ids separated by a dash."
      )(value, "live"),
    date,
    from: date,
    to: date,
    league: integer,
    season,
    team: integer,
    next: upTo99,
    last: upTo99,
    status: dashed(
      (part) => knownStatuses.includes(part),
      "The Status field must contain statuses separated by a dash. Example: NS-PST-FT"
    ),
    timezone
  })
  if (errors) return failed(errors)
  const filters = ["id", "ids", "live", "date", "from", "to", "league", "season", "team", "next", "last"]
  if (!filters.some((name) => query[name] !== undefined)) {
    return failed({ required: "At least one parameter is required." })
  }
  const ids = query.ids?.split("-").map(Number)
  const leaguesLive = query.live === undefined || query.live === "all" ? undefined : query.live.split("-").map(Number)
  const statuses = query.status?.split("-")
  let list = [...world.values()].filter((f) =>
    (query.id === undefined || f.id === int(query.id)) &&
    (ids === undefined || ids.includes(f.id)) &&
    (query.live === undefined ||
      (inPlay.has(f.status) && (leaguesLive === undefined || leaguesLive.includes(f.league.id)))) &&
    (query.date === undefined || isoDate(f.kickoff) === query.date) &&
    (query.from === undefined || isoDate(f.kickoff) >= query.from) &&
    (query.to === undefined || isoDate(f.kickoff) <= query.to) &&
    (query.league === undefined || f.league.id === int(query.league)) &&
    (query.season === undefined || f.season === int(query.season)) &&
    (query.team === undefined || f.home.id === int(query.team) || f.away.id === int(query.team)) &&
    (statuses === undefined || statuses.includes(f.status))
  ).sort(byKickoff)
  if (query.next !== undefined) {
    list = list.filter((f) => ["NS", "TBD"].includes(f.status) && f.kickoff >= now).slice(0, int(query.next))
  }
  if (query.last !== undefined) {
    list = list.filter((f) => finishedStatuses.has(f.status)).slice(-int(query.last)!)
  }
  const inline = query.id !== undefined || query.ids !== undefined
  return { response: list.map((f) => fixtureJson(f, inline)) }
}

const perFixture = (
  world: Map<number, Fixture>,
  query: Query,
  checks: Record<string, Check>,
  items: (fixture: Fixture) => ReadonlyArray<{ team: { id: number } }>
): RouteAnswer => {
  const errors = checked(query, { fixture: integer, team: integer, ...checks })
  if (errors) return failed(errors)
  if (query.fixture === undefined) return failed({ fixture: "The Fixture field is required." })
  const fixture = world.get(Number(query.fixture))
  if (fixture === undefined) return { response: [] }
  return { response: items(fixture).filter((item) => query.team === undefined || item.team.id === int(query.team)) }
}

const price = (value: number) => value.toFixed(2)

/**
 * Whether `/odds` answers a fixture's pre-match odds: not started yet, or started (in play or over) within the 7 days of
 * history the provider keeps (§5), its last pre-match odds then.
 */
const hasPreMatchOdds = (fixture: Fixture, now: number) =>
  fixture.status === "NS" || (!notStarted.has(fixture.status) && now - fixture.kickoff <= 7 * DAY)

/**
 * A fixture's pre-match odds from both bookmakers: prices derived from its id, so each fixture's are its own; updated
 * every 3 hours until kick-off.
 */
const preMatchJson = (fixture: Fixture, now: number) => {
  const spread = (fixture.id % 13) / 13
  const bets = (shade: number) => [
    {
      id: 1,
      name: "Match Winner",
      values: [
        { value: "Home", odd: price(1.4 + spread * 2.6 - shade) },
        { value: "Draw", odd: price(3.1 + (fixture.id % 5) / 10 - shade) },
        { value: "Away", odd: price(5.6 - spread * 3.4 - shade) }
      ]
    },
    {
      id: 5,
      name: "Goals Over/Under",
      values: [
        { value: "Over 2.5", odd: price(1.8 + (fixture.id % 4) / 10 - shade) },
        { value: "Under 2.5", odd: price(2.05 - (fixture.id % 4) / 20 - shade) }
      ]
    },
    {
      id: 38,
      name: "Exact Goals Number",
      values: [9, 4.75, 3.6, 4.2, 6.5].map((odd, goals) => ({ value: goals, odd: price(odd - shade) }))
    }
  ]
  return {
    league: fixtureLeagueJson(fixture),
    fixture: { id: fixture.id, timezone: "UTC", date: iso(fixture.kickoff), timestamp: fixture.kickoff / 1000 },
    update: iso(Math.floor(Math.min(now, fixture.kickoff - 1) / (3 * HOUR)) * 3 * HOUR),
    bookmakers: [
      { id: bookmakers.bet365, name: "Bet365", bets: bets(0) },
      { id: bookmakers.bwin, name: "Bwin", bets: bets(0.05) }
    ]
  }
}

export const oddsPageSize = 10

const oddsAnswer = (world: Map<number, Fixture>, query: Query, now: number): RouteAnswer => {
  const errors = checked(query, {
    fixture: integer,
    league: integer,
    season,
    date,
    bookmaker: integer,
    bet: integer,
    page: (value, name) =>
      integer(value, name) ?? (Number(value) >= 1 ? undefined : "The Page field must be at least 1."),
    timezone
  })
  if (errors) return failed(errors)
  if (!["fixture", "league", "season", "date", "bookmaker", "bet"].some((name) => query[name] !== undefined)) {
    return failed({ required: "At least one parameter is required." })
  }
  const items = [...world.values()].filter((f) =>
    hasPreMatchOdds(f, now) &&
    (query.fixture === undefined || f.id === int(query.fixture)) &&
    (query.league === undefined || f.league.id === int(query.league)) &&
    (query.season === undefined || f.season === int(query.season)) &&
    (query.date === undefined || isoDate(f.kickoff) === query.date)
  ).sort(byKickoff).map((f) => {
    const item = preMatchJson(f, now)
    const kept = item.bookmakers
      .filter((b) => query.bookmaker === undefined || b.id === int(query.bookmaker))
      .map((b) => ({ ...b, bets: b.bets.filter((bet) => query.bet === undefined || bet.id === int(query.bet)) }))
      .filter((b) => b.bets.length > 0)
    return { ...item, bookmakers: kept }
  }).filter((item) => item.bookmakers.length > 0)
  const page = int(query.page) ?? 1
  const total = Math.max(1, Math.ceil(items.length / oddsPageSize))
  return {
    response: items.slice((page - 1) * oddsPageSize, page * oddsPageSize),
    paging: { current: page, total }
  }
}

/** In the live-odds feed: while in play, or from 15 minutes before kick-off to 20 minutes after the end. */
export const inLiveWindow = (fixture: Fixture, now: number) =>
  inPlay.has(fixture.status) ||
  (now >= fixture.kickoff - 15 * MINUTE &&
    (fixture.status === "NS" || (fixture.endedAt !== null && now <= fixture.endedAt + 20 * MINUTE)))

const liveValue = (value: string, odd: number, handicap: string | null, main: boolean | null, suspended = false) => ({
  value,
  odd: price(odd),
  handicap,
  main,
  suspended
})

const liveOddsJson = (fixture: Fixture, now: number) => {
  const lead = (fixture.goals.home ?? 0) - (fixture.goals.away ?? 0)
  const elapsed = fixture.elapsed
  return {
    fixture: {
      id: fixture.id,
      status: {
        long: statusLong[fixture.status],
        elapsed,
        seconds: elapsed === null ? null : `${elapsed}:${String(Math.floor(now / 1000) % 60).padStart(2, "0")}`
      }
    },
    league: { id: fixture.league.id, season: fixture.season },
    teams: {
      home: { id: fixture.home.id, goals: fixture.goals.home ?? 0 },
      away: { id: fixture.away.id, goals: fixture.goals.away ?? 0 }
    },
    status: {
      stopped: ["INT", "SUSP"].includes(fixture.status),
      blocked: false,
      finished: !inPlay.has(fixture.status)
    },
    update: iso(Math.floor(now / 5000) * 5000),
    odds: [
      {
        id: 59,
        name: "Fulltime Result",
        values: [
          liveValue("Home", 2.4 - lead * 0.8, null, null),
          liveValue("Draw", 3.2, null, null),
          liveValue("Away", 2.9 + lead * 1.5, null, null, true)
        ]
      },
      {
        id: 36,
        name: "Over/Under Line",
        values: [
          liveValue("Over", 1.9, "2.5", true),
          liveValue("Under", 1.9, "2.5", true),
          liveValue("Over", 1.75, "2.5", false),
          liveValue("Under", 2.05, "2.5", false),
          liveValue("Over", 3.1, "3.5", false),
          liveValue("Under", 1.35, "3.5", false)
        ]
      }
    ]
  }
}

const liveOddsAnswer = (world: Map<number, Fixture>, query: Query, now: number): RouteAnswer => {
  const errors = checked(query, { fixture: integer, league: integer, bet: integer })
  if (errors) return failed(errors)
  const response = [...world.values()].filter((f) =>
    inLiveWindow(f, now) &&
    (query.fixture === undefined || f.id === int(query.fixture)) &&
    (query.league === undefined || f.league.id === int(query.league))
  ).sort(byKickoff).map((f) => {
    const item = liveOddsJson(f, now)
    return { ...item, odds: item.odds.filter((bet) => query.bet === undefined || bet.id === int(query.bet)) }
  })
  return { response }
}

/** The answer on `path` ("/fixtures", ...; /status is the server's), or the upstream's unknown-endpoint error. */
export const route = (world: Map<number, Fixture>, path: string, query: Query, now: number): RouteAnswer => {
  switch (path) {
    case "/leagues":
      return leaguesAnswer(query, now)
    case "/fixtures":
      return fixturesAnswer(world, query, now)
    case "/fixtures/lineups":
      return perFixture(world, query, { type: () => undefined }, lineupsJson)
    case "/fixtures/statistics":
      return perFixture(
        world,
        query,
        { type: () => undefined, half: oneOf("true", "false") },
        (fixture) =>
          statisticsJson(fixture).map((item) => ({
            ...item,
            statistics: item.statistics.filter((s) => query.type === undefined || s.type === query.type)
          }))
      )
    case "/odds":
      return oddsAnswer(world, query, now)
    case "/odds/live":
      return liveOddsAnswer(world, query, now)
    default:
      return failed({ endpoint: "This endpoint do not exist." })
  }
}
