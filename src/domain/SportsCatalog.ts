import { Schema } from "effect"
import { countryName } from "./Countries.ts"
import {
  type EventStatus,
  eventStatuses,
  minuteOf,
  type SportsEvent,
  type SportsLeague,
  StatusReason
} from "./Sports.ts"

/**
 * The local sports catalog as the service speaks about it: what it holds
 * (sports, countries, leagues, teams, events), what a refresh reports, and
 * the errors of a query that cannot be answered. Its rules (how a query is
 * read) are in SportsCatalogQuery.ts.
 */

/** The two feeds: events not started yet, and events in play. */
export type EventSource = "prematch" | "live"

/**
 * An event's status in the catalog's own words (sql/0003, sql/0045): the feed an open event is on (`prematch`,
 * `live`), or how it left them. The feeds' indexes are written in these words, so the catalog keeps them; it answers
 * in the life cycle's (lifeCycleStatusOf).
 */
export const catalogStatuses = [
  "prematch",
  "live",
  "ended",
  "postponed",
  "cancelled",
  "abandoned",
  "interrupted"
] as const
export type CatalogStatus = (typeof catalogStatuses)[number]

const lifeCycleStatuses: Readonly<Record<CatalogStatus, EventStatus>> = {
  prematch: "scheduled",
  live: "live",
  ended: "final",
  postponed: "postponed",
  cancelled: "cancelled",
  abandoned: "abandoned",
  interrupted: "suspended"
}

/** A catalog status in the life cycle's words, as the feeds answer it (SportsCatalogPublish's catalogStatus undone). */
export const lifeCycleStatusOf = (status: CatalogStatus): EventStatus => lifeCycleStatuses[status]

/** An event as the feeds list it (an open one; with `since`, also one that left them). */
export const FeedEvent = Schema.Struct({
  id: Schema.String,
  sportId: Schema.Int,
  countryCode: Schema.NullOr(Schema.String),
  leagueId: Schema.String,
  leagueName: Schema.String,
  homeName: Schema.String,
  awayName: Schema.String,
  startsAt: Schema.Date,
  status: Schema.Literals(catalogStatuses),
  /** Why it has its status, where the provider said so (the provider's event's `reason`). */
  reason: Schema.NullOr(StatusReason),
  score: Schema.NullOr(Schema.String),
  minute: Schema.NullOr(Schema.Int),
  hasOdds: Schema.Boolean,
  lastUpdate: Schema.Date
})
export type FeedEvent = typeof FeedEvent.Type

/** A league or a team. */
export const NamedRecord = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  countryCode: Schema.NullOr(Schema.String),
  sportId: Schema.Int,
  active: Schema.Boolean
})
export type NamedRecord = typeof NamedRecord.Type

export const SportRecord = Schema.Struct({ id: Schema.Int, name: Schema.String, active: Schema.Boolean })
export type SportRecord = typeof SportRecord.Type

export const CountryRecord = Schema.Struct({ code: Schema.String, name: Schema.String, active: Schema.Boolean })
export type CountryRecord = typeof CountryRecord.Type

const countryOf = (code: string | null) => code === null ? null : countryName(code)

/** An event as the prematch feed answers it: its country by name, its status in the life cycle's words. */
export const FeedEntry = Schema.Struct({
  id: FeedEvent.fields.id,
  sportId: FeedEvent.fields.sportId,
  country: Schema.NullOr(Schema.String),
  leagueId: FeedEvent.fields.leagueId,
  leagueName: FeedEvent.fields.leagueName,
  homeName: FeedEvent.fields.homeName,
  awayName: FeedEvent.fields.awayName,
  startsAt: FeedEvent.fields.startsAt,
  hasOdds: FeedEvent.fields.hasOdds,
  lastUpdate: FeedEvent.fields.lastUpdate,
  status: Schema.Literals(eventStatuses),
  reason: FeedEvent.fields.reason
})
export type FeedEntry = typeof FeedEntry.Type

