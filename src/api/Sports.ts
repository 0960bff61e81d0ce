import { Schema, SchemaGetter } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { StorableText } from "../domain/Text.ts"
import { Envelope } from "./Envelope.ts"
import { NotFound, ProviderUnavailable } from "./Errors.ts"
import { PageMeta, PageQuery } from "./Paging.ts"
import { RequestValidation } from "./RequestValidation.ts"

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

/** A positive integer id from the query string (sport ids are BetsAPI's: 1 soccer, 18 basketball, 13 tennis). */
export const SportIdQuery = Schema.NumberFromString.check(
  Schema.isInt({ message: "The :attribute field must be an integer." }),
  Schema.isGreaterThan(0, { message: "The :attribute field must be at least 1." })
).annotate({
  message: "The :attribute field must be an integer.",
  description: "Sport id: 1 soccer, 18 basketball, 13 tennis, 17 ice hockey, ... (default 1)"
})

/** `YYYYMMDD` (the provider's form) or `YYYY-MM-DD`, a real calendar day; decoded to `YYYYMMDD`. */
export const DayQuery = Schema.String.pipe(
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
).annotate({ description: "UTC day, YYYYMMDD or YYYY-MM-DD" })

export const IncludeRawQuery = Schema.Literals(["true", "false", "1", "0"]).annotate({
  message: "The :attribute field must be true or false.",
  description: "true: also answer the provider's raw payload in provider_response"
})

const rawQuery = { include_raw: Schema.optional(IncludeRawQuery) }
const listQuery = { sport_id: Schema.optional(SportIdQuery), page: Schema.optional(PageQuery), ...rawQuery }

const EventSummary = Schema.Struct({
  event_id: Schema.String,
  home_name: Schema.String,
  away_name: Schema.String,
  league_id: Schema.String,
  league_name: Schema.String
})

const OddsData = Schema.Struct({
  event_id: Schema.String,
  markets: Schema.Array(Schema.Struct({
    name: Schema.String,
    key: Schema.String.annotate({ description: "The provider's market key (e.g. 1_1)" }),
    odds: Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.Finite }))
  }))
})

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

const StatsTrendData = Schema.Struct({
  event_id: Schema.String,
  ...Object.fromEntries(statsFields.flatMap((field) => [
    [`${field}_home`, Schema.optionalKey(Schema.Int)],
    [`${field}_away`, Schema.optionalKey(Schema.Int)]
  ])) as Record<`${(typeof statsFields)[number]}_${"home" | "away"}`, Schema.optionalKey<Schema.Int>>
})

const eventPath = <const Name extends string, const Path extends `/${string}`, Data extends Schema.Top>(
  name: Name,
  path: Path,
  data: Data,
  summary: string
) =>
  HttpApiEndpoint.get(name, path, {
    params: { eventId: StorableText },
    query: rawQuery,
    success: Envelope(`${name[0].toUpperCase()}${name.slice(1)}Response`, data),
    error: [NotFound, ProviderUnavailable]
  }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({ summary }))

export class SportsGroup extends HttpApiGroup.make("sports")
  .add(
    HttpApiEndpoint.get("status", "/sports/status", {
      success: Envelope(
        "SportsStatusResponse",
        Schema.Struct({ provider: Schema.String, capabilities: Schema.Array(Schema.String) })
      )
    }).annotateMerge(OpenApi.annotations({ summary: "The active sports provider and what it can answer" }))
  )
  .add(
    HttpApiEndpoint.get("leagues", "/sports/leagues", {
      query: listQuery,
      success: Envelope(
        "SportsLeaguesResponse",
        Schema.Struct({
          provider: Schema.String,
          results: Schema.Array(Schema.Struct({
            league_id: Schema.String,
            league_name: Schema.String,
            country_code: Schema.NullOr(Schema.String)
          })),
          meta: PageMeta
        })
      ),
      error: ProviderUnavailable
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("upcoming", "/sports/events/upcoming", {
      query: { ...listQuery, league_id: Schema.optional(Schema.String) },
      success: Envelope(
        "SportsUpcomingResponse",
        Schema.Struct({
          results: Schema.Array(Schema.Struct({ ...EventSummary.fields, starts_at: Schema.String })),
          meta: PageMeta
        })
      ),
      error: ProviderUnavailable
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("live", "/sports/events/live", {
      query: listQuery,
      success: Envelope(
        "SportsLiveResponse",
        Schema.Struct({
          results: Schema.Array(Schema.Struct({
            ...EventSummary.fields,
            score: Schema.String,
            minute: Schema.Int.annotate({
              description: "The match clock where the sport has one; otherwise whole minutes since the start (0 before it)"
            })
          })),
          meta: PageMeta
        })
      ),
      error: ProviderUnavailable
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("liveEvent", "/sports/events/live/:eventId", {
      params: { eventId: StorableText },
      query: { sport_id: Schema.optional(SportIdQuery), ...rawQuery },
      success: Envelope(
        "SportsLiveEventResponse",
        Schema.Struct({
          event_id: Schema.String,
          home_name: Schema.String,
          away_name: Schema.String,
          minute: Schema.Int.annotate({
            description: "The match clock where the sport has one; otherwise whole minutes since the start (0 before it)"
          }),
          score: Schema.String,
          status: Schema.String
        })
      ),
      error: [NotFound, ProviderUnavailable]
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("ended", "/sports/events/ended", {
      query: { ...listQuery, day: Schema.optional(DayQuery), league_id: Schema.optional(Schema.String) },
      success: Envelope(
        "SportsEndedResponse",
        Schema.Struct({
          results: Schema.Array(Schema.Struct({ ...EventSummary.fields, score: Schema.String })),
          meta: PageMeta
        })
      ),
      error: ProviderUnavailable
    }).middleware(RequestValidation)
  )
  .add(eventPath("odds", "/sports/events/:eventId/odds", OddsData, "Pre-match odds of an event"))
  .add(eventPath("liveOdds", "/sports/events/:eventId/odds/live", OddsData, "In-play odds of an event"))
  .add(eventPath(
    "lineup",
    "/sports/events/:eventId/lineup",
    Schema.Struct({ event_id: Schema.String, home: Schema.Array(Schema.String), away: Schema.Array(Schema.String) }),
    "Starting line-ups"
  ))
  .add(eventPath("statsTrend", "/sports/events/:eventId/stats-trend", StatsTrendData, "Latest statistics of an event"))
  .add(eventPath(
    "result",
    "/sports/events/:eventId/result",
    Schema.Struct({
      event_id: Schema.String,
      home_score: Schema.Int,
      away_score: Schema.Int,
      winner: Schema.Literals(["home", "away", "draw"])
    }),
    "Final result of an ended event"
  ))
{}
