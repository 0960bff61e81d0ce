import { Clock, Context, Effect, Fiber, FiberMap, Layer, Option } from "effect"
import { countryName } from "../../domain/Countries.ts"
import { type Page, pageOf, type PageRequest } from "../../domain/Paging.ts"
import { timedRefresh } from "../../platform/Metrics.ts"
import type {
  CountryRecord,
  EventSource,
  Facets,
  FeedEvent,
  InvalidSportsCatalogQuery,
  NamedRecord,
  RefreshOutcome,
  RefreshRequest,
  RefreshScope,
  SportRecord,
  SportsCatalogOverview
} from "../../domain/SportsCatalog.ts"
import {
  type EventQuery,
  eventQueryOf,
  type Facet,
  facetQueryOf,
  type FeedOrder,
  feedOrderOf,
  type ListQuery,
  listQueryOf,
  liveRefreshScopeOf,
  refreshScopeOf,
  type SportsCatalogFilters,
  sortedNames,
  sportName
} from "../../domain/SportsCatalogQuery.ts"
import * as ByteBoundedCache from "../../platform/ByteBoundedCache.ts"
import { SportsProvider, type SportsProviderError } from "../SportsProvider.ts"
import { fetchSnapshot } from "./CatalogImport.ts"
import { SportsCatalogConfig } from "./SportsCatalogConfig.ts"
import { SportsCatalogRepo } from "./SportsCatalogRepo.ts"
import { SportsCatalogRepoSql } from "./SportsCatalogRepoSql.ts"

/** A feed's sort as the partner asked for it; anything unknown means time ascending. */
export interface FeedSort {
  readonly sortBy?: string | undefined
  readonly direction?: string | undefined
}

type ListKind = "sports" | "countries" | "leagues" | "teams"

/**
 * One cached read, as a key: built only by `reads` below, from queries the rules already read, so two
 * requests that mean the same thing are equal values (effect's structural Equal) and share an entry.
 * `A` is the answer's type (never present at run time).
 */
type Read<A> = (
  | { readonly kind: "feedPage"; readonly query: EventQuery; readonly order: FeedOrder; readonly page: PageRequest }
  | { readonly kind: "feedTotal"; readonly query: EventQuery }
  | { readonly kind: "facet"; readonly facet: Facet; readonly query: EventQuery }
  | { readonly kind: ListKind; readonly query: ListQuery; readonly page: PageRequest }
  | { readonly kind: "overview" }
) & { readonly answer?: A }

const pageKey = (page: PageRequest): PageRequest => ({ page: page.page, perPage: page.perPage })

const reads = {
  feedPage: (query: EventQuery, order: FeedOrder, page: PageRequest): Read<ReadonlyArray<FeedEvent>> => ({
    kind: "feedPage",
    query,
    order,
    page: pageKey(page)
  }),
  /** Counted once per set of filters, whatever the page or the sort. */
  feedTotal: (query: EventQuery): Read<number> => ({ kind: "feedTotal", query }),
  /** Facets are read apart: the leagues facet of `league_id=7` is the one of no league chosen, shared. */
  facet: (facet: Facet, query: EventQuery): Read<ReadonlyArray<string>> => ({ kind: "facet", facet, query: facetQueryOf(facet, query) }),
  sports: (query: ListQuery, page: PageRequest): Read<Page<SportRecord>> => ({ kind: "sports", query, page: pageKey(page) }),
  countries: (query: ListQuery, page: PageRequest): Read<Page<CountryRecord>> => ({ kind: "countries", query, page: pageKey(page) }),
  leagues: (query: ListQuery, page: PageRequest): Read<Page<NamedRecord>> => ({ kind: "leagues", query, page: pageKey(page) }),
  teams: (query: ListQuery, page: PageRequest): Read<Page<NamedRecord>> => ({ kind: "teams", query, page: pageKey(page) }),
  overview: (): Read<SportsCatalogOverview> => ({ kind: "overview" })
}

/**
 * The local sports catalog (the casino's is CasinoCatalog): refreshed from
 * the SportsProvider, read by the catalog lists, the dynamic filters and
 * the feeds. Reads are answered from memory for CATALOG_CACHE_TTL, within
 * CATALOG_CACHE_MAX_SIZE, and forgotten on every instance when a refresh
 * lands. Its tables are SportsCatalogRepo's; the rules that read a query
 * are SportsCatalogQuery's.
 */
