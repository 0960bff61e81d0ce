import { Schema } from "effect"
import type {
  EventStatus,
  Lineup,
  SportsEvent,
  SportsLeague,
  SportsTeam,
  StatsTrend,
  StatusReason
} from "../../domain/Sports.ts"
import type { ResultOutcome } from "../../sports/ProviderProtocol.ts"
import { Integer, Maybe, Text } from "./ApiFootballFields.ts"

/**
 * The API-Football v3 protocol (../shared/spec/api-football.md): its paths, its envelope and quota headers, the
 * shapes of its answers, and how they map to the domain's. Pure: no HTTP, no services. API-Football is football
 * only, so every league and event is the gateway's sport 1 (Soccer). Public clients disagree on types (numbers as
 * strings and back), so fields are decoded leniently, but a payload that does not fit is refused. The two odds
 * shapes (pre-match and live) are in ApiFootballOdds.ts, the envelope, quota headers and `/status` in
 * ApiFootballEnvelope.ts, both re-exported here.
 */

export {
  type Account,
  type Envelope,
  Errors,
  type Failure,
  type FailureKind,
  Paging,
  type QuotaHeaders,
  quotaOf,
  readEnvelope,
  Status,
  Success,
  toAccount
} from "./ApiFootballEnvelope.ts"
export { Integer, Maybe, Text } from "./ApiFootballFields.ts"
export {
  Bet,
  Bookmaker,
  LiveBet,
  LiveOddsItem,
  LiveOddsResponse,
  LiveOddsValue,
  OddsItem,
  OddsResponse,
  OddsValue,
  toLiveOdds,
  toOdds
} from "./ApiFootballOdds.ts"

export const paths = {
  status: "/status",
  leagues: "/leagues",
  fixtures: "/fixtures",
  odds: "/odds",
  liveOdds: "/odds/live"
} as const

export type Path = (typeof paths)[keyof typeof paths]

/** API-Football's one sport, in the gateway's (BetsAPI's) sport ids. */
export const soccer = 1

// ---- /leagues

/** A season's coverage: which data the provider has for it. */
export const Coverage = Schema.Struct({
  fixtures: Maybe(Schema.Struct({
    events: Maybe(Schema.Boolean),
    lineups: Maybe(Schema.Boolean),
    statistics_fixtures: Maybe(Schema.Boolean),
    statistics_players: Maybe(Schema.Boolean)
  })),
  standings: Maybe(Schema.Boolean),
  players: Maybe(Schema.Boolean),
  top_scorers: Maybe(Schema.Boolean),
  top_assists: Maybe(Schema.Boolean),
  top_cards: Maybe(Schema.Boolean),
  injuries: Maybe(Schema.Boolean),
  predictions: Maybe(Schema.Boolean),
  odds: Maybe(Schema.Boolean)
})

export const Season = Schema.Struct({
  year: Integer,
  start: Maybe(Schema.String),
  end: Maybe(Schema.String),
  current: Maybe(Schema.Boolean),
  coverage: Maybe(Coverage)
})

export const LeagueItem = Schema.Struct({
  league: Schema.Struct({ id: Text, name: Schema.String, type: Maybe(Schema.String), logo: Maybe(Schema.String) }),
  country: Maybe(Schema.Struct({ name: Maybe(Schema.String), code: Maybe(Schema.String), flag: Maybe(Schema.String) })),
  seasons: Maybe(Schema.Array(Season))
})

export const LeaguesResponse = Schema.Array(LeagueItem)

const countryCodeOf = (code: string | null | undefined): string | null =>
  code === undefined || code === null || code.trim() === "" ? null : code.trim().toLowerCase()

/** The leagues, their country's code lowercased ("GB-ENG" is "gb-eng"); "World" and the like have none. */
export const toLeagues = (response: typeof LeaguesResponse.Type): ReadonlyArray<SportsLeague> =>
  response.map((item) => ({
    id: item.league.id,
    name: item.league.name,
    sportId: soccer,
    countryCode: countryCodeOf(item.country?.code)
  }))

// ---- /fixtures

export const FixtureStatus = Schema.Struct({
  long: Maybe(Schema.String),
  short: Schema.String,
  /** Minutes played. */
  elapsed: Maybe(Integer),
  /** Added time. */
  extra: Maybe(Integer)
})

export const FixtureTeam = Schema.Struct({
  id: Text,
  name: Schema.String,
  logo: Maybe(Schema.String),
  /** true/false once decided, null before. */
  winner: Maybe(Schema.Boolean)
})

/** Goals per side: null before kick-off. */
export const Goals = Schema.Struct({ home: Maybe(Integer), away: Maybe(Integer) })

export const Score = Schema.Struct({
  halftime: Maybe(Goals),
  fulltime: Maybe(Goals),
  extratime: Maybe(Goals),
  penalty: Maybe(Goals)
})

export const LineupPlayer = Schema.Struct({ player: Schema.Struct({ id: Maybe(Text), name: Schema.String }) })

