import { Effect, Schema } from "effect"
import type { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import {
  FiltersCodec,
  FiltersData,
  LiveEntryCodec,
  LiveFeedData,
  NamedEntryCodec,
  OverviewCodec,
  PrematchEntryCodec,
  PrematchFeedData,
  type RefreshRequest
} from "../../api/Catalog.ts"
import { envelopeWriter, ok } from "../../api/Envelope.ts"
import { ErrorMessages, InternalError, ValidationFailed } from "../../api/Errors.ts"
import { encodeWith, listed, page } from "../../api/Paging.ts"
import { CurrentPartner } from "../../api/Security.ts"
import type { Page } from "../../domain/Paging.ts"
import {
  CountryRecord,
  type Facets,
  type FeedEntry,
  type InvalidSportsCatalogQuery,
  type LiveFeedEntry,
  SportRecord
} from "../../domain/SportsCatalog.ts"
import { SportsProvider } from "../SportsProvider.ts"
import { SportsCatalog } from "./SportsCatalog.ts"

const invalid = (error: InvalidSportsCatalogQuery) =>
  new ValidationFailed({ message: ErrorMessages.invalidData, errors: error.errors })

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`

/** The query's filters, as the catalog takes them: already checked by the contract, so a failure here is a defect. */
const filtersOf = Schema.decodeSync(FiltersCodec)

interface FeedQuery {
  readonly sort_by?: string | undefined
  readonly sort_direction?: string | undefined
}

const sortOf = (query: FeedQuery) => ({ sortBy: query.sort_by, direction: query.sort_direction })

type Services = { readonly catalog: SportsCatalog["Service"] }

/** The catalog the token reaches (a test token's is the sandbox world's). */
const services = Effect.map(Effect.service(SportsCatalog), (catalog): Services => ({ catalog }))

/** The envelope around what `answer` gives from the current partner's catalog. */
const respond = <A, E, R>(answer: (services: Services) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.all([Effect.service(CurrentPartner), services]), ([partner, services]) =>
    Effect.map(answer(services), (data) => ok(partner, data)))

export const SportsCatalogHandlers = HttpApiBuilder.group(
  PartnerApi,
  "catalog",
  Effect.fn("SportsCatalogHttp.handlers")(function*(handlers) {
    const encode = <A, B, E>(answer: (services: Services) => Effect.Effect<A, E>, toWire: (value: A) => Effect.Effect<B>) =>
      respond((services) => Effect.flatMap(answer(services), toWire))

    /** A refresh as asked for, and what it imported, worded for the partner. */
    const refresh = Effect.fn("SportsCatalogHttp.refresh")(
      function*(payload: RefreshRequest | null) {
        const partner = yield* CurrentPartner
        const catalog = yield* SportsCatalog
        const provider = yield* SportsProvider
        const { report, scope } = yield* catalog.refresh(payload && {
          sport: payload.sport_id,
          importLeagues: payload.import_leagues,
          importEvents: payload.import_events
        }).pipe(Effect.catchTag("SportsProviderError", (error) =>
          Effect.fail(
            new InternalError({
              message: `The catalog could not be refreshed: the sports provider could not be queried: ${error.message}`,
              provider: provider.name,
              provider_response: error.providerResponse ?? { error: error.reason, error_detail: error.message }
            })
          )))
        const message = `Imported ${plural(report.sports, "sport")}, ${plural(report.countries, "country", "countries")}, ` +
          `${plural(report.leagues, "league")}, ${plural(report.teams, "team")} and ${plural(report.events, "event")}` +
          ` from ${provider.name}: ${plural(report.changed, "record")} new or changed, ${report.deactivated.toLocaleString("en-US")} deactivated.`
        return ok(partner, {
          sport_id: payload?.sport_id ?? null,
          import_leagues: scope.leagues,
          import_events: scope.events,
          message,
          imported: {
            sports: report.sports,
            countries: report.countries,
            leagues: report.leagues,
            teams: report.teams,
            events: report.events,
            deactivated: report.deactivated
          }
        }, { message })
      },
      Effect.catchTag("InvalidSportsCatalogQuery", (error) => Effect.fail(invalid(error)))
    )

    // The reads partners poll: each value the catalog answers again (from its cache) is written once.
    const writePrematch = envelopeWriter(PrematchFeedData, listed(PrematchEntryCodec))
    const writeLive = envelopeWriter(LiveFeedData, listed(LiveEntryCodec))
    const writeFilters = envelopeWriter(FiltersData, (facets: Facets, source) => Effect.succeed({ source, ...facets }))
    /** The envelope around what `read` gives from the current partner's catalog, written by `write`. */
    const written = <A>(
      read: (services: Services) => Effect.Effect<A, InvalidSportsCatalogQuery>,
      write: (partner: typeof CurrentPartner.Service, value: A) => Effect.Effect<HttpServerResponse.HttpServerResponse>
    ) =>
      Effect.flatMap(Effect.all([Effect.service(CurrentPartner), services]), ([partner, services]) =>
        read(services).pipe(
          Effect.mapError(invalid),
          Effect.flatMap((value) => write(partner, value))
        ))

    return handlers.handleAll({
      refresh: ({ payload }) => refresh(payload),
      overview: () => encode(({ catalog }) => catalog.overview, encodeWith(OverviewCodec)),
      sports: ({ query }) => encode(({ catalog }) => catalog.sports(filtersOf(query), page(query)), listed(SportRecord)),
      countries: ({ query }) => encode(({ catalog }) => catalog.countries(filtersOf(query), page(query)), listed(CountryRecord)),
      leagues: ({ query }) => encode(({ catalog }) => catalog.leagues(filtersOf(query), page(query)), listed(NamedEntryCodec)),
      teams: ({ query }) => encode(({ catalog }) => catalog.teams(filtersOf(query), page(query)), listed(NamedEntryCodec)),
      filters: ({ query }) => {
        const source = query.source ?? "prematch"
        return written(({ catalog }) => catalog.filters(source, filtersOf(query)), (partner, facets) => writeFilters(partner, facets, source))
      },
      prematch: ({ query }) =>
        written(({ catalog }) => catalog.prematch(filtersOf(query), sortOf(query), page(query)), (partner, answer: Page<FeedEntry>) =>
          writePrematch(partner, answer)),
      live: ({ query }) =>
        written(({ catalog }) => catalog.live(filtersOf(query), sortOf(query), page(query)), (partner, answer: Page<LiveFeedEntry>) =>
          writeLive(partner, answer))
    })
  })
)
