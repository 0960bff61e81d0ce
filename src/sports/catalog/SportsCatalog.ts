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
import {
  type ChangedPage,
  checkedSince,
  type LostPosition,
  mapEntries,
  type Synced,
  syncedChanges,
  syncedPage
} from "../../domain/SportsCatalogSync.ts"
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

/** A position of the change log a read goes on from (`?since=`); none (or null): the whole list. */
export type Since = number | null | undefined

/** A list's read: a page of it as of a position of the change log, or with `since` what changed after it. */
export type CatalogList<A> = (
  filters: SportsCatalogFilters,
  page: PageRequest,
  since?: Since
) => Effect.Effect<Synced<A>, LostPosition>

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
  /**
   * The lists, each answer as of a position of the change log (its `next`). With `since`, what changed after it
   * (domain/SportsCatalogSync): entries in the order they changed, those no longer in the list marked removed;
   * LostPosition when the log no longer covers it.
   */
  readonly sports: CatalogList<SportRecord>
  readonly countries: CatalogList<CountryRecord>
  readonly leagues: CatalogList<NamedEntry>
  readonly teams: CatalogList<NamedEntry>
  /** The dynamic filters: each facet narrowed by every chosen filter except its own. */
  filters(source: EventSource, filters: SportsCatalogFilters): Effect.Effect<Facets, InvalidSportsCatalogQuery>
  /** Events not started yet; with `since`, those that changed after it, in the order they changed (not `sort`). */
  prematch(
    filters: SportsCatalogFilters,
    sort: FeedSort,
    page: PageRequest,
    since?: Since
  ): Effect.Effect<Synced<FeedEntry>, InvalidSportsCatalogQuery | LostPosition>
  /** Events in play, with their minute as of now; `since` as the prematch feed's. */
  live(
    filters: SportsCatalogFilters,
    sort: FeedSort,
    page: PageRequest,
    since?: Since
  ): Effect.Effect<Synced<LiveFeedEntry>, InvalidSportsCatalogQuery | LostPosition>
}>()("partner-api/catalog/SportsCatalog") {
  /** The service over whichever SportsCatalogRepo is provided (the tests' in-memory one, say). */
  static readonly layerNoDeps = Layer.effect(
    SportsCatalog,
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      const provider = yield* SportsProvider
      const config = yield* SportsCatalogConfig

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
      // Every list's answer is as of a position of the change log: the head, read before its rows (a change that
      // commits meanwhile is answered again from there, never skipped), or for a since read's full page, its last.
      const asOfHead = <A>(read: Effect.Effect<Page<A>>) =>
        Effect.flatMap(repo.head, (head) => Effect.map(read, (answer) => syncedPage(answer, head)))
      const sinceAnswer = <A>(page: PageRequest, read: Effect.Effect<ChangedPage<A>>) =>
        Effect.flatMap(repo.head, (head) => Effect.map(read, (changed) => syncedChanges(page, changed, head)))
      /** `since` while the log still covers it (checked at each request, the answer itself may be kept). */
      const checked = (since: number) =>
        Effect.flatMap(repo.syncBounds, (bounds) => Effect.fromResult(checkedSince(since, bounds)))

      type ListKey = { readonly query: ListQuery; readonly page: PageRequest; readonly since: number | null }
      const listKeyFields = (key: ListKey): ListKey => ({
        query: listQueryFields(key.query),
        page: pageKey(key.page),
        since: key.since
      })
      const listOf = <A>(
        whole: (query: ListQuery, page: PageRequest) => Effect.Effect<Page<A>>,
        changed: (query: ListQuery, since: number, page: PageRequest) => Effect.Effect<ChangedPage<A>>
      ) =>
        cachedBy(listKeyFields, (key) =>
          key.since === null
            ? asOfHead(whole(key.query, key.page))
            : sinceAnswer(key.page, changed(key.query, key.since, key.page)))
      const sportList = yield* listOf(repo.sports, repo.sportsSince)
      const countryList = yield* listOf(repo.countries, repo.countriesSince)
      const leagueList = yield* listOf(repo.leagues, repo.leaguesSince)
      const teamList = yield* listOf(repo.teams, repo.teamsSince)
      const overview = yield* cached((_: "overview") => repo.overview)
      // Whole answers as well, so that a repeated read is the very same value (the handlers write each value's
      // JSON once, src/api/Envelope.ts).
      // A page itself is kept only as part of its answer (the answer caches below have its key); the total is
      // shared by every page and sort of the same filters.
      type FeedKey = {
        readonly query: EventQuery
        readonly order: FeedOrder
        readonly page: PageRequest
        readonly since: number | null
      }
      const feedKeyFields = (key: FeedKey): FeedKey => ({
        query: eventQueryFields(key.query),
        order: feedOrderFields(key.order),
        page: pageKey(key.page),
        since: key.since
      })
      const feedAnswer = (key: FeedKey): Effect.Effect<Synced<FeedEvent>> =>
        key.since === null
          ? asOfHead(Effect.map(
            Effect.all([repo.feedPage(key.query, key.order, key.page), feedTotal(key.query)], { concurrency: 2 }),
            ([results, total]) => pageOf(key.page, results, total)
          ))
          : sinceAnswer(key.page, repo.eventsSince(key.query, key.since, key.page))
      const prematchAnswer = yield* cachedBy(
        feedKeyFields,
        (key) => Effect.map(feedAnswer(key), (answer) => mapEntries(answer, feedEntryOf))
      )
      // The live feed kept whole too, before its minutes: they move with the clock, so its answer is the same
      // value only while none of its minutes has moved.
      const liveEvents = yield* cachedBy(feedKeyFields, feedAnswer)
      const liveAnswers = new WeakMap<
        Synced<FeedEvent>,
        { readonly minutes: string; readonly answer: Synced<LiveFeedEntry> }
      >()
      const liveAnswerAt = (answer: Synced<FeedEvent>, now: number) => {
        const minutes = answer.results.map((event) => minuteOf(event, now)).join(",")
        const kept = liveAnswers.get(answer)
        if (kept !== undefined && kept.minutes === minutes) return kept.answer
        const live = mapEntries(answer, (event) => liveEntryOf(event, now))
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

      /**
       * The feed's key as the caches know it: the query and order the rules read, the page and its size, and the since
       * (checked; a since read is in the order things changed, whatever the sort asked).
       */
      const feedKey = (
        source: EventSource,
        filters: SportsCatalogFilters,
        sort: FeedSort,
        page: PageRequest,
        since: Since
      ) =>
        Effect.gen(function*() {
          const query = yield* Effect.fromResult(eventQueryOf(source, filters))
          const from = since ?? null
          if (from !== null) yield* checked(from)
          return {
            query,
            order: from === null ? feedOrderOf(sort.sortBy, sort.direction) : feedOrderOf(undefined, undefined),
            page: pageKey(page),
            since: from
          } satisfies FeedKey
        })

      const filters = traced(
        "SportsCatalog.filters",
        Effect.fnUntraced(function*(source: EventSource, filters: SportsCatalogFilters) {
          return yield* filtersAnswer(yield* Effect.fromResult(eventQueryOf(source, filters)))
        })
      )

      const list =
        <A>(read: (key: ListKey) => Effect.Effect<Synced<A>>) =>
        (filters: SportsCatalogFilters, page: PageRequest, since?: Since) =>
          Effect.andThen(
            since === undefined || since === null ? Effect.void : checked(since),
            read({ query: listQueryOf(filters), page: pageKey(page), since: since ?? null })
          )

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
          Effect.fnUntraced(function*(filters: SportsCatalogFilters, page: PageRequest, since?: Since) {
            return mapEntries(yield* list(leagueList)(filters, page, since), namedEntryOf)
          })
        ),
        teams: traced(
          "SportsCatalog.teams",
          Effect.fnUntraced(function*(filters: SportsCatalogFilters, page: PageRequest, since?: Since) {
            return mapEntries(yield* list(teamList)(filters, page, since), namedEntryOf)
          })
        ),
        filters,
        prematch: traced(
          "SportsCatalog.prematch",
          Effect.fnUntraced(
            function*(filters: SportsCatalogFilters, sort: FeedSort, page: PageRequest, since?: Since) {
              return yield* prematchAnswer(yield* feedKey("prematch", filters, sort, page, since))
            }
          )
        ),
        live: traced(
          "SportsCatalog.live",
          Effect.fnUntraced(
            function*(filters: SportsCatalogFilters, sort: FeedSort, page: PageRequest, since?: Since) {
              const answer = yield* liveEvents(yield* feedKey("live", filters, sort, page, since))
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
