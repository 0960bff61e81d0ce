import { Effect, Schema, type Stream } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import type { OddsFormat } from "../domain/OddsFormat.ts"
import {
  changeKinds,
  ClosingChange,
  EventChange,
  OddsChange,
  ResultChange,
  ScoreChange
} from "../domain/SportsChanges.ts"
import { Connected, Reset, streamFilterOf } from "../domain/SportsStream.ts"
import { StorableText } from "../domain/Text.ts"
import { SportRef } from "./CatalogQuery.ts"
import { ErrorMessages, TooManyRequests, ValidationFailed } from "./Errors.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { PartnerUpstreams } from "./Security.ts"
import { oddsFormatHeader, oddsFormatQuery } from "./SportsQuery.ts"

/** The most values one filter may list. */
export const maxFilterValues = 100

/** A repeatable query parameter (`kinds=score&kinds=odds`), each value checked as `item`. */
const repeatable = <S extends Schema.Top>(item: S, description: string) =>
  Schema.optional(
    Schema.Array(item).check(Schema.isMaxLength(maxFilterValues, {
      message: `The :attribute field may list at most ${maxFilterValues} values.`
    })).annotate({ description })
  )

const Kind = Schema.Literals(changeKinds).annotate({
  message: "The selected :attribute is invalid. Use event, score, odds, result or closing."
})

/** One event of the stream: its SSE name, its id (a log position), its data as JSON. */
const streamEvent = <const Name extends string, S extends Schema.Top>(name: Name, data: S, description: string) =>
  Schema.Struct({
    id: Schema.optional(
      Schema.String.annotate({ description: "The change's position in the log (send it back as Last-Event-ID)" })
    ),
    event: Schema.Literal(name),
    data: Schema.fromJsonString(data)
  }).annotate({ identifier: `SportsStream${name[0].toUpperCase()}${name.slice(1)}Event`, description })

/** Every event the stream sends, by its SSE `event` name. */
export const SportsStreamEvent = Schema.Union([
  streamEvent(
    "connected",
    Connected,
    "First on every connection: where the stream goes on from, and the filters as read."
  ),
  streamEvent(
    "event",
    EventChange,
    "An event created, or its status (with its reason), start time, listing or names changed."
  ),
  streamEvent("score", ScoreChange, "A score or a minute changed, in play."),
  streamEvent("odds", OddsChange, "A market opened, its prices moved, it was suspended or reopened."),
  streamEvent(
    "result",
    ResultChange,
    "An event is final with its result, or its result was corrected after it was final (corrected: true, with the " +
      "result it replaced in previous)."
  ),
  streamEvent(
    "closing",
    ClosingChange,
    "An event's closing line: the last pre-match odds of each market, kept once when it went live " +
      "(GET /sports/events/{eventId}/odds/closing answers it for 30 days)."
  ),
  streamEvent(
    "reset",
    Reset,
    "The stream cannot go on from the client's position: re-read the feeds, then go on from its id."
  )
])
export type SportsStreamEvent = typeof SportsStreamEvent.Type

const description = [
  "Server-Sent Events (`text/event-stream`) of every change the service sees in the sports catalog and the odds: " +
  "`event` (created, status, start time), `score` (score and minute), `odds` (prices, a market suspended or " +
  "reopened), `result` (final, or corrected after final), `closing` (an event's closing line, once, after the " +
  "kick-off that closed it); first `connected`, and `reset` when the stream cannot go on from where the client " +
  "was. An event's `status` is its life cycle: `scheduled`, `live`, `final`, `postponed`, `cancelled`, `abandoned` " +
  "or `suspended`, with the provider's `reason` where it gives one. " +
  "Each change's `id` is its position in one log every instance serves: reconnect (to any instance) with the " +
  "`Last-Event-ID` header and the stream goes on after it, in order, with no gap and no repeat, for " +
  "STREAM_RETENTION (1 hour); further back, one `reset`. Every change carries `updated_at` (the provider's) " +
  "and `seen_at` (the service's); a market with no fresh data for STREAM_STALE_AFTER is sent `suspended`.",
  "`odds_format` (decimal, american, fractional or probability; decimal unless asked) writes the prices of `odds` " +
  "changes as the odds endpoints do; `connected` and the `Odds-Format` header name it. 422 naming `odds_format` " +
  "for another value.",
  "Filters are repeatable (`sport_id=1&sport_id=18`); a change is sent when it meets every filter given. A " +
  "comment line (`: heartbeat`) keeps a quiet stream open every STREAM_HEARTBEAT_INTERVAL (15 s). A client " +
  "that reads too slowly gets a last `reset` and is closed; an instance that stops sends `retry:` (reconnect in " +
  "1 to 3 s). Authenticate with either header, as every call (no `?token=`: tokens never travel in URLs). A test " +
  "token streams the sandbox's sports data, a live token the live provider's.",
  "429 when the partner already holds STREAM_MAX_CONNECTIONS_PER_PARTNER streams in this environment (fleet-wide)."
].join("\n\n")

