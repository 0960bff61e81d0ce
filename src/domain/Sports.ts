import { Schema } from "effect"

/**
 * Sports data as the gateway speaks about it, whatever the provider behind.
 * Ids are strings (the providers' own); times are UTC.
 */

/** The BetsAPI sport ids, which the gateway keeps as its own. */
export const sportNames: Readonly<Record<number, string>> = {
  1: "Soccer",
  18: "Basketball",
  13: "Tennis",
  17: "Ice Hockey",
  91: "Volleyball",
  78: "Handball",
  16: "Baseball",
  12: "American Football",
  151: "E-sports"
}

/**
 * Where an event is in its life cycle, whatever the provider's words (each integration maps its own codes):
 * `scheduled` (not started), `live` (in play), `final` (finished, its result settled by the provider), `postponed`
 * (to another date), `cancelled` (will not be played), `abandoned` (started and stopped for good), `suspended`
 * (stopped, may resume; also an event the provider still calls in play long past its kick-off: see
 * SportsLifecycle.ts).
 */
export const eventStatuses = ["scheduled", "live", "final", "postponed", "cancelled", "abandoned", "suspended"] as const
export type EventStatus = (typeof eventStatuses)[number]

/**
 * Why an event has its status, where the provider says so: the provider's own code (API-Football's `PST`, BetsAPI's
 * `time_status` `4`) and its words (API-Football's `status.long`; BetsAPI's documented meaning of the code). The
 * service's own reason, for an event stuck in play, has the code `overdue`.
 */
export const StatusReason = Schema.Struct({ code: Schema.String, text: Schema.String })
export type StatusReason = typeof StatusReason.Type

export interface SportsTeam {
  readonly id: string
  readonly name: string
  readonly countryCode: string | null
}

export const SportsLeague = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  sportId: Schema.Int,
  countryCode: Schema.NullOr(Schema.String)
})
export type SportsLeague = typeof SportsLeague.Type

export interface SportsEvent {
  readonly id: string
  readonly sportId: number
  readonly league: SportsLeague
  readonly home: SportsTeam
  readonly away: SportsTeam
  readonly startsAt: Date
  readonly status: EventStatus
  /** Why it has its status, where the provider says so (postponed, cancelled, abandoned, suspended, a walkover...). */
  readonly reason?: StatusReason | undefined
  /**
   * When the service first saw it final (its record of results, sql/0042), where it holds one: no provider gives
   * the time a match ended.
   */
  readonly finalAt?: Date | undefined
  /** "2-1", or null before it starts. */
  readonly score: string | null
  readonly minute: number | null
  readonly hasLineup: boolean
  /** The provider links odds to the event (BetsAPI: a bet365_id). */
  readonly hasOdds: boolean
}

/** An event as the provider's lists answer it: who plays, in which league. */
export const EventSummary = Schema.Struct({
  id: Schema.String,
  homeName: Schema.String,
  awayName: Schema.String,
  leagueId: Schema.String,
  leagueName: Schema.String
})
export type EventSummary = typeof EventSummary.Type

export const summaryOf = (event: SportsEvent): EventSummary => ({
  id: event.id,
  homeName: event.home.name,
  awayName: event.away.name,
  leagueId: event.league.id,
  leagueName: event.league.name
})

/**
 * The `minute` partners get, an integer for every sport: the match clock
 * where the provider keeps one (soccer, basketball, ...); where a sport has
 * no clock (tennis, volleyball, ...), whole minutes since the start, 0
 * before it.
 */
export const minuteOf = (event: { readonly minute: number | null; readonly startsAt: Date }, now: number): number =>
  event.minute ?? Math.max(0, Math.floor((now - event.startsAt.getTime()) / 60_000))

/** A provider's page of a list: the paging type every list shares. */
export type { Page } from "./Paging.ts"

export interface Odd {
  readonly label: string
  readonly value: number
}

export interface OddsMarket {
  readonly key: string
  readonly name: string
  readonly odds: ReadonlyArray<Odd>
  /** When the provider quoted these prices (epoch millis), when it says (BetsAPI's add_time). */
  readonly quotedAt?: number | undefined
}

/** An odds value as a provider sends it ("1.833", 1.833, "EVS", "-"): a finite decimal above 1, or nothing. */
export const oddsValue = (raw: unknown): number | undefined => {
  const value = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : Number.NaN
  return Number.isFinite(value) && value > 1 ? value : undefined
}

export interface Lineup {
  readonly home: ReadonlyArray<string>
  readonly away: ReadonlyArray<string>
}

/** Latest value of each statistic, per side. */
export type StatsTrend = Readonly<Record<string, number>>

/** The statistics' totals at one minute of a match, as the gateway sampled them. */
export interface StatSample {
  readonly minute: number
  readonly stats: StatsTrend
  readonly sampledAt: Date
}

/**
 * An event's statistics: the latest values, and how they moved (the samples the gateway kept, where the provider
 * answers totals rather than a series; none otherwise).
 */
export interface StatsReport {
  readonly latest: StatsTrend
  readonly samples: ReadonlyArray<StatSample>
}

/** A final score and who won it (the provider's word where it flags a winner: a shoot-out's). */
export const FinalScore = Schema.Struct({
  homeScore: Schema.Int,
  awayScore: Schema.Int,
  winner: Schema.Literals(["home", "away", "draw"])
})
export type FinalScore = typeof FinalScore.Type

export const EventResult = Schema.Struct({ eventId: Schema.String, ...FinalScore.fields })
export type EventResult = typeof EventResult.Type

/** The winner a score gives. */
export const winnerOf = (homeScore: number, awayScore: number): FinalScore["winner"] =>
  homeScore > awayScore ? "home" : homeScore < awayScore ? "away" : "draw"

/**
 * What the service's record of results (sql/0042) says of a final result: when it first saw it final, and its last
 * correction (when, and the result it replaced), so every instance answers the same, after any restart.
 */
export interface Settlement {
  readonly finalAt: Date
  readonly correctedAt: Date | null
  readonly previous: FinalScore | null
}

/** A final result as the result endpoint answers it: the provider's, with the service's record of it where it keeps one. */
export interface SettledResult extends EventResult {
  readonly settlement?: Settlement | undefined
}

/** The operations a sports provider answers, as the status endpoint lists them. */
export const sportsCapabilities = [
  "leagues",
  "upcoming-events",
  "live-events",
  "live-event",
  "ended-events",
  "event-odds",
  "event-live-odds",
  "event-lineup",
  "event-stats-trend",
  "event-result"
] as const
export type SportsCapability = (typeof sportsCapabilities)[number]

/**
 * An id as the provider knows it: BetsAPI's ids are numbers, so a numeric
 * id is compared and sent without leading zeros ("094" is league 94); any
 * other id is kept as given, trimmed.
 */
export const canonicalId = (id: string): string => {
  const trimmed = id.trim()
  return /^\d+$/.test(trimmed) ? trimmed.replace(/^0+(?=\d)/, "") : trimmed
}
