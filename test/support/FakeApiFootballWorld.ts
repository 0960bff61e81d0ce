/**
 * The default world of the fake API-Football (FakeApiFootball.ts): leagues, teams and fixtures placed around the
 * fake's clock when the world is made, their life cycle, and the shapes the protocol notes give them
 * (docs: /work/shared/spec/api-football.md, section 6). Everything here is plain data; the server owns the clock.
 */

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/** "2024-02-06T14:00:00+00:00", as the upstream writes dates (always UTC here). */
export const iso = (millis: number) => `${new Date(millis).toISOString().slice(0, 19)}+00:00`
/** "2024-02-06": a kick-off's UTC date, what `date=` matches. */
export const isoDate = (millis: number) => new Date(millis).toISOString().slice(0, 10)

/** "42 Arsenal" → ["42", "Arsenal"]. */
const splitFirst = (row: string) => [row.slice(0, row.indexOf(" ")), row.slice(row.indexOf(" ") + 1)] as const

export const leagues = { championsLeague: 2, premierLeague: 39, serieA: 71, j1League: 98 } as const
export const bookmakers = { bwin: 6, bet365: 8 } as const
/** The bookmaker whose pre-match odds the adapter reads: API-Football's Bet365. */
export const preMatchBookmaker = bookmakers.bet365

/** The named fixtures of the default world (kick-offs relative to the clock when the world was made). */
export const fixtures = {
  /** NS, today (UTC), about two hours ahead (less late in the day, so it stays today). */
  upcoming: 1_301_001,
  /** NS, ten minutes ahead (kick-offs are on whole minutes): inside the live-odds window from the start, lineups already out. */
  startingSoon: 1_301_002,
  /** NS, tomorrow 18:00 UTC. */
  tomorrow: 1_301_003,
  /** TBD, tomorrow 00:00 UTC (time not known). */
  tbd: 1_301_004,
  /** 2H, 62', 1-0: kicked off 77 minutes ago. */
  live: 1_301_005,
  /** HT, 0-1: kicked off 50 minutes ago. */
  halfTime: 1_301_006,
  /** FT yesterday 15:00 UTC, 2-1 (1-1 at half time). */
  finished: 1_301_007,
  /** AET yesterday 20:00 UTC: 1-1 after 90', 2-1 after extra time. */
  afterExtraTime: 1_301_008,
  /** PEN yesterday 20:00 UTC: 1-1 after extra time, 4-5 on penalties (the away side wins). */
  penalties: 1_301_009,
  /** PST, today 21:00 UTC. */
  postponed: 1_301_010,
  /** CANC, yesterday 22:00 UTC. */
  cancelled: 1_301_011,
  /** ABD yesterday 10:00 UTC at 55', 1-1. */
  abandoned: 1_301_012
} as const

/** 22 more NS fixtures tomorrow (Serie A, J1, Premier League), so tomorrow's pre-match odds run to 3 pages. */
export const fillerFixtures: ReadonlyArray<number> = Array.from({ length: 22 }, (_, i) => 1_301_100 + i)

export const inPlay = new Set(["1H", "HT", "2H", "ET", "BT", "P", "SUSP", "INT", "LIVE"])
export const finishedStatuses = new Set(["FT", "AET", "PEN"])
const ended = new Set(["FT", "AET", "PEN", "ABD", "AWD", "WO"])
export const notStarted = new Set(["TBD", "NS", "PST", "CANC"])
/** Each status's long name, as `fixture.status.long` gives it. */
export const statusLong: Record<string, string> = Object.fromEntries(
  ("TBD Time To Be Defined; NS Not Started; 1H First Half; HT Halftime; 2H Second Half; ET Extra Time; " +
    "BT Break Time; P Penalty In Progress; SUSP Match Suspended; INT Match Interrupted; LIVE In Progress; " +
    "FT Match Finished; AET Match Finished; PEN Match Finished; PST Match Postponed; CANC Match Cancelled; " +
    "ABD Match Abandoned; AWD Technical Loss; WO WalkOver").split("; ").map((row) => splitFirst(row))
)

export interface Team {
  readonly id: number
  readonly name: string
}

export interface League {
  readonly id: number
  readonly name: string
  readonly type: "League" | "Cup"
  readonly country: string
  readonly code: string | null
  readonly flag: string | null
  /** Seasons that start in August (named by their first year), not in the calendar year. */
  readonly european: boolean
  /** Coverage flags that are false for this league (all others true). */
  readonly uncovered: ReadonlyArray<string>
  readonly teams: ReadonlyArray<Team>
}

