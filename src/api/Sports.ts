import { Schema, SchemaGetter } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { oddsFormats, OddsValue } from "../domain/OddsFormat.ts"
import {
  EventResult,
  eventStatuses,
  EventSummary,
  FinalScore,
  sportsCapabilities,
  SportsLeague,
  StatusReason
} from "../domain/Sports.ts"
import { ClosingSourceField } from "../domain/SportsChanges.ts"
import { StorableText } from "../domain/Text.ts"
import { timeZoneNamed } from "../domain/ZoneDays.ts"
import { Envelope, IsoDate } from "./Envelope.ts"
import { NotFound, ProviderUnavailable, ValidationFailed } from "./Errors.ts"
import { integerQuery, PageMeta, PageQuery } from "./Paging.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { PartnerUpstreams } from "./Security.ts"

/** A sport id from the query string (BetsAPI's: 1 soccer, 18 basketball, 13 tennis), plain decimal digits. */
export const SportIdQuery = integerQuery({
  minimum: 1,
  maximum: 2_147_483_647,
  description: "Sport id: 1 soccer, 18 basketball, 13 tennis, 17 ice hockey, ... (default 1)",
  example: 1
})

/** `YYYYMMDD` (the provider's form) or `YYYY-MM-DD`, a real calendar day; decoded to `YYYYMMDD`. */
export const DayQuery = Schema.String.annotate({
  description: "A day, YYYYMMDD or YYYY-MM-DD: UTC, or in `timezone` when given",
  examples: ["2026-11-22"]
}).pipe(
  Schema.decodeTo(
    Schema.String.check(
      Schema.makeFilter((day: string) => {
        const match = /^(\d{4})(\d{2})(\d{2})$/.exec(day)
        if (match === null) return false
        const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
        return date.getUTCFullYear() === Number(match[1]) && date.getUTCMonth() === Number(match[2]) - 1 &&
          date.getUTCDate() === Number(match[3])
      }, { message: "The :attribute field must be a day as YYYYMMDD or YYYY-MM-DD." })
    ),
    {
      decode: SchemaGetter.transform((raw: string) => raw.trim().replace(/^(\d{4})-(\d{2})-(\d{2})$/, "$1$2$3")),
      encode: SchemaGetter.transform((day: string) => day)
    }
  )
)

/** An IANA time zone name, any case; decoded to the runtime's spelling of it (`asia/tokyo` is Asia/Tokyo). */
export const TimeZoneQuery = Schema.String.annotate({
  description: "The IANA time zone `day` (or `date`) is cut in, by kick-off time (default UTC); times stay UTC",
  examples: ["America/Sao_Paulo"]
}).pipe(
  Schema.decodeTo(
    Schema.String.check(
      Schema.makeFilter((zone: string) => timeZoneNamed(zone) !== undefined, {
        message: "The :attribute field must be an IANA time zone name, like America/Sao_Paulo or Asia/Tokyo."
      })
    ),
    {
      decode: SchemaGetter.transform((raw: string) => timeZoneNamed(raw.trim()) ?? raw.trim()),
      encode: SchemaGetter.transform((zone: string) => zone)
    }
  )
)

export const IncludeRawQuery = Schema.Literals(["true", "false", "1", "0"]).annotate({
  message: "The :attribute field must be true or false.",
  description: "true: also answer the provider's raw payload in provider_response"
})

const rawQuery = { include_raw: Schema.optional(IncludeRawQuery) }

/** How an odds answer writes its prices; `decimal`, the providers' own, unless asked. */
export const OddsFormatQuery = Schema.Literals(oddsFormats).annotate({
  message: "The selected :attribute is invalid. Use decimal, american, fractional or probability.",
  description: "How prices are written: decimal (default, 2.5), american (150: +150; -200), fractional " +
    "(\"3/2\") or probability (implied, 0.4). The answer's Odds-Format header echoes it."
})

/** The query parameter of every odds answer: spread it into the endpoint's query. */
export const oddsFormatQuery = { odds_format: Schema.optional(OddsFormatQuery) }

/** The header every odds answer names its format in (sent as `odds-format`: HTTP header names are case-blind). */
export const oddsFormatHeader = "Odds-Format"

