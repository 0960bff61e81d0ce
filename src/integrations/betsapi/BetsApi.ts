import { Schema, SchemaGetter } from "effect"
import type {
  EventStatus,
  Lineup,
  OddsMarket,
  Page,
  SportsEvent,
  SportsLeague,
  SportsTeam,
  StatsTrend,
  StatusReason
} from "../../domain/Sports.ts"
import { oddsValue, winnerOf } from "../../domain/Sports.ts"
import type { ResultOutcome } from "../../sports/ProviderProtocol.ts"

/**
 * The BetsAPI-style protocol (../shared/spec/upstreams.md): its paths, the
 * shapes of its answers, and how they map to the domain's. Both BetsAPI over
 * HTTP and the sandbox's sports data speak it, so one mapping serves both.
 * Public clients disagree on types (numbers as strings and back), so fields
 * are decoded leniently, but a payload that does not fit is refused.
 */

export const paths = {
  leagues: "/v1/league",
  upcoming: "/v3/events/upcoming",
  inplay: "/v3/events/inplay",
  ended: "/v3/events/ended",
  view: "/v1/event/view",
  odds: "/v2/event/odds",
  lineup: "/v1/event/lineup",
  statsTrend: "/v1/event/stats_trend",
  result: "/v1/bet365/result"
} as const

export type Path = (typeof paths)[keyof typeof paths]

const Text = Schema.Union([Schema.String, Schema.Number]).pipe(
  Schema.decodeTo(Schema.String, {
    decode: SchemaGetter.transform((value: string | number) => String(value)),
    encode: SchemaGetter.transform((value: string) => value)
  })
)

const Integer = Schema.Union([Schema.Number, Schema.String]).pipe(
  Schema.decodeTo(Schema.Number, {
    decode: SchemaGetter.transform((value: string | number) => typeof value === "number" ? value : Number(value)),
    encode: SchemaGetter.transform((value: number) => value)
  })
).check(Schema.isInt())

const Maybe = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))

/** Every answer: `success` 1 with results, or 0 with an error code. */
export const Answer = Schema.Struct({
  success: Integer,
  error: Maybe(Schema.String),
  error_detail: Maybe(Schema.Unknown)
})

const Pager = Schema.Struct({ page: Integer, per_page: Integer, total: Integer })

const Team = Schema.Struct({ id: Text, name: Schema.String, cc: Maybe(Schema.String) })

const Event = Schema.Struct({
  id: Text,
  sport_id: Integer,
  time: Integer,
  time_status: Integer,
  league: Schema.Struct({ id: Text, name: Schema.String, cc: Maybe(Schema.String) }),
  home: Team,
  away: Team,
  ss: Maybe(Schema.String),
  timer: Maybe(Schema.Struct({ tm: Maybe(Integer) })),
  has_lineup: Maybe(Integer),
  bet365_id: Maybe(Text)
})
type Event = typeof Event.Type

export const LeaguesAnswer = Schema.Struct({
  pager: Pager,
  results: Schema.Array(Schema.Struct({ id: Text, name: Schema.String, cc: Maybe(Schema.String) }))
})

export const EventsAnswer = Schema.Struct({ pager: Maybe(Pager), results: Schema.Array(Event) })

export const ViewAnswer = Schema.Struct({ results: Schema.Array(Event) })

const OddsEntry = Schema.Record(Schema.String, Schema.Unknown)

export const OddsAnswer = Schema.Struct({
  results: Schema.Struct({
    odds: Maybe(Schema.Record(Schema.String, Schema.Array(OddsEntry)))
  })
})

const LineupPlayer = Schema.Struct({ player: Schema.Struct({ name: Schema.String }) })
const LineupSide = Schema.Struct({ startinglineup: Maybe(Schema.Array(LineupPlayer)) })

export const LineupAnswer = Schema.Struct({
  results: Maybe(Schema.Struct({ home: Maybe(LineupSide), away: Maybe(LineupSide) }))
})

const TrendPoint = Schema.Struct({ val: Integer })
const TrendSides = Schema.Struct({ home: Maybe(Schema.Array(TrendPoint)), away: Maybe(Schema.Array(TrendPoint)) })

export const StatsTrendAnswer = Schema.Struct({
  results: Maybe(Schema.Record(Schema.String, Schema.NullOr(TrendSides)))
})

export const ResultAnswer = Schema.Struct({
  results: Schema.Array(Schema.Struct({
    id: Text,
    time_status: Integer,
    ss: Maybe(Schema.String),
    home: Maybe(Team),
    away: Maybe(Team)
  }))
})

