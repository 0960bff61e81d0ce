import { Schema, SchemaTransformation } from "effect"
import { marketsIn, type OddsFormat, OddsValue } from "./OddsFormat.ts"
import { type EventStatus, eventStatuses, type Odd, type StatusReason } from "./Sports.ts"

/**
 * The live sports change stream as the service speaks about it: the kinds of
 * change, each change's data, and the records the log keeps of events and
 * markets. The rules that tell what changed are in SportsChangeRules.ts. Pure.
 *
 * A change's data is kept in the log as the stream sends it (snake_case, ISO
 * instants): it is encoded once, when written, so a change sent to a
 * thousand streams is a thousand copies of one text, not a thousand
 * encodings. These schemas are that wire form; the contract (src/api/
 * SportsStream.ts) names them as the stream's events.
 */

export const changeKinds = ["event", "score", "odds", "result", "closing"] as const
export type ChangeKind = (typeof changeKinds)[number]

/** An instant on the wire: ISO 8601, UTC; a Date once decoded. */
const Instant = Schema.String.annotate({ description: "ISO 8601, UTC", examples: ["2026-11-22T19:02:10.000Z"] }).pipe(
  Schema.decodeTo(Schema.Date, SchemaTransformation.dateFromString)
)

// Wire records, as partners receive them (encoded once when logged); the service computes with the camelCase records
// below (ChangeRecord, EventRecord, MarketRecord), so these stay in the wire's names.

/** What every change says of its event and of its own age. */
const about = {
  event_id: Schema.String,
  sport_id: Schema.Int,
  league_id: Schema.String,
  updated_at: Instant.annotate({
    description:
      "When the provider stated this: its own time for the data where it gives one (the quote time of odds), " +
      "else when it gave the answer (which a cache may have kept since)"
  }),
  seen_at: Instant.annotate({
    description: "When the service saw the change (the refresh or odds read that noticed it)"
  })
}

export const eventFields = ["created", "status", "starts_at", "active", "names"] as const

/** An event's status on the wire: the life cycle's seven values. */
const Status = Schema.Literals(eventStatuses).annotate({
  description: "scheduled, live, final, postponed, cancelled, abandoned or suspended"
})

/** Why an event has its status, where the provider says so. */
export const Reason = Schema.NullOr(
  Schema.Struct({
    code: Schema.String.annotate({
      description: "The provider's own status code (API-Football's PST, BetsAPI's time_status 4); the service's " +
        "own: overdue (still in play long after kick-off)"
    }),
    text: Schema.String.annotate({ description: "In the provider's words (Match Postponed), or the code's meaning" })
  }).annotate({ identifier: "SportsStatusReason" })
).annotate({ description: "Why the event has its status, where the provider says so; null otherwise" })

/** When the service first saw an event final. */
const FinalAt = Instant.annotate({
  description: "When the service first saw the event final (no provider gives the time a match ended)"
})

/** An event created, or its status, start time, listing or names changed. */
export const EventChange = Schema.Struct({
  ...about,
  league_name: Schema.String,
  home_name: Schema.String,
  away_name: Schema.String,
  starts_at: Instant,
  status: Status,
  reason: Reason,
  final_at: Schema.NullOr(FinalAt),
  active: Schema.Boolean.annotate({ description: "false once the provider stopped listing the event (removed)" }),
  changed: Schema.Array(Schema.Literals(eventFields)).annotate({
    description: "What changed: created, status, starts_at, active, names"
  })
}).annotate({ identifier: "SportsStreamEventChange" })

/** A score or a minute changed, in play. */
export const ScoreChange = Schema.Struct({
  ...about,
  status: Status,
  score: Schema.String.annotate({ description: "home-away, as the live feed answers it" }),
  minute: Schema.Int.annotate({
    description: "The match clock where the sport has one; otherwise whole minutes since the start"
  })
}).annotate({ identifier: "SportsStreamScoreChange" })

export const suspensionReasons = ["stale", "withdrawn"] as const
export type SuspensionReason = (typeof suspensionReasons)[number]

export const marketChangeTypes = ["opened", "prices", "suspended", "reopened"] as const
export type MarketChangeType = (typeof marketChangeTypes)[number]

/** A market opened, its prices moved, it was suspended (stale data or withdrawn by the provider) or reopened. */
export const OddsChange = Schema.Struct({
  ...about,
  market_key: Schema.String.annotate({ description: "The provider's market key (e.g. 1_1)" }),
  market_name: Schema.String,
  in_play: Schema.Boolean.annotate({ description: "true: in-play odds (GET .../odds/live); false: pre-match odds" }),
  suspended: Schema.Boolean.annotate({ description: "true: do not offer these prices" }),
  reason: Schema.NullOr(Schema.Literals(suspensionReasons)).annotate({
    description:
      "Why it is suspended: stale (no fresh data for STREAM_STALE_AFTER) or withdrawn (the provider stopped quoting it)"
  }),
  changed: Schema.Literals(marketChangeTypes),
  odds: Schema.Array(Schema.Struct({ label: Schema.String, value: OddsValue }))
}).annotate({ identifier: "SportsStreamOddsChange" })

/** The kinds of change whose data carries prices, decimal as logged: `odds` its own `odds`, `closing` its markets'. */
export const kindsWithOdds: ReadonlySet<string> = new Set<ChangeKind>(["odds", "closing"])

