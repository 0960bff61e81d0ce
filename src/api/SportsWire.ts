/**
 * The provider endpoints' answers on the wire (their contract is ./Sports.ts): the domain's records with keys in
 * snake_case and dates as ISO strings; the handlers encode with these codecs (./SportsEdge.ts).
 */
import { Schema } from "effect"
import { OddsValue } from "../domain/OddsFormat.ts"
import { EventResult, eventStatuses, EventSummary, FinalScore, SportsLeague, StatusReason } from "../domain/Sports.ts"
import { ClosingSourceField } from "../domain/SportsChanges.ts"
import { IsoDate } from "./Envelope.ts"

const minute = Schema.Int.annotate({
  description: "The match clock where the sport has one; otherwise whole minutes since the start (0 before it)"
})

/** Where an event is in its life cycle, and why where the provider says so: what every event answered carries. */
const lifeCycle = {
  status: Schema.Literals(eventStatuses).annotate({
    description: "scheduled, live, final, postponed, cancelled, abandoned or suspended (an event the provider " +
      "still calls in play long after kick-off is suspended, reason overdue: never final until the provider says so)"
  }),
  reason: Schema.NullOr(StatusReason).annotate({
    description: "Why it has its status, where the provider says so: its own code (API-Football's PST, BetsAPI's " +
      "time_status 4) and words (Match Postponed); the service's own code is overdue. Null otherwise."
  })
}

const FinalAt = Schema.NullOr(IsoDate).annotate({
  description: "When the service first saw the event final (no provider gives the time a match ended); null while " +
    "it is not final, or for a result the service has no record of"
})

const summaryKeys = {
  id: "event_id",
  homeName: "home_name",
  awayName: "away_name",
  leagueId: "league_id",
  leagueName: "league_name"
} as const

export const UpcomingEventCodec = Schema.Struct({ ...EventSummary.fields, startsAt: IsoDate, ...lifeCycle }).pipe(
  Schema.encodeKeys({ ...summaryKeys, startsAt: "starts_at" })
)
export const LiveEventCodec = Schema.Struct({ ...EventSummary.fields, score: Schema.String, minute, ...lifeCycle })
  .pipe(Schema.encodeKeys(summaryKeys))
export const EndedEventCodec = Schema.Struct({
  ...EventSummary.fields,
  score: Schema.String,
  ...lifeCycle,
  finalAt: FinalAt
}).pipe(Schema.encodeKeys({ ...summaryKeys, finalAt: "final_at" }))
/** One event in play: the summary without its league, with its state. */
export const LiveEventDetailCodec = Schema.Struct({
  id: EventSummary.fields.id,
  homeName: EventSummary.fields.homeName,
  awayName: EventSummary.fields.awayName,
  minute,
  score: Schema.String,
  ...lifeCycle,
  finalAt: FinalAt
}).pipe(Schema.encodeKeys({ id: "event_id", homeName: "home_name", awayName: "away_name", finalAt: "final_at" }))

/** The odds answers' `data`, for the handlers that write their answers once per value (src/api/Envelope.ts). */
export const OddsData = Schema.Struct({
  event_id: Schema.String,
  markets: Schema.Array(Schema.Struct({
    name: Schema.String,
    key: Schema.String.annotate({ description: "The provider's market key (e.g. 1_1)" }),
    odds: Schema.Array(Schema.Struct({ label: Schema.String, value: OddsValue }))
  }))
})

/**
 * The closing odds answer's `data`: the odds answers' shape (OddsData, so whatever applies to every odds answer applies
 * to it), with when the line closed, where it came from, and how old its newest price is.
 */
export const ClosingOddsData = Schema.Struct({
  ...OddsData.fields,
  closed_at: IsoDate.annotate({
    description: "When the pre-match line closed, ISO 8601 UTC: the kick-off as the service knows it (the event's " +
      "start time, or when the service saw it in play if that came first)"
  }),
  source: ClosingSourceField,
  quoted_at: IsoDate.annotate({
    description: "The provider's time for the newest of these prices, ISO 8601 UTC: its quote time where it gives " +
      "one, else when it answered them"
  })
})

// Wire entries derived from the domain's: keys in snake_case, the handlers encode with these codecs.

/** A league as the provider lists it (its sport is the one asked for, so not repeated). */
export const LeagueCodec = SportsLeague.mapFields(({ id, name, countryCode }) => ({ id, name, countryCode })).pipe(
  Schema.encodeKeys({ id: "league_id", name: "league_name", countryCode: "country_code" })
)

const scoreKeys = { homeScore: "home_score", awayScore: "away_score" } as const

/** A final result with the service's record of it: when it first saw it final, and its last correction. */
export const ResultCodec = Schema.Struct({
  ...EventResult.fields,
  status: Schema.Literal("final"),
  finalAt: FinalAt,
  correctedAt: Schema.NullOr(IsoDate).annotate({
    description: "When the service saw the last correction of this result after it was final; null: never corrected"
  }),
  previous: Schema.NullOr(FinalScore.pipe(Schema.encodeKeys(scoreKeys))).annotate({
    description: "The final result the last correction replaced; null: never corrected"
  })
}).pipe(Schema.encodeKeys({ eventId: "event_id", ...scoreKeys, finalAt: "final_at", correctedAt: "corrected_at" }))

const statsFields = [
  "possession",
  "shots_on_target",
  "shots_off_target",
  "corners",
  "attacks",
  "dangerous_attacks",
  "yellow_cards",
  "red_cards"
] as const

const statsValues = Object.fromEntries(statsFields.flatMap((field) => [
  [`${field}_home`, Schema.optionalKey(Schema.Int)],
  [`${field}_away`, Schema.optionalKey(Schema.Int)]
])) as Record<`${(typeof statsFields)[number]}_${"home" | "away"}`, Schema.optionalKey<Schema.Int>>

/** One sample the gateway kept: the statistics' totals at a minute of the match. */
const StatsSample = Schema.Struct({ minute: Schema.Int, sampled_at: IsoDate, ...statsValues })

export const StatsTrendData = Schema.Struct({
  event_id: Schema.String,
  ...statsValues,
  trend: Schema.optionalKey(
    Schema.Array(StatsSample).annotate({
      description: "Where the provider answers running totals (API-Football): the samples the gateway kept over " +
        "the match, by minute, one a minute at most (200 at most)."
    })
  )
})