// ---- mapping into the domain's shapes

/**
 * Each `time_status` (../shared/spec/upstreams.md) in the life cycle, with the code's meaning as the reason where it
 * says more than the status: BetsAPI gives a code, no words of its own. A walkover is final (its score, where it
 * gives one, is the result); a retirement (tennis) is abandoned, not final: the score does not tell who won.
 */
const timeStatuses: Readonly<Record<number, { readonly status: EventStatus; readonly reason?: string }>> = {
  0: { status: "scheduled" },
  1: { status: "live" },
  2: { status: "scheduled", reason: "To be fixed" },
  3: { status: "final" },
  4: { status: "postponed", reason: "Postponed" },
  5: { status: "cancelled", reason: "Cancelled" },
  6: { status: "final", reason: "Walkover" },
  7: { status: "suspended", reason: "Interrupted" },
  8: { status: "abandoned", reason: "Abandoned" },
  9: { status: "abandoned", reason: "Retired" },
  99: { status: "cancelled", reason: "Removed" }
}

/** A `time_status` in the life cycle; a code not documented is `suspended` (neither in play nor final), said so. */
export const statusOf = (timeStatus: number): { readonly status: EventStatus; readonly reason?: StatusReason } => {
  const known = timeStatuses[timeStatus]
  const code = String(timeStatus)
  if (known === undefined) return { status: "suspended", reason: { code, text: "Status not documented" } }
  return known.reason === undefined ? { status: known.status } : {
    status: known.status,
    reason: { code, text: known.reason }
  }
}

const team = (raw: typeof Team.Type): SportsTeam => ({ id: raw.id, name: raw.name, countryCode: raw.cc ?? null })

export const toEvent = (raw: Event): SportsEvent => ({
  id: raw.id,
  sportId: raw.sport_id,
  league: { id: raw.league.id, name: raw.league.name, sportId: raw.sport_id, countryCode: raw.league.cc ?? null },
  home: team(raw.home),
  away: team(raw.away),
  startsAt: new Date(raw.time * 1000),
  ...statusOf(raw.time_status),
  score: raw.ss ?? null,
  minute: raw.timer?.tm ?? null,
  hasLineup: (raw.has_lineup ?? 0) === 1,
  hasOdds: raw.bet365_id !== undefined && raw.bet365_id !== null && raw.bet365_id !== ""
})

export const toLeagues = (answer: typeof LeaguesAnswer.Type, sportId: number): Page<SportsLeague> => ({
  results: answer.results.map((league) => ({
    id: league.id,
    name: league.name,
    sportId,
    countryCode: league.cc ?? null
  })),
  page: answer.pager.page,
  perPage: answer.pager.per_page,
  total: answer.pager.total
})

export const toEvents = (answer: typeof EventsAnswer.Type, page: number): Page<SportsEvent> => ({
  results: answer.results.map(toEvent),
  page: answer.pager?.page ?? page,
  perPage: answer.pager?.per_page ?? answer.results.length,
  total: answer.pager?.total ?? answer.results.length
})

const marketNames: Readonly<Record<string, string>> = {
  "1_1": "Full Time Result",
  "1_2": "Asian Handicap",
  "1_3": "Goals Over/Under",
  "1_4": "Asian Corners",
  "1_5": "1st Half Asian Handicap",
  "1_6": "1st Half Goals Over/Under",
  "1_7": "1st Half Asian Corners",
  "1_8": "Half Time Result",
  "18_1": "Money Line",
  "18_2": "Spread",
  "18_3": "Total Points",
  "13_1": "To Win Match",
  "17_1": "Money Line",
  "17_2": "Puck Line",
  "17_3": "Total Goals"
}

export { oddsValue }

/** A handicap line from the home side ("-0.5", "0.0,-0.5"), signed, and its mirror for the away side. */
const handicapLines = (raw: unknown): { home: string; away: string } | undefined => {
  if (raw === undefined || raw === null || String(raw).trim() === "") return undefined
  const parts = String(raw).split(",").map((part) => part.trim().replace(/^\+/, ""))
  const signed = (value: number, text: string) => value > 0 ? `+${text}` : value < 0 ? `-${text}` : text
  const home = parts.map((part) => signed(Number(part), part.replace(/^-/, "")))
  const away = parts.map((part) => signed(-Number(part), part.replace(/^-/, "")))
  return { home: home.join(","), away: away.join(",") }
}

