import { Clock, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { ok } from "../api/Envelope.ts"
import { ErrorMessages, InternalError, ValidationFailed } from "../api/Errors.ts"
import { page } from "../api/Paging.ts"
import { CurrentPartner } from "../api/Security.ts"
import { countryName } from "../domain/Countries.ts"
import { minuteOf } from "../domain/Sports.ts"
import { SportsProvider } from "../sports/SportsProvider.ts"
import { Catalog, type CatalogFilters, type FeedEvent, type InvalidCatalogQuery, type NamedRecord } from "./Catalog.ts"

const invalid = (error: InvalidCatalogQuery) =>
  new ValidationFailed({ message: ErrorMessages.invalidData, errors: error.errors })

const country = (code: string | null) => code === null ? null : countryName(code)

const named = (record: NamedRecord) => ({
  id: record.id,
  name: record.name,
  country: country(record.countryCode),
  country_code: record.countryCode,
  sport_id: record.sportId,
  active: record.active
})

const prematchEntry = (event: FeedEvent) => ({
  event_id: event.id,
  sport_id: event.sportId,
  country: country(event.countryCode),
  league_id: event.leagueId,
  league_name: event.leagueName,
  home_name: event.homeName,
  away_name: event.awayName,
  starts_at: event.startsAt.toISOString(),
  has_odds: event.hasOdds,
  last_update: event.lastUpdate.toISOString()
})

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`

export const CatalogHandlers = HttpApiBuilder.group(
  PartnerApi,
  "catalog",
  Effect.fn(function*(handlers) {
    const catalog = yield* Catalog
    const provider = yield* SportsProvider

    const meta = (request: { page: number; perPage: number }, total: number) => ({
      page: request.page,
      per_page: request.perPage,
      total
    })

    const list = <A, B>(
      fetch: (filters: CatalogFilters, request: { page: number; perPage: number }) => Effect.Effect<{ results: ReadonlyArray<A>; total: number }>,
      toEntry: (item: A) => B
    ) =>
    (query: CatalogFilters & { readonly page?: number | undefined; readonly per_page?: number | undefined }) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        const request = page(query)
        const { results, total } = yield* fetch(query, request)
        return ok(partner, { results: results.map(toEntry), meta: meta(request, total) })
      })

    return handlers.handleAll({
      refresh: ({ payload }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const { report, scope } = yield* catalog.refresh(payload)
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
        }).pipe(
          Effect.catchTags({
            InvalidCatalogQuery: (error) => Effect.fail(invalid(error)),
            SportsProviderError: (error) =>
              Effect.fail(new InternalError({
                message: `The catalog could not be refreshed: the sports provider could not be queried: ${error.message}`,
                provider: provider.name,
                provider_response: error.providerResponse ?? { error: error.reason, error_detail: error.message }
              }))
          })
        ),
      overview: () =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const totals = yield* catalog.overview
          return ok(partner, {
            sports_total: totals.sports,
            countries_total: totals.countries,
            leagues_total: totals.leagues,
            teams_total: totals.teams,
            events_total: totals.events
          })
        }),
      sports: ({ query }) => list(catalog.sports, (sport) => sport)(query),
      countries: ({ query }) => list(catalog.countries, (entry) => entry)(query),
      leagues: ({ query }) => list(catalog.leagues, named)(query),
      teams: ({ query }) => list(catalog.teams, named)(query),
      filters: ({ query }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const source = query.source ?? "prematch"
          const facets = yield* catalog.filters(source, query).pipe(Effect.mapError(invalid))
          return ok(partner, { source, ...facets })
        }),
      prematch: ({ query }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const request = page(query)
          const { results, total } = yield* catalog.feed(
            "prematch",
            query,
            { sortBy: query.sort_by, direction: query.sort_direction },
            request
          ).pipe(Effect.mapError(invalid))
          return ok(partner, { results: results.map(prematchEntry), meta: meta(request, total) })
        }),
      live: ({ query }) =>
        Effect.gen(function*() {
          const partner = yield* CurrentPartner
          const request = page(query)
          const now = yield* Clock.currentTimeMillis
          const { results, total } = yield* catalog.feed(
            "live",
            query,
            { sortBy: query.sort_by, direction: query.sort_direction },
            request
          ).pipe(Effect.mapError(invalid))
          return ok(partner, {
            results: results.map((event) => ({
              ...prematchEntry(event),
              score: event.score ?? "",
              minute: minuteOf(event, now)
            })),
            meta: meta(request, total)
          })
        })
    })
  })
)