/** A price as `odds_format` writes it: the schema of every odds answer's `value`. */
export { OddsValue }

const listQuery = { sport_id: Schema.optional(SportIdQuery), page: Schema.optional(PageQuery), ...rawQuery }

/** A list of a day's events: `day` cut in `timezone`. */
const dayListQuery = {
  ...listQuery,
  day: Schema.optional(DayQuery),
  timezone: Schema.optional(TimeZoneQuery),
  league_id: Schema.optional(Schema.String.annotate({ examples: ["155"] }))
}

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

const StatsTrendData = Schema.Struct({
  event_id: Schema.String,
  ...statsValues,
  trend: Schema.optionalKey(
    Schema.Array(StatsSample).annotate({
      description: "Where the provider answers running totals (API-Football): the samples the gateway kept over " +
        "the match, by minute, one a minute at most (200 at most)."
    })
  )
})

const eventPath = <
  const Name extends string,
  const Path extends `/${string}`,
  Data extends Schema.Top,
  Query extends typeof rawQuery = typeof rawQuery
>(
  name: Name,
  path: Path,
  data: Data,
  docs: { readonly summary: string; readonly description: string; readonly example: Data["Encoded"] },
  query: Query = rawQuery as Query
) =>
  HttpApiEndpoint.get(name, path, {
    params: { eventId: StorableText.annotate({ description: "The provider's event id", examples: ["10150123"] }) },
    query,
    success: Envelope(`${name[0].toUpperCase()}${name.slice(1)}Response`, data, { example: docs.example }),
    error: [NotFound, ProviderUnavailable]
  }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
    summary: docs.summary,
    description: `${docs.description} 404 when the provider does not know the event.`
  }))

const exampleEvent = {
  event_id: "10150123",
  home_name: "Flamengo",
  away_name: "Palmeiras",
  league_id: "155",
  league_name: "Brazil Serie A"
}

const exampleMarkets = [{
  name: "Full Time Result",
  key: "1_1",
  odds: [{ label: "1", value: 2.1 }, { label: "X", value: 3.25 }, { label: "2", value: 3.6 }]
}]

/** An odds endpoint's query: the raw payload, and the format. */
const oddsQuery = { ...rawQuery, ...oddsFormatQuery }

/** What every odds answer says of `odds_format`. */
export const oddsFormatDocs = "Prices are decimal unless `odds_format` asks for american, fractional or " +
  "probability; the `Odds-Format` header names the format of the answer. 422 naming `odds_format` for another value."

const zoneDays = "With `timezone` (an IANA name, e.g. America/Sao_Paulo), `day` is that zone's day, cut by " +
  "kick-off time; times stay UTC. The provider lists UTC days, so the service reads each UTC day the zone's day " +
  "overlaps whole, keeps the kick-offs within it and pages them itself, in kick-off order, 50 a page, `meta.total` " +
  "the zone's day's count (`provider_response`: every provider answer read). 422 naming `timezone` for a zone the " +
  "service does not know, or for a UTC day the provider lists more than 5,000 events of (narrow with `league_id`)."

const providerPaging = "Paged as the provider pages (`page`, 50 a page); `meta.total` is the provider's count. " +
  "422 naming `sport_id` for a sport the provider does not offer (`/sports/status` lists its `sport_ids`)."