/**
 * A logged change's data for a reader of `format`: the log keeps (and every decimal reader shares) one text of each
 * change; a reader of another format gets the prices of a change that carries them converted, everything else as
 * logged, in the same order.
 */
export const changeDataIn = (format: OddsFormat, kind: string, data: string): string => {
  if (format === "decimal" || !kindsWithOdds.has(kind)) return data
  if (kind === "closing") {
    const line = JSON.parse(data) as { readonly markets: ReadonlyArray<{ readonly odds: ReadonlyArray<Odd> }> }
    return JSON.stringify({ ...line, markets: marketsIn(format, line.markets) })
  }
  const change = JSON.parse(data) as { readonly odds: ReadonlyArray<Odd> }
  return JSON.stringify({ ...change, odds: marketsIn(format, [change])[0].odds })
}

const Winner = Schema.Literals(["home", "away", "draw"])

/** An event ended with a final score, or its final score was corrected. */
export const ResultChange = Schema.Struct({
  ...about,
  home_score: Schema.Int,
  away_score: Schema.Int,
  winner: Winner,
  final_at: FinalAt,
  corrected: Schema.Boolean.annotate({
    description: "true: this result replaces a final result of the event (a correction after final; see previous)"
  }),
  corrected_at: Schema.NullOr(Instant).annotate({
    description: "When the service saw the last correction; null: never corrected"
  }),
  previous: Schema.NullOr(Schema.Struct({ home_score: Schema.Int, away_score: Schema.Int, winner: Winner }))
    .annotate({ description: "The final result the last correction replaced; null: never corrected" })
}).annotate({ identifier: "SportsStreamResultChange" })

export const closingSources = ["kick_off", "provider"] as const
export type ClosingSource = (typeof closingSources)[number]

/** Where a closing line came from, as the stream and the closing odds answer say it. */
export const ClosingSourceField = Schema.Literals(closingSources).annotate({
  description: "kick_off: the last pre-match prices the service held when it saw the event go live; provider: the " +
    "provider's last pre-match odds, asked after kick-off (an event already live when the service first saw it, or " +
    "one whose pre-match odds nobody had read)"
})

/** One market of a closing line: its last pre-match prices. */
export const ClosingMarket = Schema.Struct({
  key: Schema.String.annotate({ description: "The provider's market key (e.g. 1_1)" }),
  name: Schema.String,
  odds: Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.Finite }))
})

/** An event's closing line: the last pre-match odds of each of its markets, kept once when it went live. */
export const ClosingChange = Schema.Struct({
  ...about,
  closed_at: Instant.annotate({
    description: "When the pre-match line closed: the kick-off as the service knows it (the event's start time, or " +
      "when the service saw it in play if that came first)"
  }),
  source: ClosingSourceField,
  // As the stream sends them: each price in the reader's `odds_format`.
  markets: Schema.Array(ClosingMarket.mapFields((fields) => ({
    ...fields,
    odds: Schema.Array(Schema.Struct({ label: Schema.String, value: OddsValue }))
  })))
}).annotate({ identifier: "SportsStreamClosingChange" })

export type EventChange = typeof EventChange.Encoded
export type ScoreChange = typeof ScoreChange.Encoded
export type OddsChange = typeof OddsChange.Encoded
export type ResultChange = typeof ResultChange.Encoded
export type ClosingChange = typeof ClosingChange.Encoded

/** One row of the log, before it is given its position. */
export interface ChangeRecord {
  readonly kind: ChangeKind
  readonly eventId: string
  readonly sportId: number
  readonly leagueId: string
  /** The change's JSON, as the stream sends it. */
  readonly data: string
}

/** What the log knows of an event; also what a refresh sees of it. Times in epoch millis. */
export interface EventRecord {
  readonly eventId: string
  readonly sportId: number
  readonly leagueId: string
  readonly leagueName: string
  readonly homeName: string
  readonly awayName: string
  readonly startsAt: number
  readonly status: EventStatus
  /** Why it has its status, where the provider says so. */
  readonly reason: StatusReason | null
  readonly active: boolean
  readonly score: string | null
  readonly minute: number | null
  /** When the service first saw it final (none while not final): told by the rules, not a fact of the provider's. */
  readonly finalAt: number | null
  /** When the provider gave the answer this came from. */
  readonly answeredAt: number
}

/** What the log knows of a market (pre-match and in play are two markets). */
export interface MarketRecord {
  readonly eventId: string
  readonly inPlay: boolean
  readonly key: string
  readonly name: string
  readonly odds: ReadonlyArray<Odd>
  readonly suspended: boolean
  readonly reason: SuspensionReason | null
  /** The provider's own time for these prices, when it gives one. */
  readonly quotedAt: number | null
  /** When the provider last gave an answer carrying the market. */
  readonly answeredAt: number
}

/** An odds answer as read: one event's markets, pre-match or in play. */
export interface OddsSighting {
  readonly eventId: string
  readonly inPlay: boolean
  readonly markets: ReadonlyArray<{
    readonly key: string
    readonly name: string
    readonly odds: ReadonlyArray<Odd>
    readonly quotedAt: number | null
  }>
  readonly answeredAt: number
}
