import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { servedApi } from "../../platform/QueryOnce.ts"
import {
  CountryEntryCodec,
  FiltersData,
  LiveFeedData,
  NamedEntryCodec,
  OverviewCodec,
  PrematchFeedData,
  SportEntryCodec
} from "../../api/CatalogWire.ts"
import {
  feedFailures,
  filtersAnswer,
  filtersOf,
  invalidQuery,
  liveFeedAnswer,
  lostPosition,
  prematchAnswer,
  refreshAnswer,
  refreshFailures,
  refreshOf,
  sinceOf,
  sortOf,
  synced
} from "../../api/CatalogEdge.ts"
import { envelopeWriter } from "../../api/Envelope.ts"
import { respond, respondWith, respondWritten } from "../../api/Respond.ts"
import { encodeWith, page } from "../../api/Paging.ts"
import { SportsProvider } from "../SportsProvider.ts"
import { SportsCatalog } from "./SportsCatalog.ts"

/** The catalog group: the catalog the token reaches (PartnerUpstreams; a test token's is over the sandbox's sports data). */
export const SportsCatalogHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "catalog",
  Effect.fn("SportsCatalogHttp.handlers")(function*(handlers) {
    // The reads partners poll: each value the catalog answers again (from its cache) is written once.
    const writePrematch = envelopeWriter(PrematchFeedData, prematchAnswer)
    const writeLive = envelopeWriter(LiveFeedData, liveFeedAnswer)
    const writeFilters = envelopeWriter(FiltersData, filtersAnswer)

    return handlers.handleAll({
      refresh: ({ payload }) =>
        SportsProvider.use((provider) =>
          respondWith(
            () => SportsCatalog.use((catalog) => catalog.refresh(refreshOf(payload))),
            refreshAnswer(payload, provider.name)
          )
            .pipe(Effect.catchTags(refreshFailures(provider.name)))
        ),
      overview: () => respond(() => SportsCatalog.use((catalog) => catalog.overview), encodeWith(OverviewCodec)),
      sports: ({ query }) =>
        respond(
          () => SportsCatalog.use((catalog) => catalog.sports(filtersOf(query), page(query), sinceOf(query))),
          synced(SportEntryCodec)
        ).pipe(Effect.mapError(lostPosition)),
      countries: ({ query }) =>
        respond(
          () => SportsCatalog.use((catalog) => catalog.countries(filtersOf(query), page(query), sinceOf(query))),
          synced(CountryEntryCodec)
        ).pipe(Effect.mapError(lostPosition)),
      leagues: ({ query }) =>
        respond(
          () => SportsCatalog.use((catalog) => catalog.leagues(filtersOf(query), page(query), sinceOf(query))),
          synced(NamedEntryCodec)
        ).pipe(Effect.mapError(lostPosition)),
      teams: ({ query }) =>
        respond(
          () => SportsCatalog.use((catalog) => catalog.teams(filtersOf(query), page(query), sinceOf(query))),
          synced(NamedEntryCodec)
        ).pipe(Effect.mapError(lostPosition)),
      filters: ({ query }) =>
        respondWritten(
          () => SportsCatalog.use((catalog) => catalog.filters(query.source ?? "prematch", filtersOf(query))),
          (partner, facets) => writeFilters(partner, facets, query.source ?? "prematch")
        ).pipe(Effect.mapError(invalidQuery)),
      prematch: ({ query }) =>
        respondWritten(
          () =>
            SportsCatalog.use((catalog) =>
              catalog.prematch(filtersOf(query), sortOf(query), page(query), sinceOf(query))
            ),
          writePrematch
        )
          .pipe(Effect.catchTags(feedFailures)),
      live: ({ query }) =>
        respondWritten(
          () =>
            SportsCatalog.use((catalog) => catalog.live(filtersOf(query), sortOf(query), page(query), sinceOf(query))),
          writeLive
        )
          .pipe(Effect.catchTags(feedFailures))
    })
  })
)
