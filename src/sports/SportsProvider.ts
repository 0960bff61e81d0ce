import { Clock, Context, Duration, Effect, type Layer, Schema } from "effect"
import type { RateLimiter } from "effect/persistence"
import * as ByteBoundedCache from "../platform/ByteBoundedCache.ts"
import type { SharedPersistence, SharedStore } from "../platform/SharedStore.ts"
import * as Metrics from "../platform/Metrics.ts"
import {
  type EventResult,
  type Lineup,
  type OddsMarket,
  type Page,
  sportsCapabilities,
  type SportsCapability,
  type SportsEvent,
  type SportsLeague,
  type StatsTrend
} from "../domain/Sports.ts"
import * as BetsApi from "./BetsApi.ts"
import { type Content, contentOf, timeToLive, type Usable } from "./BetsApiAnswers.ts"
import { eventCall, listCall, paramsOf, type ProviderCall } from "./ProviderCache.ts"
import { providerQuota } from "./ProviderQuota.ts"
import { makeSharedAnswers, type Origin } from "./SharedAnswers.ts"
import { SportsConfig } from "./SportsConfig.ts"
import { SportsProviderError } from "./SportsProviderError.ts"

export { SportsProviderError }

export class EventNotFound extends Schema.TaggedError<EventNotFound>()("EventNotFound", {
  eventId: Schema.String,
  message: Schema.String
}) {}

/** A provider answer, mapped, with the raw payload it came from. */
export interface Fetched<A> {
  readonly value: A
  readonly raw: unknown
  /** When the provider gave this answer (epoch millis), for the `Age` header. */
  readonly storedAt: number
  /** Whether the provider was asked for it on this request's behalf, or it came from a cache (this instance's or the fleet's). */
  readonly origin: Origin
}

export interface ListQuery {
  readonly sportId: number
  readonly page: number
  readonly leagueId?: string | undefined
  readonly day?: string | undefined
}

/**
 * The active sports data provider: one operation per provider endpoint of
 * the contract. Layers: the sandbox (simulated sports data, the default) and
 * BetsAPI over HTTP. Answers are cached per call with TTLs that fit the data,
 * identical concurrent calls share one upstream request, and upstream calls
 * stay under SPORTS_PROVIDER_RATE_LIMIT per hour.
 */
export class SportsProvider extends Context.Service<SportsProvider, {
  readonly name: string
  readonly configured: boolean
  readonly capabilities: ReadonlyArray<SportsCapability>
  leagues(query: ListQuery): Effect.Effect<Fetched<Page<SportsLeague>>, SportsProviderError>
  upcoming(query: ListQuery): Effect.Effect<Fetched<Page<SportsEvent>>, SportsProviderError>
  live(query: ListQuery): Effect.Effect<Fetched<Page<SportsEvent>>, SportsProviderError>
  ended(query: ListQuery): Effect.Effect<Fetched<Page<SportsEvent>>, SportsProviderError>
  event(eventId: string): Effect.Effect<Fetched<SportsEvent>, SportsProviderError | EventNotFound>
  odds(eventId: string): Effect.Effect<Fetched<ReadonlyArray<OddsMarket>>, SportsProviderError | EventNotFound>
  liveOdds(eventId: string): Effect.Effect<Fetched<ReadonlyArray<OddsMarket>>, SportsProviderError | EventNotFound>
  lineup(eventId: string): Effect.Effect<Fetched<Lineup>, SportsProviderError | EventNotFound>
  statsTrend(eventId: string): Effect.Effect<Fetched<StatsTrend>, SportsProviderError | EventNotFound>
  result(eventId: string): Effect.Effect<Fetched<EventResult>, SportsProviderError | EventNotFound>
}>()("partner-api/sports/SportsProvider") {}

/**
 * A provider layer over the shared stores: the rate limit's counters (the
 * service's one RateLimiter) and the fleet's answers (Redis, with REDIS_URL).
 */
export type ProviderLayer<E = never, R = never> = Layer.Layer<
  SportsProvider,
  E,
  SportsConfig | RateLimiter.RateLimiter | SharedStore | SharedPersistence | R
>

/** How a provider is reached: one GET of a BetsAPI-style path, answering its JSON. */
export interface SportsTransport {
  readonly call: (path: string, params: Readonly<Record<string, string>>) => Effect.Effect<unknown, SportsProviderError>
  /**
   * Whether `call` spends the hourly quota itself, once per request it sends
   * (retries included); otherwise the provider spends it once per call.
   */
  readonly chargesQuota?: boolean
}

export { providerQuota }

interface Stored<A> {
  readonly origin: Origin
  /** The payload as the provider sent it (the token removed), for `include_raw`. */
  readonly raw: unknown
  readonly content: Content<A>
  readonly timeToLive: Duration.Duration
  /** When the provider gave it (epoch millis). */
  readonly storedAt: number
}

/**
 * Builds the SportsProvider over a transport: caching (effect's Cache, one
 * per kind of answer, values decoded, all under one bound in bytes),
 * coalescing, the hourly limit, and the mapping of BetsAPI-style answers.
 */