/** A league; its teams given as "42 Arsenal; 49 Chelsea" (ids and names, as the upstream numbers them). */
const league = (
  id: number,
  [name, type, country, code]: readonly [string, "League" | "Cup", string, string | null],
  european: boolean,
  uncovered: ReadonlyArray<string>,
  teams: string
): League => ({
  id,
  name,
  type,
  country,
  code,
  flag: code === null ? null : `https://media.api-sports.io/flags/${code.toLowerCase()}.svg`,
  european,
  uncovered,
  teams: teams.split("; ").map((row) => splitFirst(row)).map(([id, name]) => ({ id: Number(id), name }))
})

export const leagueList: ReadonlyArray<League> = [
  league(
    leagues.premierLeague,
    ["Premier League", "League", "England", "GB"],
    true,
    [],
    "42 Arsenal; 49 Chelsea; 40 Liverpool; 50 Manchester City; 33 Manchester United; " +
      "47 Tottenham; 34 Newcastle; 66 Aston Villa; 51 Brighton; 48 West Ham; 45 Everton; " +
      "36 Fulham; 52 Crystal Palace; 55 Brentford"
  ),
  league(
    leagues.serieA,
    ["Serie A", "League", "Brazil", "BR"],
    false,
    ["predictions"],
    "127 Flamengo; 121 Palmeiras; 131 Corinthians; 126 Sao Paulo; 124 Fluminense; " +
      "130 Gremio; 119 Internacional; 1062 Atletico-MG; 120 Botafogo; 128 Santos; " +
      "118 Bahia; 134 Atletico Paranaense; 135 Cruzeiro; 133 Vasco DA Gama; " +
      "154 Fortaleza EC; 794 RB Bragantino; 136 Vitoria; 152 Juventude; 129 Ceara; " +
      "7848 Mirassol"
  ),
  league(
    leagues.j1League,
    ["J1 League", "League", "Japan", "JP"],
    false,
    ["statistics_players", "injuries", "predictions"],
    "287 Urawa; 290 Kashima; 294 Kawasaki Frontale; 296 Yokohama F. Marinos; " +
      "292 Vissel Kobe; 288 Gamba Osaka; 289 Nagoya Grampus; 281 Sanfrecce Hiroshima; " +
      "293 Cerezo Osaka; 282 Kashiwa Reysol; 303 FC Tokyo; 316 Albirex Niigata; " +
      "306 Machida Zelvia; 307 Tokyo Verdy; 308 Shonan Bellmare; 309 Avispa Fukuoka; " +
      "310 Kyoto Sanga; 311 Consadole Sapporo; 312 Jubilo Iwata; 313 Sagan Tosu"
  ),
  league(
    leagues.championsLeague,
    ["UEFA Champions League", "Cup", "World", null],
    true,
    [],
    "541 Real Madrid; 157 Bayern München; 85 Paris Saint Germain; 505 Inter; " +
      "529 Barcelona; 496 Juventus"
  )
]

export const leagueById = (id: number) => leagueList.find((league) => league.id === id)!
const team = (league: number, name: string) => leagueById(league).teams.find((t) => t.name === name)!

/** The league's current season at `now`: European seasons are named by the year they start in (August). */
export const seasonOf = (league: League, now: number) => {
  const date = new Date(now)
  return league.european && date.getUTCMonth() < 7 ? date.getUTCFullYear() - 1 : date.getUTCFullYear()
}

export interface Score {
  home: number | null
  away: number | null
}

export interface Statistic {
  readonly type: string
  value: number | string | null
}

export interface Fixture {
  readonly id: number
  readonly league: League
  readonly season: number
  readonly round: string
  readonly home: Team
  readonly away: Team
  /** Kick-off, epoch ms. */
  readonly kickoff: number
  status: string
  elapsed: number | null
  goals: Score
  halftime: Score
  fulltime: Score
  extratime: Score
  penalty: Score
  /** When it ended on the fake's clock (the live-odds window closes 20 minutes later); null while not ended. */
  endedAt: number | null
  events: Array<{ elapsed: number | null; side: "home" | "away"; type: string; detail: string }>
  lineups: boolean
  statistics: { home: Array<Statistic>; away: Array<Statistic> } | null
}

const none = (): Score => ({ home: null, away: null })
const of = (home: number, away: number): Score => ({ home, away })

/** The statistics of a side in play: numbers, "NN%" strings and a null, as the upstream mixes them. */
export const defaultStatistics = (side: "home" | "away"): Array<Statistic> => {
  const home = side === "home"
  return [
    { type: "Shots on Goal", value: home ? 5 : 2 },
    { type: "Shots off Goal", value: home ? 4 : 3 },
    { type: "Total Shots", value: home ? 11 : 6 },
    { type: "Blocked Shots", value: home ? 2 : 1 },
    { type: "Fouls", value: home ? 7 : 10 },
    { type: "Corner Kicks", value: home ? null : 3 },
    { type: "Offsides", value: home ? 1 : null },
    { type: "Ball Possession", value: home ? "58%" : "42%" },
    { type: "Yellow Cards", value: home ? null : 2 },
    { type: "Red Cards", value: null },
    { type: "Goalkeeper Saves", value: home ? 2 : 4 },
    { type: "Total passes", value: home ? 402 : 297 },
    { type: "Passes accurate", value: home ? 326 : 228 },
    { type: "Passes %", value: home ? "81%" : "77%" }
  ]
}