export class SportsStreamGroup extends HttpApiGroup.make("stream")
  .add(
    HttpApiEndpoint.get("changes", "/sports/stream", {
      query: {
        sport_id: repeatable(SportRef, "Sports, by id (1 soccer, 18 basketball, 13 tennis) or name; repeatable"),
        league_id: repeatable(StorableText.annotate({ examples: ["155"] }), "League ids (the provider's); repeatable"),
        event_id: repeatable(
          StorableText.annotate({ examples: ["10150123"] }),
          "Event ids (the provider's); repeatable"
        ),
        kinds: repeatable(Kind, "Kinds of change: event, score, odds, result, closing; repeatable (default: all)"),
        ...oddsFormatQuery
      },
      headers: {
        "last-event-id": Schema.optional(Schema.String.annotate({
          description: "The last event id the client received: the stream goes on after it"
        }))
      },
      success: HttpApiSchema.StreamSse({ events: SportsStreamEvent }),
      error: [ValidationFailed, TooManyRequests]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Live change stream of the sports catalog and odds (Server-Sent Events)",
      description
    }))
  )
  .middleware(PartnerUpstreams)
  .annotateMerge(OpenApi.annotations({
    description: "What changed in the sports catalog and the odds, pushed as it happens, resumable on any instance."
  }))
{}

// The edge: a stream's request as SportsStream takes it, and its answer.

/** A Last-Event-ID the stream could have sent: a position, decimal digits (none: from now). */
export const lastEventIdOf = (header: string | undefined) =>
  header === undefined || header.trim() === ""
    ? Effect.succeed(undefined)
    : /^\d{1,15}$/.test(header.trim())
    ? Effect.succeed(Number(header.trim()))
    : Effect.fail(
      new ValidationFailed({
        message: ErrorMessages.invalidData,
        errors: { "Last-Event-ID": ["The Last-Event-ID header must be an event id the stream sent (decimal digits)."] }
      })
    )

/** The query's filters, as the stream takes them. */
export const streamFilterOfQuery = (query: {
  readonly sport_id?: ReadonlyArray<string> | undefined
  readonly league_id?: ReadonlyArray<string> | undefined
  readonly event_id?: ReadonlyArray<string> | undefined
  readonly kinds?: ReadonlyArray<string> | undefined
}) =>
  streamFilterOf({ sportIds: query.sport_id, leagueIds: query.league_id, eventIds: query.event_id, kinds: query.kinds })

/**
 * What a stream's answer carries besides its type: no caching, no buffering by proxies on the way, and its
 * connection closed with it (a stopping instance's drain then finds nothing left open).
 */
const streamHeaders = { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no", connection: "close" }

/** The stream's answer: its events as they come, their prices' format named as every odds answer names it. */
export const streamAnswer = (format: OddsFormat) => (body: Stream.Stream<Uint8Array>) =>
  HttpServerResponse.stream(body, {
    contentType: "text/event-stream",
    headers: { ...streamHeaders, [oddsFormatHeader.toLowerCase()]: format }
  })

/**
 * Refused for the stream limit: a 429 with Retry-After, and the connection closes too: a stream client opens one per
 * stream, and one left idle would hold a stopping instance's drain until the client lets it go.
 */
export const streamLimitReached = (refused: { readonly message: string }) =>
  Effect.andThen(
    HttpEffect.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeaders(response, { "retry-after": "10", connection: "close" }))
    ),
    Effect.fail(new TooManyRequests({ message: refused.message }))
  )
