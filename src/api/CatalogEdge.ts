/**
 * The catalog's edge (its contract is ./Catalog.ts): a request as the catalog takes it, and its answers as the
 * contract writes them.
 */
import { Effect, Schema } from "effect"
import type {
  Facets,
  InvalidSportsCatalogQuery,
  RefreshOutcome,
  RefreshRequest as CatalogRefresh
} from "../domain/SportsCatalog.ts"
import type { LostPosition, Synced } from "../domain/SportsCatalogSync.ts"
import type { RefreshRequest } from "./CatalogQuery.ts"
import { FiltersCodec, LiveEntryCodec, PrematchEntryCodec } from "./CatalogWire.ts"
import { ErrorMessages, Gone, InternalError, ValidationFailed } from "./Errors.ts"
import { encodeWith } from "./Paging.ts"

/** The query's filters, as the catalog takes them: already checked by the contract, so a failure here is a defect. */
export const filtersOf = Schema.decodeSync(FiltersCodec)

/** A feed's sort, as the catalog takes it. */
export const sortOf = (
  query: { readonly sort_by?: string | undefined; readonly sort_direction?: string | undefined }
) => ({
  sortBy: query.sort_by,
  direction: query.sort_direction
})

/** The position a list's query goes on from (`?since=`), none: the whole list. */
export const sinceOf = (query: { readonly since?: number | undefined }) => query.since ?? null

/** A since the change log no longer covers (or never did): the 410 saying so, in the stream's words. */
export const lostPosition = (lost: LostPosition) => new Gone({ message: lost.message, reason: lost.reason })

/** A query the catalog cannot read: a 422 naming its fields. */
export const invalidQuery = (error: InvalidSportsCatalogQuery) =>
  new ValidationFailed({ message: ErrorMessages.invalidData, errors: error.errors })

/** A refresh body as the catalog takes it (no body: the catalog's default refresh). */
export const refreshOf = (payload: RefreshRequest | null): CatalogRefresh | null =>
  payload && { sport: payload.sport_id, importLeagues: payload.import_leagues, importEvents: payload.import_events }

const plural = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`

/** A refresh as asked for, and what it imported from `provider`, worded for the partner (the envelope's message too). */
export const refreshAnswer =
  (payload: RefreshRequest | null, provider: string) => ({ report, scope }: RefreshOutcome) => {
    const message =
      `Imported ${plural(report.sports, "sport")}, ${plural(report.countries, "country", "countries")}, ` +
      `${plural(report.leagues, "league")}, ${plural(report.teams, "team")} and ${plural(report.events, "event")}` +
      ` from ${provider}: ${plural(report.changed, "record")} new or changed, ${
        report.deactivated.toLocaleString("en-US")
      } deactivated.`
    return Effect.succeed({
      data: {
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
      },
      message
    })
  }

/** A refresh's failures as the contract answers them: a query it cannot read is a 422, the provider's failure a 500. */
export const refreshFailures = (provider: string) => ({
  InvalidSportsCatalogQuery: (error: InvalidSportsCatalogQuery) => Effect.fail(invalidQuery(error)),
  SportsProviderError: (error: {
    readonly message: string
    readonly reason: string
    readonly providerResponse?: unknown
  }) =>
    Effect.fail(
      new InternalError({
        message: `The catalog could not be refreshed: the sports provider could not be queried: ${error.message}`,
        provider,
        provider_response: error.providerResponse ?? { error: error.reason, error_detail: error.message }
      })
    )
})

/** A list or a feed as the catalog's lists answer: `results` encoded by `entry`, and `meta` with `next_since`. */
export const synced = <S extends Schema.Codec<unknown, unknown>>(entry: S) => {
  const encode = encodeWith(Schema.Array(entry))
  return (answer: Synced<S["Type"]>) =>
    Effect.map(encode(answer.results), (results) => ({
      results,
      meta: { page: answer.page, per_page: answer.perPage, total: answer.total, next_since: answer.next }
    }))
}

/** A feed's failures as the contract answers them: a query it cannot read is a 422, a lost since a 410. */
export const feedFailures = {
  InvalidSportsCatalogQuery: (error: InvalidSportsCatalogQuery) => Effect.fail(invalidQuery(error)),
  LostPosition: (error: LostPosition) => Effect.fail(lostPosition(error))
}

export const prematchAnswer = synced(PrematchEntryCodec)
export const liveFeedAnswer = synced(LiveEntryCodec)

/** The facets of a source's feed, the source named. */
export const filtersAnswer = (facets: Facets, source: string) =>
  Effect.succeed({ source: source as "prematch" | "live", ...facets })