/** The default world around `now` (epoch ms of the fake's clock). */
export const makeWorld = (now: number): Map<number, Fixture> => {
  const today = Math.floor(now / DAY) * DAY
  const wholeMinute = (millis: number) => Math.floor(millis / MINUTE) * MINUTE
  const world = new Map<number, Fixture>()
  const add = (
    id: number,
    leagueId: number,
    round: string,
    [home, away]: readonly [string, string],
    kickoff: number,
    status: string,
    more: Partial<Fixture> = {}
  ) => {
    const league = leagueById(leagueId)
    world.set(id, {
      id,
      league,
      season: seasonOf(league, kickoff),
      round,
      home: team(leagueId, home),
      away: team(leagueId, away),
      kickoff: wholeMinute(kickoff),
      status,
      elapsed: null,
      goals: none(),
      halftime: none(),
      fulltime: none(),
      extratime: none(),
      penalty: none(),
      endedAt: null,
      events: [],
      lineups: false,
      statistics: null,
      ...more
    })
  }
  const yesterday = today - DAY
  const tomorrow = today + DAY
  const pl = leagues.premierLeague
  const ucl = leagues.championsLeague
  add(
    fixtures.upcoming,
    pl,
    "Regular Season - 13",
    ["Arsenal", "Chelsea"],
    now + Math.min(2 * HOUR, (tomorrow - now) / 2),
    "NS"
  )
  add(fixtures.startingSoon, pl, "Regular Season - 13", ["Liverpool", "Manchester City"], now + 10 * MINUTE, "NS", {
    lineups: true
  })
  add(fixtures.tomorrow, leagues.serieA, "Regular Season - 36", ["Flamengo", "Palmeiras"], tomorrow + 18 * HOUR, "NS")
  add(fixtures.tbd, ucl, "League Stage - 6", ["Inter", "Bayern München"], tomorrow, "TBD")
  add(fixtures.live, ucl, "League Stage - 5", ["Real Madrid", "Bayern München"], now - 77 * MINUTE, "2H", {
    elapsed: 62,
    goals: of(1, 0),
    halftime: of(0, 0),
    events: [{ elapsed: 30, side: "away", type: "Card", detail: "Yellow Card" }, {
      elapsed: 55,
      side: "home",
      type: "Goal",
      detail: "Normal Goal"
    }],
    lineups: true,
    statistics: { home: defaultStatistics("home"), away: defaultStatistics("away") }
  })
  add(fixtures.halfTime, pl, "Regular Season - 13", ["Manchester United", "Tottenham"], now - 50 * MINUTE, "HT", {
    elapsed: 45,
    goals: of(0, 1),
    halftime: of(0, 1),
    events: [{ elapsed: 21, side: "away", type: "Goal", detail: "Normal Goal" }],
    lineups: true,
    statistics: { home: defaultStatistics("home"), away: defaultStatistics("away") }
  })
  const over = (kickoff: number, minutes: number) => ({ lineups: true, endedAt: kickoff + minutes * MINUTE })
  add(fixtures.finished, pl, "Regular Season - 12", ["Newcastle", "Aston Villa"], yesterday + 15 * HOUR, "FT", {
    ...over(yesterday + 15 * HOUR, 110),
    elapsed: 90,
    goals: of(2, 1),
    halftime: of(1, 1),
    fulltime: of(2, 1),
    events: [
      { elapsed: 12, side: "home", type: "Goal", detail: "Normal Goal" },
      { elapsed: 40, side: "away", type: "Goal", detail: "Penalty" },
      { elapsed: 81, side: "home", type: "Goal", detail: "Normal Goal" }
    ]
  })
  add(fixtures.afterExtraTime, ucl, "Round of 16", ["Paris Saint Germain", "Inter"], yesterday + 20 * HOUR, "AET", {
    ...over(yesterday + 20 * HOUR, 145),
    elapsed: 120,
    goals: of(2, 1),
    halftime: of(0, 1),
    fulltime: of(1, 1),
    extratime: of(1, 0)
  })
  add(fixtures.penalties, ucl, "Round of 16", ["Barcelona", "Juventus"], yesterday + 20 * HOUR, "PEN", {
    ...over(yesterday + 20 * HOUR, 160),
    elapsed: 120,
    goals: of(1, 1),
    halftime: of(1, 0),
    fulltime: of(1, 1),
    extratime: of(0, 0),
    penalty: of(4, 5)
  })
  add(fixtures.postponed, leagues.serieA, "Regular Season - 35", ["Corinthians", "Sao Paulo"], today + 21 * HOUR, "PST")
  add(
    fixtures.cancelled,
    leagues.serieA,
    "Regular Season - 35",
    ["Fluminense", "Gremio"],
    yesterday + 22 * HOUR,
    "CANC"
  )
  add(
    fixtures.abandoned,
    leagues.j1League,
    "Regular Season - 37",
    ["Kawasaki Frontale", "Yokohama F. Marinos"],
    yesterday + 10 * HOUR,
    "ABD",
    {
      ...over(yesterday + 10 * HOUR, 70),
      elapsed: 55,
      goals: of(1, 1),
      halftime: of(1, 0)
    }
  )
  const fillerPairs = [
    ...pairsOf(leagues.serieA, 2, "Regular Season - 36"),
    ...pairsOf(leagues.j1League, 0, "Regular Season - 38"),
    ...pairsOf(pl, 8, "Regular Season - 14")
  ]
  fillerPairs.forEach(([leagueId, round, pair], i) =>
    add(fillerFixtures[i]!, leagueId, round, pair, tomorrow + 9 * HOUR + i * 30 * MINUTE, "NS")
  )
  return world
}

