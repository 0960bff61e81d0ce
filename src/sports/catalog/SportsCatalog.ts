import { Clock, Context, Effect, Fiber, FiberMap, Layer, Option } from "effect"
import { countryName } from "../../domain/Countries.ts"
import { minuteOf } from "../../domain/Sports.ts"
import { type Page, pageOf, type PageRequest } from "../../domain/Paging.ts"
import { timedRefresh } from "../../platform/Metrics.ts"
import {
  type CountryRecord,
  type EventSource,
  type Facets,
  type FeedEntry,
  feedEntryOf,
  type FeedEvent,
  type InvalidSportsCatalogQuery,
  liveEntryOf,
  type LiveFeedEntry,
  type NamedEntry,
  namedEntryOf,
  type RefreshOutcome,
  type RefreshRequest,
  type RefreshScope,
  type SportRecord,
  type SportsCatalogOverview
} from "../../domain/SportsCatalog.ts"
import {
  type EventQuery,
  eventQueryFields,
  eventQueryOf,
  facetQueryOf,
  type FeedOrder,
  feedOrderFields,
  feedOrderOf,
  type ListQuery,
  listQueryFields,
  listQueryOf,
  liveRefreshScopeOf,
  offeredRefreshScope,
  offeredSportIds,
  refreshScopeOf,
  sortedNames,
  sportName,
  type SportsCatalogFilters
} from "../../domain/SportsCatalogQuery.ts"
import * as ByteBoundedCache from "../../platform/ByteBoundedCache.ts"
import { traced } from "../../platform/Traced.ts"
import { SportsProvider, type SportsProviderError } from "../SportsProvider.ts"
import { CatalogChanges } from "./CatalogChanges.ts"
import { fetchSnapshot } from "./CatalogImport.ts"
import { SportsCatalogConfig } from "./SportsCatalogConfig.ts"
import { SportsCatalogRepo } from "./SportsCatalogRepo.ts"
import * as SportsCatalogRepoMemory from "./SportsCatalogRepoMemory.ts"

/** A feed's sort as the partner asked for it; anything unknown means time ascending. */
export interface FeedSort {
  readonly sortBy?: string | undefined
  readonly direction?: string | undefined
}

/** A page as a cache key: the request's page and size only, whatever else it carries. */
const pageKey = (page: PageRequest): PageRequest => ({ page: page.page, perPage: page.perPage })

/**
 * The local sports catalog (the casino's is CasinoCatalog): refreshed from
 * the SportsProvider, read by the catalog lists, the dynamic filters and
 * the feeds. Reads are answered from memory for CATALOG_CACHE_TTL, within
 * CATALOG_CACHE_MAX_SIZE, and forgotten on every instance when a refresh
 * lands. Its tables are SportsCatalogRepo's; the rules that read a query
 * are SportsCatalogQuery's.
 */
