import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { ErrorMessages, TooManyRequests, ValidationFailed } from "../../api/Errors.ts"
import { CurrentPartner } from "../../api/Security.ts"
import { streamFilterOf } from "../../domain/SportsStream.ts"
import { SportsProvider } from "../SportsProvider.ts"
import { SportsStream } from "./SportsStream.ts"

/** A Last-Event-ID the stream could have sent: a position, decimal digits. */
const positionOf = (header: string | undefined) =>
  header === undefined || header.trim() === ""
    ? Effect.succeed(undefined)
    : /^\d{1,15}$/.test(header.trim())
    ? Effect.succeed(Number(header.trim()))
    : Effect.fail(new ValidationFailed({
      message: ErrorMessages.invalidData,
      errors: { "Last-Event-ID": ["The Last-Event-ID header must be an event id the stream sent (decimal digits)."] }
    }))

/**
 * What a stream's answer carries besides its type: no caching, no buffering by proxies on the way, and its
 * connection closed with it (a stopping instance's drain then finds nothing left open).
 */
const streamHeaders = { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no", connection: "close" }

export const SportsStreamHandlers = HttpApiBuilder.group(
  PartnerApi,
  "stream",
  Effect.fn("SportsStreamHttp.handlers")(function*(handlers) {
    const streams = yield* SportsStream

    return handlers.handle("changes", ({ headers, query, request }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        const lastEventId = yield* positionOf(headers["last-event-id"])
        const body = yield* streams.open({
          partner: { id: partner.id, environment: partner.environment },
          // The provider the token reaches names its world: a test token's is the sandbox's, never the live one's.
          world: (yield* SportsProvider).name,
          filter: streamFilterOf({ sportIds: query.sport_id, leagueIds: query.league_id, eventIds: query.event_id, kinds: query.kinds }),
          lastEventId,
          abort: Effect.sync(() => NodeHttpServerRequest.toServerResponse(request).destroy())
        }).pipe(
          // Refused, the connection closes too: a stream client opens one per stream, and one left idle would
          // hold a stopping instance's drain until the client lets it go.
          Effect.catchTag("StreamLimitReached", (refused) =>
            Effect.andThen(
              HttpEffect.appendPreResponseHandler((_request, response) =>
                Effect.succeed(HttpServerResponse.setHeaders(response, { "retry-after": "10", connection: "close" }))
              ),
              Effect.fail(new TooManyRequests({ message: refused.message }))
            ))
        )
        return HttpServerResponse.stream(body, { contentType: "text/event-stream", headers: streamHeaders })
      })
    )
  })
)
