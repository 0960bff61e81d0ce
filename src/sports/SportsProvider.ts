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
import { type Endpoint, eventCall, listCall, type ProviderCall } from "./ProviderCache.ts"
import type { Content, Reader, SportsProtocol, Usable } from "./ProviderProtocol.ts"
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

/** How a provider is reached: one GET of a path of its protocol, answering its JSON. */
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
 * Builds the SportsProvider over a transport and the protocol it speaks:
 * caching (effect's Cache, one per kind of answer, values read once, all
 * under one bound in bytes), coalescing, and the hourly limit.
 */
export const makeSportsProvider = Effect.fnUntraced(function*(options: {
  readonly name: string
  readonly configured: boolean
  readonly transport: SportsTransport
  readonly protocol: SportsProtocol
}) {
  const config = yield* SportsConfig
  const { name, protocol, transport } = options
  const takeToken = transport.chargesQuota === true ? Effect.void : yield* providerQuota(name)
  const budget = ByteBoundedCache.makeBudget(Number(config.cacheMaxSize))
  const shared = yield* makeSharedAnswers({
    storeId: `sports-provider-${name}`,
    lockFor: 4 * Duration.toMillis(config.timeout) + 1_000
  })

  /** One kind of answer: its cache, each entry fetched once and read once. */
  const answers = <A>(kind: string, read: Reader<A>) =>
    Effect.map(
      budget.cache<ProviderCall, Stored<A>, SportsProviderError>({
        lookup: Effect.fn(`SportsProvider.fetch.${kind}`)(
          function*(call: ProviderCall): Effect.fn.Return<Stored<A>, SportsProviderError> {
            const { params, path } = protocol.request(call)
            const upstream = Effect.gen(function*() {
              yield* takeToken
              const raw = yield* transport.call(path, params).pipe(Metrics.countedProviderCall(kind))
              const ttl = Duration.min(protocol.timeToLive(call, raw), config.cacheTtlMax)
              return { raw, storedAt: yield* Clock.currentTimeMillis, ttlMillis: Duration.toMillis(ttl) }
            })
            const { answer, origin } = yield* shared(`${path}?${new URLSearchParams(params)}`, upstream)
            const age = (yield* Clock.currentTimeMillis) - answer.storedAt
            return {
              raw: answer.raw,
              origin,
              content: read(answer.raw, call),
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
  const leaguesCache = yield* answers("leagues", protocol.leagues)
  const eventsCache = yield* answers("events", protocol.events)
  const viewCache = yield* answers("view", protocol.event)
  const oddsCache = yield* answers("odds", protocol.odds)
  const lineupCache = yield* answers("lineup", protocol.lineup)
  const statsTrendCache = yield* answers("statsTrend", protocol.statsTrend)
  const resultCache = yield* answers("result", protocol.result)

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
      listCall("leagues", query)
    )
    if (content._tag !== "Found") return { value: emptyPage<SportsLeague>(query.page), raw, ...stamp }
    return { value: content.answer, raw, ...stamp }
  })

  const events = (what: string, endpoint: Endpoint, spanName: string) =>
    Effect.fn(spanName)(function*(query: ListQuery) {
      const { content, raw, stamp } = yield* fetch(what, eventsCache, listCall(endpoint, query))
      if (content._tag !== "Found") return { value: emptyPage<SportsEvent>(query.page), raw, ...stamp }
      return { value: content.answer, raw, ...stamp }
    })

  const notFound = (eventId: string, message = `Event ${eventId} not found.`) => new EventNotFound({ eventId, message })

  const event = Effect.fn("SportsProvider.event")(function*(eventId: string) {
    const { content, raw, stamp } = yield* fetch("the event", viewCache, eventCall("event", eventId))
    const value = content._tag === "Found" ? content.answer : undefined
    if (value === undefined) return yield* notFound(eventId)
    return { value, raw, ...stamp }
  })

  /**
   * A provider may answer the odds, line-up or statistics of an event it does
   * not know with success and nothing in them (BetsAPI does), not a "not found". An empty answer is
   * checked against the event itself (a cached view): an unknown event is a
   * 404 on every event endpoint, whatever the provider's way of saying so.
   */
  const confirmEvent = (eventId: string) => Effect.asVoid(event(eventId))

  // The protocol maps an answer's markets once, as it is kept: a cached answer gives the very same value on every
  // read (the handler writes each value's JSON once).
  const odds = (inPlay: boolean) =>
    Effect.fn(inPlay ? "SportsProvider.liveOdds" : "SportsProvider.odds")(function*(eventId: string) {
      const what = inPlay ? "the live odds" : "the odds"
      const { content, raw, stamp } = yield* fetch(what, oddsCache, eventCall("odds", eventId))
      if (content._tag === "NotFound") return yield* notFound(eventId)
      const value = content._tag === "Found" ? (inPlay ? content.answer.live : content.answer.prematch) : []
      if (value.length === 0) yield* confirmEvent(eventId)
      return { value, raw, ...stamp }
    })

  /** An event detail that may be missing (line-up, statistics): a 404 that says so when the event has none. */
  const eventDetail = <D>(options: {
    readonly span: string
    readonly what: string
    readonly endpoint: Endpoint
    readonly cache: (call: ProviderCall) => Effect.Effect<Stored<D | undefined>, SportsProviderError>
    readonly missing: (eventId: string) => string
  }) =>
    Effect.fn(options.span)(function*(eventId: string) {
      const { content, raw, stamp } = yield* fetch(options.what, options.cache, eventCall(options.endpoint, eventId))
      if (content._tag === "NotFound") return yield* notFound(eventId)
      if (content._tag === "Nothing") yield* confirmEvent(eventId)
      const value = content._tag === "Found" ? content.answer : undefined
      if (value === undefined) return yield* notFound(eventId, options.missing(eventId))
      return { value, raw, ...stamp }
    })

  const result = Effect.fn("SportsProvider.result")(function*(eventId: string) {
    const { content, raw, stamp } = yield* fetch("the result", resultCache, eventCall("result", eventId))
    if (content._tag !== "Found") return yield* notFound(eventId)
    const outcome = content.answer
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
    upcoming: events("the upcoming events", "upcoming", "SportsProvider.upcoming"),
    live: events("the live events", "live", "SportsProvider.live"),
    ended: events("the ended events", "ended", "SportsProvider.ended"),
    event,
    odds: odds(false),
    liveOdds: odds(true),
    lineup: eventDetail({
      span: "SportsProvider.lineup",
      what: "the line-up",
      endpoint: "lineup",
      cache: lineupCache,
      missing: (eventId) => `No line-up is available for event ${eventId}.`
    }),
    statsTrend: eventDetail({
      span: "SportsProvider.statsTrend",
      what: "the statistics",
      endpoint: "statsTrend",
      cache: statsTrendCache,
      missing: (eventId) => `No statistics are available for event ${eventId}.`
    }),
    result
  })
})