/** One team's line-up (`/fixtures/lineups`, or inline in `/fixtures?id=`). */
export const FixtureLineup = Schema.Struct({
  team: Schema.Struct({ id: Text, name: Maybe(Schema.String) }),
  formation: Maybe(Schema.String),
  startXI: Maybe(Schema.Array(LineupPlayer)),
  substitutes: Maybe(Schema.Array(LineupPlayer))
})

/** One statistic: an integer, a text ("58%"), or null. */
export const Statistic = Schema.Struct({
  type: Schema.String,
  value: Maybe(Schema.Union([Schema.Number, Schema.String]))
})

/** One team's statistics (`/fixtures/statistics`, or inline in `/fixtures?id=`). */
export const FixtureStatistics = Schema.Struct({
  team: Schema.Struct({ id: Text, name: Maybe(Schema.String) }),
  statistics: Maybe(Schema.Array(Statistic))
})

const startsAtOf = (
  fixture: { readonly date?: string | null | undefined; readonly timestamp?: number | null | undefined }
): number =>
  fixture.timestamp !== undefined && fixture.timestamp !== null
    ? fixture.timestamp * 1000
    : Date.parse(fixture.date ?? "")

/** One fixture item; a fixture asked by id also has its events, line-ups, statistics and players inline. */
export const Fixture = Schema.Struct({
  fixture: Schema.Struct({
    id: Text,
    referee: Maybe(Schema.String),
    timezone: Maybe(Schema.String),
    date: Maybe(Schema.String),
    /** Unix seconds. */
    timestamp: Maybe(Integer),
    status: FixtureStatus
  }).check(Schema.makeFilter((fixture) => Number.isFinite(startsAtOf(fixture)) || "a timestamp or a date")),
  league: Schema.Struct({
    id: Text,
    name: Schema.String,
    country: Maybe(Schema.String),
    logo: Maybe(Schema.String),
    flag: Maybe(Schema.String),
    season: Maybe(Integer),
    round: Maybe(Schema.String)
  }),
  teams: Schema.Struct({ home: FixtureTeam, away: FixtureTeam }),
  goals: Maybe(Goals),
  score: Maybe(Score),
  // Events and players are not mapped: any items are kept as they come.
  events: Maybe(Schema.Array(Schema.Unknown)),
  lineups: Maybe(Schema.Array(FixtureLineup)),
  statistics: Maybe(Schema.Array(FixtureStatistics)),
  players: Maybe(Schema.Array(Schema.Unknown))
})
export type Fixture = typeof Fixture.Type

export const FixturesResponse = Schema.Array(Fixture)

/**
 * Each status code (`fixture.status.short`, ../shared/spec/api-football.md) in the life cycle, and whether it tells a
 * reason (its `status.long`, or these words when the answer has none): plain kick-off, play and full time do not.
 */
const fixtureStatuses: Readonly<Record<string, { readonly status: EventStatus; readonly reason?: string }>> = {
  NS: { status: "scheduled" },
  TBD: { status: "scheduled", reason: "Time To Be Defined" },
  "1H": { status: "live" },
  HT: { status: "live" },
  "2H": { status: "live" },
  ET: { status: "live" },
  BT: { status: "live" },
  P: { status: "live" },
  LIVE: { status: "live" },
  FT: { status: "final" },
  AET: { status: "final" },
  PEN: { status: "final" },
  AWD: { status: "final", reason: "Technical Loss" },
  WO: { status: "final", reason: "WalkOver" },
  PST: { status: "postponed", reason: "Match Postponed" },
  CANC: { status: "cancelled", reason: "Match Cancelled" },
  ABD: { status: "abandoned", reason: "Match Abandoned" },
  SUSP: { status: "suspended", reason: "Match Suspended" },
  INT: { status: "suspended", reason: "Match Interrupted" }
}

/**
 * A fixture's status (`fixture.status.short`, with its `long` words) in the life cycle, with the provider's reason
 * where the code tells one; a code not known is `suspended` (neither in play nor final), said so.
 */
export const statusOf = (
  short: string,
  long?: string | null
): { readonly status: EventStatus; readonly reason?: StatusReason } => {
  const code = short.trim().toUpperCase()
  const known = fixtureStatuses[code]
  const words = long?.trim() || undefined
  if (known === undefined) return { status: "suspended", reason: { code, text: words ?? "Status not documented" } }
  return known.reason === undefined
    ? { status: known.status }
    : { status: known.status, reason: { code, text: words ?? known.reason } }
}