export class SportsCatalog extends Context.Service<SportsCatalog, {
  refresh(request: RefreshRequest | null | undefined): Effect.Effect<RefreshOutcome, InvalidSportsCatalogQuery | SportsProviderError>
  /** Events in play (and just ended): score, minute, status. */
  readonly refreshLive: Effect.Effect<RefreshOutcome, SportsProviderError>
  readonly overview: Effect.Effect<SportsCatalogOverview>
  readonly isEmpty: Effect.Effect<boolean>
  sports(filters: SportsCatalogFilters, page: PageRequest): Effect.Effect<Page<SportRecord>>
  countries(filters: SportsCatalogFilters, page: PageRequest): Effect.Effect<Page<CountryRecord>>
  leagues(filters: SportsCatalogFilters, page: PageRequest): Effect.Effect<Page<NamedRecord>>
  teams(filters: SportsCatalogFilters, page: PageRequest): Effect.Effect<Page<NamedRecord>>
  /** The dynamic filters: each facet narrowed by every chosen filter except its own. */
  filters(source: EventSource, filters: SportsCatalogFilters): Effect.Effect<Facets, InvalidSportsCatalogQuery>
  feed(
    source: EventSource,
    filters: SportsCatalogFilters,
    sort: FeedSort,
    page: PageRequest
  ): Effect.Effect<Page<FeedEvent>, InvalidSportsCatalogQuery>
}>()("partner-api/catalog/SportsCatalog") {
  /** The service over whichever SportsCatalogRepo is provided (the tests' in-memory one, say). */
  static readonly layerNoDeps = Layer.effect(
    SportsCatalog,
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      const provider = yield* SportsProvider
      const config = yield* SportsCatalogConfig

      // ---- reads, through the cache

      const facetNames = (facet: Facet, query: EventQuery): Effect.Effect<ReadonlyArray<string>> => {
        switch (facet) {
          case "sport":
            return Effect.map(repo.eventSportIds(query), (ids) => sortedNames(ids.map(sportName)))
          case "country":
            return Effect.map(repo.eventCountryCodes(query), (codes) => sortedNames(codes.map(countryName)))
          case "league":
            return Effect.map(repo.eventLeagueNames(query), sortedNames)
          case "team":
            return Effect.map(repo.eventTeamNames(query), sortedNames)
        }
      }

      const lookup = (read: Read<unknown>): Effect.Effect<unknown> => {
        switch (read.kind) {
          case "feedPage":
            return repo.feedPage(read.query, read.order, read.page)
          case "feedTotal":
            return repo.feedTotal(read.query)
          case "facet":
            return facetNames(read.facet, read.query)
          case "sports":
          case "countries":
          case "leagues":
          case "teams":
            return repo[read.kind](read.query, read.page)
          case "overview":
            return repo.overview
        }
      }
      const cache = yield* ByteBoundedCache.make({
        lookup,
        timeToLive: config.cacheTtl,
        maxBytes: config.cacheMaxBytes
      })
      // The one place an answer's type is restored: a Read<A> is only ever built to answer an A.
      const read = <A>(key: Read<A>) => cache.get(key) as Effect.Effect<A>

      yield* repo.onChange(cache.invalidateAll)

      const feed = Effect.fn("SportsCatalog.feed")(function*(
        source: EventSource,
        filters: SportsCatalogFilters,
        sort: FeedSort,
        page: PageRequest
      ) {
        const query = yield* Effect.fromResult(eventQueryOf(source, filters))
        const order = feedOrderOf(sort.sortBy, sort.direction)
        const [results, total] = yield* Effect.all([
          read(reads.feedPage(query, order, page)),
          read(reads.feedTotal(query))
        ], { concurrency: 2 })
        return pageOf(page, results, total)
      })

      const facets = Effect.fn("SportsCatalog.filters")(function*(source: EventSource, filters: SportsCatalogFilters) {
        const query = yield* Effect.fromResult(eventQueryOf(source, filters))
        return yield* Effect.all({
          sports: read(reads.facet("sport", query)),
          countries: read(reads.facet("country", query)),
          leagues: read(reads.facet("league", query)),
          teams: read(reads.facet("team", query))
        }, { concurrency: 4 })
      })

      const list = <A>(kind: ListKind, build: (query: ListQuery, page: PageRequest) => Read<Page<A>>) =>
        Effect.fn(`SportsCatalog.${kind}`)((filters: SportsCatalogFilters, page: PageRequest) =>
          read(build(listQueryOf(filters), page))
        )

      // ---- refresh

      const runRefresh = Effect.fn("SportsCatalog.runRefresh")(function*(scope: RefreshScope) {
        const now = yield* Clock.currentTimeMillis
        const snapshot = yield* fetchSnapshot(provider, scope, now)
        const fetched = yield* Clock.currentTimeMillis
        const report = yield* repo.publish(snapshot)
        // This instance forgets at once; the others when the change announced at commit reaches them.
        yield* cache.invalidateAll
        const published = yield* Clock.currentTimeMillis
        // The frequent live refresh logs at debug level; a full one is worth a line.
        yield* Effect.logWithLevel(scope.liveOnly ? "Debug" : "Info")(
          scope.liveOnly ? "Live events refreshed" : "Sports catalog refreshed"
        ).pipe(Effect.annotateLogs({ ...report, fetch_ms: fetched - now, publish_ms: published - fetched }))
        return { scope, report } satisfies RefreshOutcome
      })

      // The same refresh asked for twice at once runs once; every caller gets its outcome.
      const running = yield* FiberMap.make<RefreshScope, RefreshOutcome, SportsProviderError>()
      const refreshOnce = (scope: RefreshScope) =>
        Effect.suspend(() =>
          Option.match(FiberMap.getUnsafe(running, scope), {
            onSome: Effect.succeed,
            onNone: () => FiberMap.run(running, scope, runRefresh(scope).pipe(timedRefresh(scope.liveOnly ? "catalog_live" : "catalog_full")))
          })
        ).pipe(Effect.flatMap(Fiber.join))

      const refresh = Effect.fn("SportsCatalog.refresh")(function*(request: RefreshRequest | null | undefined) {
        return yield* refreshOnce(yield* Effect.fromResult(refreshScopeOf(request, config.sportIds)))
      })

      return SportsCatalog.of({
        refresh,
        refreshLive: refreshOnce(liveRefreshScopeOf(config.sportIds)).pipe(Effect.withSpan("SportsCatalog.refreshLive")),
        overview: read(reads.overview()).pipe(Effect.withSpan("SportsCatalog.overview")),
        isEmpty: repo.isEmpty,
        sports: list("sports", reads.sports),
        countries: list("countries", reads.countries),
        leagues: list("leagues", reads.leagues),
        teams: list("teams", reads.teams),
        filters: facets,
        feed
      })
    })
  )

  /** Over PostgreSQL. */
  static readonly layer = SportsCatalog.layerNoDeps.pipe(Layer.provide(SportsCatalogRepoSql))
}
