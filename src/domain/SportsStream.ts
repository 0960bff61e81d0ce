import { Schema } from "effect"
import { oddsFormats } from "./OddsFormat.ts"
import { type ChangeKind, changeKinds } from "./SportsChanges.ts"
import { sportIdsOf } from "./SportsCatalogQuery.ts"
import { canonicalId } from "./Sports.ts"

/**
 * The live sports change stream as a partner holds it: which changes it
 * carries (its filter) and the two events of the stream itself, `connected`
 * and `reset`, in their wire form (see SportsChanges.ts for why). Pure.
 */

// Connected and Reset are wire records, as partners receive them; the service computes with StreamFilter (below).

/** A position in the log, as a stream's event ids carry it (decimal digits). */
const PositionText = Schema.String.annotate({ description: "A position in the change log", examples: ["1048576"] })

/** The first event of every stream. Its id is the position the stream goes on from. */
export const Connected = Schema.Struct({
  resume_from: PositionText,
  environment: Schema.Literals(["live", "test"]),
  filters: Schema.Struct({
    sport_id: Schema.NullOr(Schema.Array(Schema.Int)),
    league_id: Schema.NullOr(Schema.Array(Schema.String)),
    event_id: Schema.NullOr(Schema.Array(Schema.String)),
    kinds: Schema.NullOr(Schema.Array(Schema.Literals(changeKinds)))
  }).annotate({ description: "The filters as read (null: any)" }),
  heartbeat_seconds: Schema.Finite,
  retention_seconds: Schema.Finite,
  stale_after_seconds: Schema.Finite,
  odds_format: Schema.Literals(oddsFormats).annotate({
    description: "The format of the prices of this stream's odds changes (`odds_format`; decimal unless asked)"
  })
}).annotate({ identifier: "SportsStreamConnected" })
export type Connected = typeof Connected.Encoded

export const resetReasons = ["expired", "slow_reader", "unknown_position"] as const
export type ResetReason = (typeof resetReasons)[number]

/**
 * The stream cannot go on from where the client was: re-read the feeds (what they show now), then go on
 * from `resume_from` (the event's id: an EventSource resumes from it by itself).
 */
export const Reset = Schema.Struct({
  reason: Schema.Literals(resetReasons).annotate({
    description:
      "expired: Last-Event-ID is older than STREAM_RETENTION; unknown_position: it is no position of this log; " +
      "slow_reader: the client read too slowly and this connection is closed (reconnect with this id)"
  }),
  resume_from: PositionText,
  message: Schema.String
}).annotate({ identifier: "SportsStreamReset" })
export type Reset = typeof Reset.Encoded

const resetMessages: Record<ResetReason, string> = {
  expired: "Changes after your Last-Event-ID are no longer kept: re-read the feeds, then go on from this event's id.",
  unknown_position:
    "Your Last-Event-ID is no position of this log: re-read the feeds, then go on from this event's id.",
  slow_reader: "This stream was read too slowly and is closed: reconnect with this event's id as Last-Event-ID."
}

/** A reset's data. */
export const resetOf = (reason: ResetReason, resumeFrom: number): Reset => ({
  reason,
  resume_from: String(resumeFrom),
  message: resetMessages[reason]
})

/**
 * Which changes a stream carries: kinds, sports, leagues and events, each a
 * set (null: any). A change is carried when it meets every set given, any
 * member of each. Two queries that mean the same thing read to the same
 * filter, with the same `key` (sets sorted), so the streams sharing it share
 * one encoding of each batch of changes. Pure.
 */
export interface StreamFilter {
  readonly kinds: ReadonlySet<ChangeKind> | null
  readonly sportIds: ReadonlySet<number> | null
  readonly leagueIds: ReadonlySet<string> | null
  readonly eventIds: ReadonlySet<string> | null
  /** The filter as one string: equal filters, equal keys. */
  readonly key: string
}

/** The stream's query as decoded: each parameter repeatable, each value already checked by the contract. */
export interface StreamQuery {
  readonly sportIds?: ReadonlyArray<string> | undefined
  readonly leagueIds?: ReadonlyArray<string> | undefined
  readonly eventIds?: ReadonlyArray<string> | undefined
  readonly kinds?: ReadonlyArray<string> | undefined
}

const setOf = <A extends string | number>(values: ReadonlyArray<A> | undefined): ReadonlySet<A> | null =>
  values === undefined || values.length === 0 ? null : new Set([...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))

const keyOf = (set: ReadonlySet<string | number> | null) => set === null ? "*" : [...set].join(",")

/** A filter from the query: sports by id or name (`1`, `Soccer`; an unknown name matches nothing), ids as the provider's. */
export const streamFilterOf = (query: StreamQuery): StreamFilter => {
  const kinds = setOf(
    query.kinds?.filter((kind): kind is ChangeKind => (changeKinds as ReadonlyArray<string>).includes(kind))
  )
  const sportIds = query.sportIds === undefined || query.sportIds.length === 0
    ? null
    : new Set(query.sportIds.flatMap(sportIdsOf).sort((a, b) => a - b))
  const leagueIds = setOf(query.leagueIds?.map(canonicalId))
  const eventIds = setOf(query.eventIds?.map(canonicalId))
  return {
    kinds,
    sportIds,
    leagueIds,
    eventIds,
    key: [keyOf(kinds), keyOf(sportIds), keyOf(leagueIds), keyOf(eventIds)].join("|")
  }
}

/** Every change. */
export const everything: StreamFilter = streamFilterOf({})

/** Whether the filter carries a change of `kind` about this event. */
export const carries = (
  filter: StreamFilter,
  change: { readonly kind: ChangeKind; readonly sportId: number; readonly leagueId: string; readonly eventId: string }
): boolean =>
  (filter.kinds === null || filter.kinds.has(change.kind)) &&
  (filter.sportIds === null || filter.sportIds.has(change.sportId)) &&
  (filter.leagueIds === null || filter.leagueIds.has(change.leagueId)) &&
  (filter.eventIds === null || filter.eventIds.has(change.eventId))

/** The filter as the `connected` event echoes it (null: any). */
export const describeFilter = (filter: StreamFilter) => ({
  sport_id: filter.sportIds === null ? null : [...filter.sportIds],
  league_id: filter.leagueIds === null ? null : [...filter.leagueIds],
  event_id: filter.eventIds === null ? null : [...filter.eventIds],
  kinds: filter.kinds === null ? null : [...filter.kinds]
})
