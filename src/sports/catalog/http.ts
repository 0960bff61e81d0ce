import { Clock, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { ok } from "../../api/Envelope.ts"
import { ErrorMessages, InternalError, ValidationFailed } from "../../api/Errors.ts"
import { page } from "../../api/Paging.ts"
import { CurrentPartner } from "../../api/Security.ts"
import { countryName } from "../../domain/Countries.ts"
import type { Page } from "../../domain/Paging.ts"
import type { EventSource, FeedEvent, InvalidSportsCatalogQuery, NamedRecord } from "../../domain/SportsCatalog.ts"
import type { SportsCatalogFilters } from "../../domain/SportsCatalogQuery.ts"
import { minuteOf } from "../../domain/Sports.ts"
import { SportsProvider } from "../SportsProvider.ts"
import { SportsCatalog } from "./SportsCatalog.ts"

const invalid = (error: InvalidSportsCatalogQuery) =>
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

/** The query's filters, as the catalog takes them. */
const filtersOf = (query: {
  readonly sport_id?: string | undefined
  readonly country?: string | undefined
  readonly league_id?: string | undefined
  readonly team_id?: string | undefined
  readonly search?: string | undefined
  readonly has_odds?: boolean | undefined
  readonly date?: string | undefined
  readonly date_from?: string | undefined
  readonly date_to?: string | undefined
  readonly active?: boolean | undefined
}): SportsCatalogFilters => ({
  sport: query.sport_id,
  country: query.country,
  leagueId: query.league_id,
  teamId: query.team_id,
  search: query.search,
  hasOdds: query.has_odds,
  date: query.date,
  dateFrom: query.date_from,
  dateTo: query.date_to,
  active: query.active
})

type FeedQuery = Parameters<typeof filtersOf>[0] & {
  readonly page?: number | undefined
  readonly per_page?: number | undefined
  readonly sort_by?: string | undefined
  readonly sort_direction?: string | undefined
}

/** A page as every list answers it: `results` and `meta`. */
const listed = <A, B>(answer: Page<A>, toEntry: (item: A) => B) => ({
  results: answer.results.map(toEntry),
  meta: { page: answer.page, per_page: answer.perPage, total: answer.total }
})

export const SportsCatalogHandlers = HttpApiBuilder.group(
  PartnerApi,
  "catalog",
  Effect.fn("SportsCatalogHttp.handlers")(function*(handlers) {
    const catalog = yield* SportsCatalog
    const provider = yield* SportsProvider

    const list = <A, B>(
      name: string,
      fetch: (filters: SportsCatalogFilters, request: { page: number; perPage: number }) => Effect.Effect<Page<A>>,
      toEntry: (item: A) => B
    ) =>
      Effect.fn(`SportsCatalogHttp.${name}`)(function*({ query }: {
        readonly query: Parameters<typeof filtersOf>[0] & { readonly page?: number | undefined; readonly per_page?: number | undefined }
      }) {
        const partner = yield* CurrentPartner
        return ok(partner, listed(yield* fetch(filtersOf(query), page(query)), toEntry))
      })

    const feed = (source: EventSource, query: FeedQuery) =>
      catalog.feed(source, filtersOf(query), { sortBy: query.sort_by, direction: query.sort_direction }, page(query)).pipe(
        Effect.mapError(invalid)
      )

    return handlers.handleAll({
      refresh: Effect.fn("SportsCatalogHttp.refresh")(
        function*({ payload }) {
          const partner = yield* CurrentPartner
          const { report, scope } = yield* catalog.refresh(payload && {
            sport: payload.sport_id,
            importLeagues: payload.import_leagues,
            importEvents: payload.import_events
          })
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
        Effect.catchTags({
          InvalidSportsCatalogQuery: (error) => Effect.fail(invalid(error)),
          SportsProviderError: (error) =>
            Effect.fail(
              new InternalError({
                message: `The catalog could not be refreshed: the sports provider could not be queried: ${error.message}`,
                provider: provider.name,
                provider_response: error.providerResponse ?? { error: error.reason, error_detail: error.message }
              })
            )
        })
      ),
      overview: Effect.fn("SportsCatalogHttp.overview")(function*() {
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
      sports: list("sports", catalog.sports, (sport) => sport),
      countries: list("countries", catalog.countries, (entry) => entry),
      leagues: list("leagues", catalog.leagues, named),
      teams: list("teams", catalog.teams, named),
      filters: Effect.fn("SportsCatalogHttp.filters")(function*({ query }) {
        const partner = yield* CurrentPartner
        const source = query.source ?? "prematch"
        const facets = yield* catalog.filters(source, filtersOf(query)).pipe(Effect.mapError(invalid))
        return ok(partner, { source, ...facets })
      }),
      prematch: Effect.fn("SportsCatalogHttp.prematch")(function*({ query }) {
        const partner = yield* CurrentPartner
        return ok(partner, listed(yield* feed("prematch", query), prematchEntry))
      }),
      live: Effect.fn("SportsCatalogHttp.live")(function*({ query }) {
        const partner = yield* CurrentPartner
        const now = yield* Clock.currentTimeMillis
        const answer = yield* feed("live", query)
        return ok(partner, listed(answer, (event) => ({ ...prematchEntry(event), score: event.score ?? "", minute: minuteOf(event, now) })))
      })
    })
  })
)