/** The league's teams past the first `busy` ones, two by two: tomorrow's fixtures that fill the odds' pages. */
const pairsOf = (leagueId: number, busy: number, round: string) => {
  const free = leagueById(leagueId).teams.slice(busy)
  return Array.from(
    { length: Math.floor(free.length / 2) },
    (_, i) => [leagueId, round, [free[2 * i]!.name, free[2 * i + 1]!.name] as const] as const
  )
}

export const winners = (fixture: Fixture) => {
  const decided = fixture.status === "PEN" ? fixture.penalty : fixture.goals
  if (notStarted.has(fixture.status) || fixture.status === "ABD" || decided.home === null || decided.away === null) {
    return { home: null, away: null }
  }
  if (decided.home === decided.away) return { home: null, away: null }
  return { home: decided.home > decided.away, away: decided.away > decided.home }
}

/** Moves a fixture along its life cycle as the upstream would show it, keeping when it ended. */
export const setStatus = (fixture: Fixture, short: string, elapsed: number | null | undefined, now: number) => {
  if (statusLong[short] === undefined) throw new Error(`FakeApiFootball: unknown status ${short}`)
  const defaults: Record<string, number> = Object.fromEntries(
    "1H 1; HT 45; 2H 46; ET 91; BT 105; P 120; FT 90; AET 120; PEN 120".split("; ").map((row) => splitFirst(row))
      .map(([short, minute]) => [short, Number(minute)])
  )
  fixture.status = short
  fixture.elapsed = elapsed !== undefined
    ? elapsed
    : notStarted.has(short)
    ? null
    : Math.max(fixture.elapsed ?? 0, defaults[short] ?? 0)
  if (!notStarted.has(short)) {
    if (fixture.goals.home === null) fixture.goals = of(0, 0)
    fixture.lineups = true
  }
  if (inPlay.has(short) && fixture.statistics === null) {
    fixture.statistics = { home: defaultStatistics("home"), away: defaultStatistics("away") }
  }
  if (short === "HT") fixture.halftime = { ...fixture.goals }
  if (short === "FT") fixture.fulltime = { ...fixture.goals }
  if (short === "AET" || short === "PEN") {
    if (fixture.fulltime.home === null) fixture.fulltime = { ...fixture.goals }
    fixture.extratime = of(fixture.goals.home! - fixture.fulltime.home!, fixture.goals.away! - fixture.fulltime.away!)
  }
  if (!ended.has(short)) fixture.endedAt = null
  else if (fixture.endedAt === null) fixture.endedAt = now
}

/** Sets the goals, recording a goal event for each side whose count went up. */
export const score = (fixture: Fixture, home: number, away: number) => {
  for (const side of ["home", "away"] as const) {
    const before = fixture.goals[side] ?? 0
    const after = side === "home" ? home : away
    for (let goal = before; goal < after; goal++) {
      fixture.events.push({ elapsed: fixture.elapsed, side, type: "Goal", detail: "Normal Goal" })
    }
  }
  fixture.goals = of(home, away)
  if (fixture.status === "HT") fixture.halftime = of(home, away)
  if (fixture.status === "FT") fixture.fulltime = of(home, away)
}

export const setStatistic = (
  fixture: Fixture,
  side: "home" | "away",
  type: string,
  value: number | string | null
) => {
  fixture.statistics ??= { home: defaultStatistics("home"), away: defaultStatistics("away") }
  const row = fixture.statistics[side].find((statistic) => statistic.type === type)
  if (row === undefined) fixture.statistics[side].push({ type, value })
  else row.value = value
}
