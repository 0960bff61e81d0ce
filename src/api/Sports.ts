import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { sportsCapabilities } from "../domain/Sports.ts"
import { StorableText } from "../domain/Text.ts"
import { Envelope } from "./Envelope.ts"
import { NotFound, ProviderUnavailable, ValidationFailed } from "./Errors.ts"
import { PageMeta } from "./Paging.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { PartnerUpstreams } from "./Security.ts"
import { dayListQuery, listQuery, oddsFormatQuery, rawQuery, SportIdQuery } from "./SportsQuery.ts"
import {
  ClosingOddsData,
  EndedEventCodec,
  LeagueCodec,
  LiveEventCodec,
  LiveEventDetailCodec,
  OddsData,
  ResultCodec,
  StatsTrendData,
  UpcomingEventCodec
} from "./SportsWire.ts"

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