/** One market entry (the latest of its history) as labelled odds; values that are not numbers are dropped. */
const marketOdds = (entry: Readonly<Record<string, unknown>>) => {
  const odds: Array<{ label: string; value: number | undefined }> = []
  if ("over_od" in entry || "under_od" in entry) {
    odds.push({ label: `Over ${entry.handicap ?? ""}`.trim(), value: oddsValue(entry.over_od) })
    odds.push({ label: `Under ${entry.handicap ?? ""}`.trim(), value: oddsValue(entry.under_od) })
  } else if ("draw_od" in entry) {
    odds.push({ label: "Home", value: oddsValue(entry.home_od) })
    odds.push({ label: "Draw", value: oddsValue(entry.draw_od) })
    odds.push({ label: "Away", value: oddsValue(entry.away_od) })
  } else {
    const lines = handicapLines(entry.handicap)
    odds.push({ label: lines ? `Home ${lines.home}` : "Home", value: oddsValue(entry.home_od) })
    odds.push({ label: lines ? `Away ${lines.away}` : "Away", value: oddsValue(entry.away_od) })
  }
  return odds.filter((odd): odd is { label: string; value: number } => odd.value !== undefined)
}

const isInPlay = (entry: Readonly<Record<string, unknown>>) => typeof entry.ss === "string" && entry.ss !== ""

/** "1_2" before "1_10" before "18_1": market keys compare by their numbers. */
const marketOrder = (a: string, b: string) => {
  const [sportA, marketA] = a.split("_").map(Number)
  const [sportB, marketB] = b.split("_").map(Number)
  return sportA - sportB || marketA - marketB || a.localeCompare(b)
}

/**
 * Markets from an odds history (latest first): pre-match odds are the
 * latest entry taken before kick-off, in-play odds the latest taken during
 * the game. A market left with no numeric odds is left out.
 */
export const toOdds = (answer: typeof OddsAnswer.Type, inPlay: boolean): ReadonlyArray<OddsMarket> => {
  const markets: Array<OddsMarket> = []
  for (const [key, history] of Object.entries(answer.results.odds ?? {})) {
    const latest = history.find((entry) => isInPlay(entry) === inPlay)
    if (latest === undefined) continue
    const odds = marketOdds(latest)
    const quoted = Number(latest.add_time)
    if (odds.length > 0) {
      markets.push({
        key,
        name: marketNames[key] ?? `Market ${key}`,
        odds,
        ...(Number.isSafeInteger(quoted) && quoted > 0 ? { quotedAt: quoted * 1000 } : {})
      })
    }
  }
  return markets.sort((a, b) => marketOrder(a.key, b.key))
}

export const toLineup = (answer: typeof LineupAnswer.Type): Lineup | undefined => {
  const names = (side: typeof LineupSide.Type | null | undefined) =>
    (side?.startinglineup ?? []).map((entry) => entry.player.name)
  const lineup = { home: names(answer.results?.home), away: names(answer.results?.away) }
  return lineup.home.length === 0 && lineup.away.length === 0 ? undefined : lineup
}

const statNames: Readonly<Record<string, string>> = {
  possession_rt: "possession",
  on_target: "shots_on_target",
  off_target: "shots_off_target",
  corners: "corners",
  attacks: "attacks",
  dangerous_attacks: "dangerous_attacks",
  yellowcards: "yellow_cards",
  redcards: "red_cards"
}

/** The latest value of each known statistic, per side. */
export const toStatsTrend = (answer: typeof StatsTrendAnswer.Type): StatsTrend | undefined => {
  const stats: Record<string, number> = {}
  for (const [key, sides] of Object.entries(answer.results ?? {})) {
    const name = statNames[key]
    if (name === undefined || sides === null) continue
    const home = sides.home?.at(-1)?.val
    const away = sides.away?.at(-1)?.val
    if (home !== undefined) stats[`${name}_home`] = home
    if (away !== undefined) stats[`${name}_away`] = away
  }
  return Object.keys(stats).length === 0 ? undefined : stats
}

export const toResult = (answer: typeof ResultAnswer.Type): ResultOutcome => {
  const event = answer.results[0]
  if (event === undefined) return { _tag: "Unknown" }
  const { reason, status } = statusOf(event.time_status)
  const score = /^(\d+)-(\d+)$/.exec(event.ss ?? "")
  if (status !== "final" || score === null) return { _tag: "NotFinished", status, reason }
  const homeScore = Number(score[1])
  const awayScore = Number(score[2])
  return { _tag: "Result", result: { eventId: event.id, homeScore, awayScore, winner: winnerOf(homeScore, awayScore) } }
}