export class SportsCatalog extends Context.Service<SportsCatalog, {
  refresh(
    request: RefreshRequest | null | undefined
  ): Effect.Effect<RefreshOutcome, InvalidSportsCatalogQuery | SportsProviderError>
  /** Events in play (and just ended): score, minute, status. */
  readonly refreshLive: Effect.Effect<RefreshOutcome, SportsProviderError>
  readonly overview: Effect.Effect<SportsCatalogOverview>
  /** No event of the active provider: never filled, or filled by the provider a switch left (sql/0037). */
  readonly isEmpty: Effect.Effect<boolean>
  sports(filters: SportsCatalogFilters, page: PageRequest): Effect.Effect<Page<SportRecord>>
  countries(filters: SportsCatalogFilters, page: PageRequest): Effect.Effect<Page<CountryRecord>>
  leagues(filters: SportsCatalogFilters, page: PageRequest): Effect.Effect<Page<NamedEntry>>
  teams(filters: SportsCatalogFilters, page: PageRequest): Effect.Effect<Page<NamedEntry>>
  /** The dynamic filters: each facet narrowed by every chosen filter except its own. */
  filters(source: EventSource, filters: SportsCatalogFilters): Effect.Effect<Facets, InvalidSportsCatalogQuery>
  /** Events not started yet. */
  prematch(
    filters: SportsCatalogFilters,
    sort: FeedSort,
    page: PageRequest
  ): Effect.Effect<Page<FeedEntry>, InvalidSportsCatalogQuery>
  /** Events in play, with their minute as of now. */
  live(
    filters: SportsCatalogFilters,
    sort: FeedSort,
    page: PageRequest
  ): Effect.Effect<Page<LiveFeedEntry>, InvalidSportsCatalogQuery>
}>()("partner-api/catalog/SportsCatalog") {
  /** The service over whichever SportsCatalogRepo is provided (the tests' in-memory one, say). */
  static readonly layerNoDeps = Layer.effect(
    SportsCatalog,
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      const provider = yield* SportsProvider
      const config = yield* SportsCatalogConfig

      const entries = <A, B>(answer: Page<A>, entryOf: (item: A) => B): Page<B> => ({
        ...answer,
        results: answer.results.map(entryOf)
      })

      // ---- reads, through the caches: one per kind of read, all under one budget, keyed by the
      // queries the rules already read, so two requests that mean the same thing share an entry.

      const budget = ByteBoundedCache.makeBudget(config.cacheMaxBytes)
      const cached = <Key extends string, A>(lookup: (key: Key) => Effect.Effect<A>) =>
        Effect.map(budget.cache({ lookup, timeToLive: config.cacheTtl }), (cache) => cache.get)
      /**
       * Keyed by the query written as one string (`fields`: each field in a fixed order, so the same query is the
       * same JSON), which a read hashes and compares as a string, not structurally field by field; a miss reads
       * the query back from its JSON.
       */
      const cachedBy = <Key, A>(fields: (key: Key) => Key, lookup: (key: Key) => Effect.Effect<A>) =>
        Effect.map(
          budget.cache({
            lookup: (text: string) => lookup(JSON.parse(text) as Key),
            timeToLive: config.cacheTtl
          }),
          (cache) => (key: Key) => cache.get(JSON.stringify(fields(key)))
        )

      /** Counted once per set of filters, whatever the page or the sort. */
      const feedTotal = yield* cachedBy(eventQueryFields, repo.feedTotal)
      // Facets are read apart (facetQueryOf): the leagues facet of `league_id=7` is the one of no league chosen, shared.
      const sportFacet = yield* cachedBy(
        eventQueryFields,
        (query) => Effect.map(repo.eventSportIds(query), (ids) => sortedNames(ids.map(sportName)))
      )
      const countryFacet = yield* cachedBy(
        eventQueryFields,
        (query) => Effect.map(repo.eventCountryCodes(query), (codes) => sortedNames(codes.map(countryName)))
      )
      const leagueFacet = yield* cachedBy(
        eventQueryFields,
        (query) => Effect.map(repo.eventLeagueNames(query), sortedNames)
      )
      const teamFacet = yield* cachedBy(
        eventQueryFields,
        (query) => Effect.map(repo.eventTeamNames(query), sortedNames)
      )
      type ListKey = { readonly query: ListQuery; readonly page: PageRequest }
      const listKeyFields = (key: ListKey): ListKey => ({ query: listQueryFields(key.query), page: pageKey(key.page) })
      const sportList = yield* cachedBy(listKeyFields, (key) => repo.sports(key.query, key.page))
      const countryList = yield* cachedBy(listKeyFields, (key) => repo.countries(key.query, key.page))
      const leagueList = yield* cachedBy(listKeyFields, (key) => repo.leagues(key.query, key.page))
      const teamList = yield* cachedBy(listKeyFields, (key) => repo.teams(key.query, key.page))
      const overview = yield* cached((_: "overview") => repo.overview)
      // Whole answers as well, so that a repeated read is the very same value (the handlers write each value's
      // JSON once, src/api/Envelope.ts).
      // A page itself is kept only as part of its answer (the answer caches below have its key); the total is
      // shared by every page and sort of the same filters.
      type FeedKey = { readonly query: EventQuery; readonly order: FeedOrder; readonly page: PageRequest }
      const feedKeyFields = (key: FeedKey): FeedKey => ({
        query: eventQueryFields(key.query),
        order: feedOrderFields(key.order),
        page: pageKey(key.page)
      })
      const feedAnswer = (key: FeedKey) =>
        Effect.map(
          Effect.all([repo.feedPage(key.query, key.order, key.page), feedTotal(key.query)], { concurrency: 2 }),
          ([results, total]) => pageOf(key.page, results, total)
        )
      const prematchAnswer = yield* cachedBy(
        feedKeyFields,
        (key) => Effect.map(feedAnswer(key), (answer) => entries(answer, feedEntryOf))
      )
      // The live feed kept whole too, before its minutes: they move with the clock, so its answer is the same
      // value only while none of its minutes has moved.
      const liveEvents = yield* cachedBy(feedKeyFields, feedAnswer)
      const liveAnswers = new WeakMap<
        Page<FeedEvent>,
        { readonly minutes: string; readonly answer: Page<LiveFeedEntry> }
      >()
      const liveAnswerAt = (answer: Page<FeedEvent>, now: number) => {
        const minutes = answer.results.map((event) => minuteOf(event, now)).join(",")
        const kept = liveAnswers.get(answer)
        if (kept !== undefined && kept.minutes === minutes) return kept.answer
        const live = entries(answer, (event) => liveEntryOf(event, now))
        liveAnswers.set(answer, { minutes, answer: live })
        return live
      }
      const filtersAnswer = yield* cachedBy(eventQueryFields, (query) =>
        Effect.all({
          sports: sportFacet(facetQueryOf("sport", query)),
          countries: countryFacet(facetQueryOf("country", query)),
          leagues: leagueFacet(facetQueryOf("league", query)),
          teams: teamFacet(facetQueryOf("team", query))
        }, { concurrency: 4 }))

      yield* repo.onChange(budget.invalidateAll)

      /** The feed's key as the caches know it: the query and order the rules read, the page and its size. */
      const feedKey = (source: EventSource, filters: SportsCatalogFilters, sort: FeedSort, page: PageRequest) =>
        Effect.map(Effect.fromResult(eventQueryOf(source, filters)), (query): FeedKey => ({
          query,
          order: feedOrderOf(sort.sortBy, sort.direction),
          page: pageKey(page)
        }))

      const filters = traced(
        "SportsCatalog.filters",
        Effect.fnUntraced(function*(source: EventSource, filters: SportsCatalogFilters) {
          return yield* filtersAnswer(yield* Effect.fromResult(eventQueryOf(source, filters)))
        })
      )

      const list =
        <A>(read: (key: ListKey) => Effect.Effect<Page<A>>) => (filters: SportsCatalogFilters, page: PageRequest) =>
          read({ query: listQueryOf(filters), page: pageKey(page) })

      // ---- refresh

      const runRefresh = Effect.fn("SportsCatalog.runRefresh")(function*(scope: RefreshScope) {
        const now = yield* Clock.currentTimeMillis
        const snapshot = yield* fetchSnapshot(provider, scope, now)
        const fetched = yield* Clock.currentTimeMillis
        const report = yield* repo.publish(snapshot)
        // This instance forgets at once; the others when the change announced at commit reaches them.
        yield* budget.invalidateAll
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
            onNone: () =>
              FiberMap.run(
                running,
                scope,
                runRefresh(scope).pipe(timedRefresh(scope.liveOnly ? "catalog_live" : "catalog_full"))
              )
          })
        ).pipe(Effect.flatMap(Fiber.join))

      // CATALOG_SPORT_IDS the provider does not offer (a football-only provider, say) are skipped, said once.
      const scheduled = offeredSportIds(config.sportIds, provider.sportIds)
      if (scheduled.skipped.length > 0) {
        yield* Effect.logWarning("CATALOG_SPORT_IDS names sports the provider does not offer; they are skipped").pipe(
          Effect.annotateLogs({
            provider: provider.name,
            skipped: scheduled.skipped.join(","),
            kept: scheduled.kept.join(",")
          })
        )
      }

      const refresh = Effect.fn("SportsCatalog.refresh")(function*(request: RefreshRequest | null | undefined) {
        const scope = yield* Effect.fromResult(refreshScopeOf(request, scheduled.kept))
        return yield* refreshOnce(
          yield* Effect.fromResult(offeredRefreshScope(scope, provider.name, provider.sportIds))
        )
      })

      return SportsCatalog.of({
        refresh,
        refreshLive: refreshOnce(liveRefreshScopeOf(scheduled.kept)).pipe(
          Effect.withSpan("SportsCatalog.refreshLive")
        ),
        overview: traced("SportsCatalog.overview", () => overview("overview"))(),
        isEmpty: repo.isEmptyFor(provider.name),
        sports: traced("SportsCatalog.sports", list(sportList)),
        countries: traced("SportsCatalog.countries", list(countryList)),
        leagues: traced(
          "SportsCatalog.leagues",
          Effect.fnUntraced(function*(filters: SportsCatalogFilters, page: PageRequest) {
            return entries(yield* list(leagueList)(filters, page), namedEntryOf)
          })
        ),
        teams: traced(
          "SportsCatalog.teams",
          Effect.fnUntraced(function*(filters: SportsCatalogFilters, page: PageRequest) {
            return entries(yield* list(teamList)(filters, page), namedEntryOf)
          })
        ),
        filters,
        prematch: traced(
          "SportsCatalog.prematch",
          Effect.fnUntraced(
            function*(filters: SportsCatalogFilters, sort: FeedSort, page: PageRequest) {
              return yield* prematchAnswer(yield* feedKey("prematch", filters, sort, page))
            }
          )
        ),
        live: traced(
          "SportsCatalog.live",
          Effect.fnUntraced(
            function*(filters: SportsCatalogFilters, sort: FeedSort, page: PageRequest) {
              const answer = yield* liveEvents(yield* feedKey("live", filters, sort, page))
              return liveAnswerAt(answer, yield* Clock.currentTimeMillis)
            }
          )
        )
      })
    })
  )

  /** Over PostgreSQL. */
  static readonly layer = SportsCatalog.layerNoDeps.pipe(Layer.provide(SportsCatalogRepo.layerSql))

  /** Over the in-memory repository, its publishes sent to the CatalogChanges the caller provides (the sandbox's stream). */
  static readonly layerMemoryNoDeps = SportsCatalog.layerNoDeps.pipe(
    Layer.provide(SportsCatalogRepoMemory.layerMemoryNoDeps)
  )

  /** Over the in-memory repository: no database, nobody streaming it. */
  static readonly layerMemory = SportsCatalog.layerMemoryNoDeps.pipe(Layer.provide(CatalogChanges.none))
}