/** An event in play as the live feed answers it: the score so far ("" before any) and the minute. */
export const LiveFeedEntry = Schema.Struct({ ...FeedEntry.fields, score: Schema.String, minute: Schema.Int })
export type LiveFeedEntry = typeof LiveFeedEntry.Type

export const feedEntryOf = (
  { countryCode, minute: _minute, score: _score, status, ...event }: FeedEvent
): FeedEntry => ({
  ...event,
  country: countryOf(countryCode),
  status: lifeCycleStatusOf(status)
})

/** `now` (epoch millis) dates the minute of a sport without a match clock. */
export const liveEntryOf = (event: FeedEvent, now: number): LiveFeedEntry => ({
  ...feedEntryOf(event),
  score: event.score ?? "",
  minute: minuteOf(event, now)
})

/** A league or a team as the lists answer it: its country by name and by code. */
export const NamedEntry = Schema.Struct({
  id: NamedRecord.fields.id,
  name: NamedRecord.fields.name,
  country: Schema.NullOr(Schema.String),
  countryCode: NamedRecord.fields.countryCode,
  sportId: NamedRecord.fields.sportId,
  active: NamedRecord.fields.active
})
export type NamedEntry = typeof NamedEntry.Type

export const namedEntryOf = (record: NamedRecord): NamedEntry => ({ ...record, country: countryOf(record.countryCode) })

/** Active records of each kind. */
export const SportsCatalogOverview = Schema.Struct({
  sports: Schema.Int,
  countries: Schema.Int,
  leagues: Schema.Int,
  teams: Schema.Int,
  events: Schema.Int
})
export type SportsCatalogOverview = typeof SportsCatalogOverview.Type

/** The dynamic filters: the names each facet still offers, sorted. */
export interface Facets {
  readonly sports: ReadonlyArray<string>
  readonly countries: ReadonlyArray<string>
  readonly leagues: ReadonlyArray<string>
  readonly teams: ReadonlyArray<string>
}

/** A refresh as asked for: a sport (an id or a name) or every configured one; leagues, events or both. */
export interface RefreshRequest {
  readonly sport?: number | string | null | undefined
  readonly importLeagues?: boolean | undefined
  readonly importEvents?: boolean | undefined
}

/** What a refresh covers. */
export interface RefreshScope {
  readonly sportIds: ReadonlyArray<number>
  readonly leagues: boolean
  readonly events: boolean
  /** Only events in play (and those that just ended): the frequent, light refresh. */
  readonly liveOnly: boolean
}

/** Everything the provider listed for a scope, fetched before anything is written. */
export interface Snapshot {
  /**
   * The provider whose world it is (its `name`: `betsapi`, `sandbox`): its ids are that provider's, so the catalog
   * publishing it holds its rows and no other provider's.
   */
  readonly provider: string
  readonly scope: RefreshScope
  readonly leagues: ReadonlyArray<SportsLeague>
  readonly events: ReadonlyArray<SportsEvent>
  /** When the provider gave the answer each event came from (epoch millis, by event id); unknown: when published. */
  readonly answeredAt?: ReadonlyMap<string, number> | undefined
}

/** What publishing a refresh did. */
export interface PublishReport {
  readonly sports: number
  readonly countries: number
  readonly leagues: number
  readonly teams: number
  readonly events: number
  /** Rows added or changed by this refresh. */
  readonly changed: number
  /** Records the provider stopped listing, now inactive. */
  readonly deactivated: number
}

export interface RefreshOutcome {
  readonly scope: RefreshScope
  readonly report: PublishReport
}

/** A query that cannot be answered as asked; field -> messages, for a 422. */
export class InvalidSportsCatalogQuery
  extends Schema.TaggedError<InvalidSportsCatalogQuery>()("InvalidSportsCatalogQuery", {
    errors: Schema.Record(Schema.String, Schema.Array(Schema.String))
  })
{}
