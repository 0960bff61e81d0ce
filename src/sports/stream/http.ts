import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { servedApi } from "../../platform/QueryOnce.ts"
import { CurrentPartner } from "../../api/Security.ts"
import { lastEventIdOf, streamAnswer, streamFilterOfQuery, streamLimitReached } from "../../api/SportsStream.ts"
import { oddsFormatOf } from "../../api/SportsEdge.ts"
import { SportsProvider } from "../SportsProvider.ts"
import { SportsStream } from "./SportsStream.ts"

/** The stream group: the changes of the sports provider the token reaches (PartnerUpstreams), by its name. */
export const SportsStreamHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "stream",
  Effect.fn("SportsStreamHttp.handlers")(function*(handlers) {
    const streams = yield* SportsStream
    return handlers.handle(
      "changes",
      ({ headers, query, request }) =>
        Effect.all([
          Effect.service(CurrentPartner),
          Effect.service(SportsProvider),
          lastEventIdOf(headers["last-event-id"])
        ]).pipe(
          Effect.flatMap(([partner, provider, lastEventId]) =>
            streams.open({
              partner,
              provider: provider.name,
              filter: streamFilterOfQuery(query),
              oddsFormat: oddsFormatOf(query),
              lastEventId,
              abort: Effect.sync(() => NodeHttpServerRequest.toServerResponse(request).destroy())
            })
          ),
          Effect.catchTag("StreamLimitReached", streamLimitReached),
          Effect.map(streamAnswer(oddsFormatOf(query)))
        )
    )
  })
)