/** A country's code from its flag's address (".../flags/gb.svg" is "gb", ".../flags/gb-eng.svg" "gb-eng"). */
const countryOfFlag = (flag: string | null | undefined): string | null => {
  const name = /([^/]+?)(?:\.[a-z]+)?$/i.exec((flag ?? "").split(/[?#]/)[0].trim())?.[1]
  return name !== undefined && /^[a-z]{2}(?:-[a-z0-9]+)*$/i.test(name) ? name.toLowerCase() : null
}

const hasStartingEleven = (fixture: Fixture) =>
  (fixture.lineups ?? []).some((lineup) => (lineup.startXI ?? []).length > 0)

/**
 * A fixture as the gateway's event. The teams take the league's country (a fixture names none of its own).
 * `hasOdds` is false: API-Football does not say per fixture whether it has odds (only `/odds/mapping`, a separate
 * paged list, does), so no fixture claims any.
 */
export const toEvent = (fixture: Fixture): SportsEvent => {
  const countryCode = countryOfFlag(fixture.league.flag)
  const team = (raw: typeof FixtureTeam.Type): SportsTeam => ({ id: raw.id, name: raw.name, countryCode })
  const home = fixture.goals?.home
  const away = fixture.goals?.away
  return {
    id: fixture.fixture.id,
    sportId: soccer,
    league: { id: fixture.league.id, name: fixture.league.name, sportId: soccer, countryCode },
    home: team(fixture.teams.home),
    away: team(fixture.teams.away),
    startsAt: new Date(startsAtOf(fixture.fixture)),
    ...statusOf(fixture.fixture.status.short, fixture.fixture.status.long),
    score: typeof home === "number" && typeof away === "number" ? `${home}-${away}` : null,
    minute: fixture.fixture.status.elapsed ?? null,
    hasLineup: hasStartingEleven(fixture),
    hasOdds: false
  }
}

export const toEvents = (response: typeof FixturesResponse.Type): ReadonlyArray<SportsEvent> => response.map(toEvent)

/** The starting elevens of the inline line-ups, matched to the sides by team id; `undefined` when both are empty. */
export const toLineup = (fixture: Fixture): Lineup | undefined => {
  const names = (teamId: string) =>
    (fixture.lineups ?? []).find((lineup) => lineup.team.id === teamId)?.startXI?.map((entry) => entry.player.name)
      ?? []
  const lineup = { home: names(fixture.teams.home.id), away: names(fixture.teams.away.id) }
  return lineup.home.length === 0 && lineup.away.length === 0 ? undefined : lineup
}

const statisticNames: Readonly<Record<string, string>> = {
  "Ball Possession": "possession",
  "Shots on Goal": "shots_on_target",
  "Shots off Goal": "shots_off_target",
  "Corner Kicks": "corners",
  "Yellow Cards": "yellow_cards",
  "Red Cards": "red_cards"
}

/** A statistic's value: a whole number, as a number or a text ("58", "58%"); anything else is no value. */
const statisticValue = (raw: number | string | null | undefined): number | undefined => {
  if (typeof raw === "number") return Number.isSafeInteger(raw) && raw >= 0 ? raw : undefined
  const digits = /^\s*(\d+)\s*%?\s*$/.exec(raw ?? "")?.[1]
  return digits === undefined ? undefined : Number(digits)
}

/** The known statistics of the inline `statistics`, per side matched by team id; `undefined` when none is known. */
export const toStatistics = (fixture: Fixture): StatsTrend | undefined => {
  const stats: Record<string, number> = {}
  const sides = [["home", fixture.teams.home.id], ["away", fixture.teams.away.id]] as const
  for (const [side, teamId] of sides) {
    const team = (fixture.statistics ?? []).find((entry) => entry.team.id === teamId)
    for (const statistic of team?.statistics ?? []) {
      const name = statisticNames[statistic.type]
      const value = statisticValue(statistic.value)
      if (name !== undefined && value !== undefined) stats[`${name}_${side}`] = value
    }
  }
  return Object.keys(stats).length === 0 ? undefined : stats
}

const finalCodes = new Set(["FT", "AET", "PEN", "AWD", "WO"])

/**
 * A fixture's result: final once its status is FT, AET, PEN, AWD or WO and both goals are known (an award or a
 * walkover without goals is Unknown). The winner is the side the provider flags; else the goals decide, and for a
 * shoot-out (PEN: the goals are level) with no flag, the penalties do.
 */
export const toResult = (fixture: Fixture | undefined): ResultOutcome => {
  if (fixture === undefined) return { _tag: "Unknown" }
  const short = fixture.fixture.status.short.trim().toUpperCase()
  if (!finalCodes.has(short)) return { _tag: "NotFinished", ...statusOf(short, fixture.fixture.status.long) }
  const homeScore = fixture.goals?.home
  const awayScore = fixture.goals?.away
  if (typeof homeScore !== "number" || typeof awayScore !== "number") return { _tag: "Unknown" }
  const byScore = (home: number, away: number) => home > away ? "home" : home < away ? "away" : "draw"
  const penalty = fixture.score?.penalty
  const winner = fixture.teams.home.winner === true
    ? "home"
    : fixture.teams.away.winner === true
    ? "away"
    : short === "PEN" && homeScore === awayScore && typeof penalty?.home === "number"
        && typeof penalty.away === "number"
    ? byScore(penalty.home, penalty.away)
    : byScore(homeScore, awayScore)
  return { _tag: "Result", result: { eventId: fixture.fixture.id, homeScore, awayScore, winner } }
}