export class SportsGroup extends HttpApiGroup.make("sports")
  .add(
    HttpApiEndpoint.get("status", "/sports/status", {
      success: Envelope(
        "SportsStatusResponse",
        Schema.Struct({
          provider: Schema.String,
          capabilities: Schema.Array(Schema.String),
          sport_ids: Schema.optionalKey(
            Schema.Array(Schema.Int).annotate({
              description: "The sports the provider offers (`sport_id` values); absent when it offers any."
            })
          )
        }),
        { example: { provider: "apifootball", capabilities: [...sportsCapabilities], sport_ids: [1] } }
      )
    }).annotateMerge(OpenApi.annotations({
      summary: "The active sports provider and what it can answer",
      description: "`capabilities` lists the provider endpoints below that the configured provider answers."
    }))
  )
  .add(
    HttpApiEndpoint.get("leagues", "/sports/leagues", {
      query: listQuery,
      success: Envelope(
        "SportsLeaguesResponse",
        Schema.Struct({
          provider: Schema.String,
          results: Schema.Array(Schema.toEncoded(LeagueCodec)),
          meta: PageMeta
        }),
        {
          example: {
            provider: "betsapi",
            results: [{ league_id: "155", league_name: "Brazil Serie A", country_code: "br" }],
            meta: { page: 1, per_page: 50, total: 1 }
          }
        }
      ),
      error: [ValidationFailed, ProviderUnavailable]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Leagues of a sport, straight from the provider",
      description: `${providerPaging} 502 when the provider cannot be queried.`
    }))
  )
  .add(
    HttpApiEndpoint.get("upcoming", "/sports/events/upcoming", {
      query: dayListQuery,
      success: Envelope(
        "SportsUpcomingResponse",
        Schema.Struct({
          results: Schema.Array(Schema.toEncoded(UpcomingEventCodec)),
          meta: PageMeta
        }),
        {
          example: {
            results: [{ ...exampleEvent, starts_at: "2026-11-22T19:00:00.000Z", status: "scheduled", reason: null }],
            meta: { page: 1, per_page: 50, total: 1 }
          }
        }
      ),
      error: [ValidationFailed, ProviderUnavailable]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Events not started yet, straight from the provider",
      description: "Kick-off times are ISO 8601, UTC. `day` keeps the events of that day; a provider that " +
        `lists upcoming events by day (API-Football) answers today's (UTC) without it. Each event has its ` +
        `\`status\` (\`scheduled\`, or \`postponed\` with its \`reason\`, ...). ${zoneDays} ${providerPaging}`
    }))
  )
  .add(
    HttpApiEndpoint.get("live", "/sports/events/live", {
      query: listQuery,
      success: Envelope(
        "SportsLiveResponse",
        Schema.Struct({
          results: Schema.Array(Schema.toEncoded(LiveEventCodec)),
          meta: PageMeta
        }),
        {
          example: {
            results: [{ ...exampleEvent, score: "1-0", minute: 37, status: "live", reason: null }],
            meta: { page: 1, per_page: 50, total: 1 }
          }
        }
      ),
      error: [ValidationFailed, ProviderUnavailable]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Events in play, straight from the provider",
      description: `\`score\` is home-away; \`minute\` the match clock; \`status\` as every event's. ${providerPaging}`
    }))
  )
  .add(
    HttpApiEndpoint.get("liveEvent", "/sports/events/live/:eventId", {
      params: { eventId: StorableText.annotate({ description: "The provider's event id", examples: ["10150123"] }) },
      query: { sport_id: Schema.optional(SportIdQuery), ...rawQuery },
      success: Envelope(
        "SportsLiveEventResponse",
        Schema.toEncoded(LiveEventDetailCodec),
        {
          example: {
            event_id: "10150123",
            home_name: "Flamengo",
            away_name: "Palmeiras",
            minute: 37,
            score: "1-0",
            status: "live",
            reason: null,
            final_at: null
          }
        }
      ),
      error: [NotFound, ProviderUnavailable]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "One event's state: score, minute and status",
      description: "Answers any event the provider knows, with its `status` (`scheduled`, `live`, `final`, " +
        "`postponed`, `cancelled`, `abandoned`, `suspended`), its `reason` where the provider says so, and " +
        "`final_at` once final; one not started has `score: \"\"`. 404 when the provider does not know the event."
    }))
  )
  .add(
    HttpApiEndpoint.get("ended", "/sports/events/ended", {
      query: dayListQuery,
      success: Envelope(
        "SportsEndedResponse",
        Schema.Struct({
          results: Schema.Array(Schema.toEncoded(EndedEventCodec)),
          meta: PageMeta
        }),
        {
          example: {
            results: [{
              ...exampleEvent,
              score: "2-1",
              status: "final",
              reason: null,
              final_at: "2026-11-22T20:53:12.000Z"
            }],
            meta: { page: 1, per_page: 50, total: 1 }
          }
        }
      ),
      error: [ValidationFailed, ProviderUnavailable]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Finished events, of a day if asked, straight from the provider",
      description: "`day` is a UTC day unless `timezone` says otherwise. Each event has its `status` (`final`, with " +
        "a `reason` for a walkover or an award) and `final_at`, when the service first saw it final (null before it " +
        `has a record). ${zoneDays} ${providerPaging}`
    }))
  )
  .add(eventPath("odds", "/sports/events/:eventId/odds", OddsData, {
    summary: "Pre-match odds of an event",
    description: `Each market with its outcomes and their odds. ${oddsFormatDocs}`,
    example: { event_id: "10150123", markets: exampleMarkets }
  }, oddsQuery))
  .add(eventPath("liveOdds", "/sports/events/:eventId/odds/live", OddsData, {
    summary: "In-play odds of an event",
    description: `The latest in-play odds of each market. ${oddsFormatDocs}`,
    example: { event_id: "10150123", markets: exampleMarkets }
  }, oddsQuery))
  .add(
    HttpApiEndpoint.get("closingOdds", "/sports/events/:eventId/odds/closing", {
      params: { eventId: StorableText.annotate({ description: "The provider's event id", examples: ["10150123"] }) },
      query: oddsFormatQuery,
      success: Envelope("ClosingOddsResponse", ClosingOddsData, {
        example: {
          event_id: "10150123",
          markets: exampleMarkets,
          closed_at: "2026-11-22T19:00:00.000Z",
          source: "kick_off",
          quoted_at: "2026-11-22T18:59:12.000Z"
        }
      }),
      error: [NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Closing line of an event: its last pre-match odds",
      description: "The last pre-match odds of each market, kept by the service when the event went live: the " +
        "prices it held at kick-off (`source: kick_off`), or, for an event already live when it first saw it (or " +
        "whose pre-match odds nobody had read), the provider's last pre-match odds, asked shortly after kick-off " +
        "(`source: provider`). The service's own record, the same on every instance, kept 30 days after kick-off; " +
        "the provider is not asked when it is read. The change stream sends it once as a `closing` change. 404 when " +
        "none is kept for the event (not gone live yet, the provider had no pre-match odds of it, or closed more " +
        `than 30 days ago). ${oddsFormatDocs}`
    }))
  )
  .add(eventPath(
    "lineup",
    "/sports/events/:eventId/lineup",
    Schema.Struct({ event_id: Schema.String, home: Schema.Array(Schema.String), away: Schema.Array(Schema.String) }),
    {
      summary: "Starting line-ups",
      description: "Player names of each side's starting line-up; empty lists until the provider has them.",
      example: {
        event_id: "10150123",
        home: ["Rossi", "Léo Pereira", "Pulgar"],
        away: ["Weverton", "Gustavo Gómez", "Raphael Veiga"]
      }
    }
  ))
  .add(eventPath("statsTrend", "/sports/events/:eventId/stats-trend", StatsTrendData, {
    summary: "Latest statistics of an event",
    description: "The latest value of each statistic the provider tracks, per side; one it does not track is absent.",
    example: {
      event_id: "10150123",
      possession_home: 54,
      possession_away: 46,
      shots_on_target_home: 5,
      shots_on_target_away: 3,
      corners_home: 6,
      corners_away: 2
    }
  }))
  .add(eventPath(
    "result",
    "/sports/events/:eventId/result",
    Schema.toEncoded(ResultCodec),
    {
      summary: "Final result of an ended event",
      description: "Final score and the winner (`home`, `away` or `draw`), with the service's own record of it, the " +
        "same on every instance: `final_at`, when it first saw the event final, and where the result changed after " +
        "that, `corrected_at` and the result it replaced (`previous`). The change stream sends the correction as a " +
        "`result` with `corrected: true`. 404 while the event is not final (the message says its status and reason).",
      example: {
        event_id: "10150123",
        home_score: 2,
        away_score: 2,
        winner: "draw",
        status: "final",
        final_at: "2026-11-22T20:53:12.000Z",
        corrected_at: "2026-11-23T09:10:00.000Z",
        previous: { home_score: 2, away_score: 1, winner: "home" }
      }
    }
  ))
  .middleware(PartnerUpstreams)
  .annotateMerge(OpenApi.annotations({
    description: "Provider data, answered live from the configured sports provider (BetsAPI or the sandbox)."
  }))
{}