export const makeSportsProvider = Effect.fnUntraced(function*(options: {
  readonly name: string
  readonly configured: boolean
  readonly transport: SportsTransport
}) {
  const config = yield* SportsConfig
  const { name, transport } = options
  const takeToken = transport.chargesQuota === true ? Effect.void : yield* providerQuota(name)
  const budget = ByteBoundedCache.makeBudget(Number(config.cacheMaxSize))
  const shared = yield* makeSharedAnswers({
    storeId: `sports-provider-${name}`,
    lockFor: 4 * Duration.toMillis(config.timeout) + 1_000
  })

  /** One kind of answer: its cache, each entry fetched once and decoded once. */
  const answers = <A>(kind: string, schema: Schema.Codec<A, unknown>, nothingIsUnknown = false) =>
    Effect.map(
      budget.cache<ProviderCall, Stored<A>, SportsProviderError>({
        lookup: Effect.fn(`SportsProvider.fetch.${kind}`)(
          function*(call: ProviderCall): Effect.fn.Return<Stored<A>, SportsProviderError> {
            const params = paramsOf(call)
            const upstream = Effect.gen(function*() {
              yield* takeToken
              const raw = yield* transport.call(call.path, params).pipe(Metrics.countedProviderCall(kind))
              const ttl = Duration.min(timeToLive(call.path, raw), config.cacheTtlMax)
              return { raw, storedAt: yield* Clock.currentTimeMillis, ttlMillis: Duration.toMillis(ttl) }
            })
            const { answer, origin } = yield* shared(`${call.path}?${new URLSearchParams(params)}`, upstream)
            const age = (yield* Clock.currentTimeMillis) - answer.storedAt
            return {
              raw: answer.raw,
              origin,
              content: contentOf(schema, nothingIsUnknown, answer.raw),
              storedAt: answer.storedAt,
              // An answer another instance fetched is kept here only for what is left of its lifetime.
              timeToLive: Duration.millis(Math.max(0, answer.ttlMillis - age))
            }
          }
        ),
        timeToLive: (stored) => stored.timeToLive,
        // Weighed as kept: the payload and its decoded content (ByteBoundedCache.encodedBytes, the default).
        capacity: 5_000
      }),
      (cache) => cache.get
    )
  const leaguesCache = yield* answers("leagues", BetsApi.LeaguesAnswer)
  const eventsCache = yield* answers("events", BetsApi.EventsAnswer)
  const viewCache = yield* answers("view", BetsApi.ViewAnswer)
  const oddsCache = yield* answers("odds", BetsApi.OddsAnswer, true)
  const lineupCache = yield* answers("lineup", BetsApi.LineupAnswer, true)
  const statsTrendCache = yield* answers("statsTrend", BetsApi.StatsTrendAnswer, true)
  const resultCache = yield* answers("result", BetsApi.ResultAnswer)

  /** Reads through a cache; a refusal or an answer of the wrong shape is an error worded for `what`. */
  const fetch = <A>(
    what: string,
    cache: (call: ProviderCall) => Effect.Effect<Stored<A>, SportsProviderError>,
    call: ProviderCall
  ): Effect.Effect<
    { readonly raw: unknown; readonly content: Usable<A>; readonly stamp: Pick<Fetched<A>, "storedAt" | "origin"> },
    SportsProviderError
  > =>
    Effect.flatMap(cache(call), ({ content, origin, raw, storedAt }) => {
      switch (content._tag) {
        case "Rejected":
          return Effect.fail(
            new SportsProviderError({
              reason: "Rejected",
              message: `The sports provider refused ${what}: ${content.code ?? "unknown error"}.`,
              providerResponse: raw
            })
          )
        case "Invalid":
          return Effect.fail(
            new SportsProviderError({
              reason: "InvalidResponse",
              message: `The sports provider's answer to ${what} has an unexpected shape.`,
              providerResponse: raw
            })
          )
        default:
          return Effect.succeed({ raw, content, stamp: { storedAt, origin } })
      }
    })

  const emptyPage = <A>(page: number): Page<A> => ({ results: [], page, perPage: 0, total: 0 })

  const leagues = Effect.fn("SportsProvider.leagues")(function*(query: ListQuery) {
    const { content, raw, stamp } = yield* fetch(
      "the league list",
      leaguesCache,
      listCall(BetsApi.paths.leagues, query)
    )
    if (content._tag !== "Found") return { value: emptyPage<SportsLeague>(query.page), raw, ...stamp }
    return { value: BetsApi.toLeagues(content.answer, query.sportId), raw, ...stamp }
  })

  const events = (what: string, path: BetsApi.Path, spanName: string) =>
    Effect.fn(spanName)(function*(query: ListQuery) {
      const { content, raw, stamp } = yield* fetch(what, eventsCache, listCall(path, query))
      if (content._tag !== "Found") return { value: emptyPage<SportsEvent>(query.page), raw, ...stamp }
      return { value: BetsApi.toEvents(content.answer, query.page), raw, ...stamp }
    })

  const notFound = (eventId: string, message = `Event ${eventId} not found.`) => new EventNotFound({ eventId, message })

  const event = Effect.fn("SportsProvider.event")(function*(eventId: string) {
    const { content, raw, stamp } = yield* fetch("the event", viewCache, eventCall(BetsApi.paths.view, eventId))
    const first = content._tag === "Found" ? content.answer.results[0] : undefined
    if (first === undefined) return yield* notFound(eventId)
    return { value: BetsApi.toEvent(first), raw, ...stamp }
  })

  /**
   * BetsAPI answers the odds, line-up or statistics of an event it does not
   * know with success and nothing in them, not NOT_FOUND. An empty answer is
   * checked against the event itself (a cached view): an unknown event is a
   * 404 on every event endpoint, whatever the provider's way of saying so.
   */
  const confirmEvent = (eventId: string) => Effect.asVoid(event(eventId))

  /**
   * An answer's markets, mapped once per answer kept: a cached answer then gives the very same value on every
   * read (the handler writes each value's JSON once).
   */
  const mappedOdds = (inPlay: boolean) => {
    const mapped = new WeakMap<object, ReadonlyArray<OddsMarket>>()
    return (answer: typeof BetsApi.OddsAnswer.Type) => {
      let markets = mapped.get(answer)
      if (markets === undefined) {
        markets = BetsApi.toOdds(answer, inPlay)
        mapped.set(answer, markets)
      }
      return markets
    }
  }

  const odds = (inPlay: boolean) => {
    const marketsOf = mappedOdds(inPlay)
    return Effect.fn(inPlay ? "SportsProvider.liveOdds" : "SportsProvider.odds")(function*(eventId: string) {
      const what = inPlay ? "the live odds" : "the odds"
      const { content, raw, stamp } = yield* fetch(what, oddsCache, eventCall(BetsApi.paths.odds, eventId))
      if (content._tag === "NotFound") return yield* notFound(eventId)
      const value = content._tag === "Found" ? marketsOf(content.answer) : []
      if (value.length === 0) yield* confirmEvent(eventId)
      return { value, raw, ...stamp }
    })
  }

  /** An event detail that may be missing (line-up, statistics): a 404 that says so when the event has none. */
  const eventDetail = <A, D>(options: {
    readonly span: string
    readonly what: string
    readonly path: BetsApi.Path
    readonly cache: (call: ProviderCall) => Effect.Effect<Stored<A>, SportsProviderError>
    readonly toValue: (answer: A) => D | undefined
    readonly missing: (eventId: string) => string
  }) =>
    Effect.fn(options.span)(function*(eventId: string) {
      const { content, raw, stamp } = yield* fetch(options.what, options.cache, eventCall(options.path, eventId))
      if (content._tag === "NotFound") return yield* notFound(eventId)
      if (content._tag === "Nothing") yield* confirmEvent(eventId)
      const value = content._tag === "Found" ? options.toValue(content.answer) : undefined
      if (value === undefined) return yield* notFound(eventId, options.missing(eventId))
      return { value, raw, ...stamp }
    })

  const result = Effect.fn("SportsProvider.result")(function*(eventId: string) {
    const { content, raw, stamp } = yield* fetch("the result", resultCache, eventCall(BetsApi.paths.result, eventId))
    if (content._tag !== "Found") return yield* notFound(eventId)
    const outcome = BetsApi.toResult(content.answer)
    switch (outcome._tag) {
      case "Unknown":
        return yield* notFound(eventId)
      case "NotFinished":
        return yield* notFound(eventId, `Event ${eventId} has no final result yet (it is ${outcome.status}).`)
      case "Result":
        return { value: outcome.result, raw, ...stamp }
    }
  })

  return SportsProvider.of({
    name,
    configured: options.configured,
    // Both providers answer every operation of the contract.
    capabilities: sportsCapabilities,
    leagues,
    upcoming: events("the upcoming events", BetsApi.paths.upcoming, "SportsProvider.upcoming"),
    live: events("the live events", BetsApi.paths.inplay, "SportsProvider.live"),
    ended: events("the ended events", BetsApi.paths.ended, "SportsProvider.ended"),
    event,
    odds: odds(false),
    liveOdds: odds(true),
    lineup: eventDetail({
      span: "SportsProvider.lineup",
      what: "the line-up",
      path: BetsApi.paths.lineup,
      cache: lineupCache,
      toValue: BetsApi.toLineup,
      missing: (eventId) => `No line-up is available for event ${eventId}.`
    }),
    statsTrend: eventDetail({
      span: "SportsProvider.statsTrend",
      what: "the statistics",
      path: BetsApi.paths.statsTrend,
      cache: statsTrendCache,
      toValue: BetsApi.toStatsTrend,
      missing: (eventId) => `No statistics are available for event ${eventId}.`
    }),
    result
  })
})
