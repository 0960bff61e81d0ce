import { Context, Duration, Effect, Exit, Schema } from "effect"
import { Persistable, PersistedCache, RateLimiter } from "effect/persistence"
import { type SportsCapability, sportsCapabilities } from "../api/Sports.ts"
import type {
  EventResult,
  Lineup,
  OddsMarket,
  Page,
  SportsEvent,
  SportsLeague,
  StatsTrend
} from "../domain/Sports.ts"
import * as BetsApi from "./BetsApi.ts"
import { SportsConfig } from "./SportsConfig.ts"

export class SportsProviderError extends Schema.TaggedError<SportsProviderError>()("SportsProviderError", {
  reason: Schema.Literals(["NotConfigured", "Timeout", "Unavailable", "Rejected", "InvalidResponse", "RateLimited"]),
  message: Schema.String,
  /** What the provider answered, when it answered; the token removed. */
  providerResponse: Schema.optional(Schema.Unknown)
}) {}

export class EventNotFound extends Schema.TaggedError<EventNotFound>()("EventNotFound", {
  eventId: Schema.String,
  message: Schema.String
}) {}

/** A provider answer, mapped, with the raw payload it came from. */
export interface Fetched<A> {
  readonly value: A
  readonly raw: unknown
}

export interface ListQuery {
  readonly sportId: number
  readonly page: number
  readonly leagueId?: string | undefined
  readonly day?: string | undefined
}

/**
 * The active sports data provider: one operation per provider endpoint of
 * the contract. Layers: the sandbox (a simulated world, the default) and
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

/** How a provider is reached: one GET of a BetsAPI-style path, answering its JSON. */
export interface SportsTransport {
  readonly call: (path: string, params: Readonly<Record<string, string>>) => Effect.Effect<unknown, SportsProviderError>
}

/** One upstream call, as a cache key: the path and its parameters in a fixed order. */
class ProviderCall extends Persistable.Class<{
  payload: { readonly path: string; readonly params: Readonly<Record<string, string>> }
}>()("SportsProviderCall", {
  primaryKey: ({ params, path }) =>
    `${path}?${Object.keys(params).sort().map((key) => `${key}=${params[key]}`).join("&")}`,
  success: Schema.Json,
  error: SportsProviderError
}) {}

const seconds = Duration.seconds
const minutes = Duration.minutes

const timeStatusOf = (raw: unknown): number | undefined => {
  const first = (raw as { results?: ReadonlyArray<{ time_status?: unknown }> })?.results?.[0]
  return first === undefined ? undefined : Number(first.time_status)
}

const hasInPlayOdds = (raw: unknown) =>
  JSON.stringify((raw as { results?: { odds?: unknown } })?.results?.odds ?? {}).includes("\"ss\":\"")

/**
 * How long an answer stays fresh: seconds for what moves during a game,
 * minutes for lists and line-ups, a day for a final result. A "not found"
 * is remembered briefly, so scans of unknown ids do not drain the quota.
 */
export const timeToLive = (path: string, raw: unknown): Duration.Duration => {
  if ((raw as { success?: unknown })?.success === 0 || (raw as { success?: unknown })?.success === "0") {
    return seconds(30)
  }
  switch (path) {
    case BetsApi.paths.leagues:
      return minutes(30)
    case BetsApi.paths.upcoming:
      return minutes(2)
    case BetsApi.paths.inplay:
      return seconds(10)
    case BetsApi.paths.ended:
      return minutes(5)
    case BetsApi.paths.view: {
      const status = timeStatusOf(raw)
      return status === 1 ? seconds(5) : status === 3 ? Duration.hours(1) : seconds(60)
    }
    case BetsApi.paths.odds:
      return hasInPlayOdds(raw) ? seconds(5) : seconds(60)
    case BetsApi.paths.lineup:
      return minutes(10)
    case BetsApi.paths.statsTrend:
      return seconds(15)
    case BetsApi.paths.result:
      return timeStatusOf(raw) === 3 ? Duration.hours(24) : seconds(30)
    default:
      return seconds(30)
  }
}

const notFoundCodes = new Set(["NOT_FOUND"])

/**
 * Builds the SportsProvider over a transport: caching (effect's
 * PersistedCache over the Persistence store in the context), coalescing, the
 * hourly limit, and the mapping of BetsAPI-style answers.
 */
export const makeSportsProvider = Effect.fnUntraced(function*(options: {
  readonly name: string
  readonly configured: boolean
  readonly transport: SportsTransport
}) {
  const config = yield* SportsConfig
  const limiter = yield* RateLimiter.RateLimiter
  const { name, transport } = options

  // At most `limit` calls in any sliding hour: a small burst, then a steady refill.
  const burst = Math.max(1, Math.min(60, Math.floor(config.rateLimitPerHour / 10)))
  const refillEvery = Duration.millis(3_600_000 / Math.max(1, config.rateLimitPerHour - burst))
  const takeToken = limiter.consume({
    algorithm: "token-bucket",
    onExceeded: "fail",
    key: `sports-provider:${name}`,
    limit: burst,
    window: Duration.times(refillEvery, burst)
  }).pipe(
    Effect.mapError(() =>
      new SportsProviderError({
        reason: "RateLimited",
        message: `The sports provider's hourly quota (${config.rateLimitPerHour} calls) is in use; retry shortly.`
      })
    ),
    Effect.asVoid
  )

  const ttl = (path: string, raw: unknown) => Duration.min(timeToLive(path, raw), config.cacheTtlMax)
  const cache = yield* PersistedCache.make(
    (call: ProviderCall) =>
      Effect.andThen(takeToken, transport.call(call.path, call.params)).pipe(
        Effect.map((json) => json as Schema.Json)
      ),
    {
      storeId: `sports-provider-${name}`,
      timeToLive: (exit, call) => Exit.isSuccess(exit) ? ttl(call.path, exit.value) : Duration.zero,
      inMemoryTTL: (exit, call) => Exit.isSuccess(exit) ? ttl(call.path, exit.value) : Duration.zero,
      inMemoryCapacity: 5_000
    }
  )

  const invalid = (what: string, raw: unknown) =>
    new SportsProviderError({
      reason: "InvalidResponse",
      message: `The sports provider's answer to ${what} has an unexpected shape.`,
      providerResponse: raw
    })

  // A cached answer is the same object on every hit, so what is derived from it is kept beside it.
  const derived = new WeakMap<object, Map<unknown, unknown>>()
  const remembered = <A>(raw: unknown, key: unknown, compute: () => A): A => {
    if (raw === null || typeof raw !== "object") return compute()
    let entry = derived.get(raw)
    if (entry === undefined) derived.set(raw, entry = new Map())
    if (!entry.has(key)) entry.set(key, compute())
    return entry.get(key) as A
  }
  const decode = <A>(what: string, schema: Schema.Codec<A, unknown>, raw: unknown): Effect.Effect<A, SportsProviderError> =>
    remembered(raw, schema, () =>
      Schema.decodeUnknownExit(schema)(raw)
    ).pipe(Effect.mapError(() => invalid(what, raw)))

  /** Fetches (through the cache) and checks the BetsAPI envelope; NOT_FOUND comes back as `found: false`. */
  const fetch = (
    what: string,
    path: string,
    params: Record<string, string>
  ): Effect.Effect<{ readonly raw: unknown; readonly found: boolean }, SportsProviderError> =>
    cache.get(new ProviderCall({ path, params })).pipe(
      Effect.catchTags({
        PersistenceError: (error) => Effect.die(error),
        SchemaError: (error) => Effect.die(error)
      }),
      Effect.flatMap((raw) =>
        decode(what, BetsApi.Answer, raw).pipe(
          Effect.flatMap((answer): Effect.Effect<{ raw: unknown; found: boolean }, SportsProviderError> => {
            if (answer.success === 1) return Effect.succeed({ raw, found: true })
            if (notFoundCodes.has(answer.error ?? "")) return Effect.succeed({ raw, found: false })
            return Effect.fail(
              new SportsProviderError({
                reason: "Rejected",
                message: `The sports provider refused ${what}: ${answer.error ?? "unknown error"}.`,
                providerResponse: raw
              })
            )
          })
        )
      )
    )

  const emptyPage = <A>(page: number): Page<A> => ({ results: [], page, perPage: 0, total: 0 })

  const listParams = (query: ListQuery): Record<string, string> => ({
    sport_id: String(query.sportId),
    page: String(query.page),
    ...(query.leagueId === undefined ? {} : { league_id: query.leagueId }),
    ...(query.day === undefined ? {} : { day: query.day })
  })

  const events = (what: string, path: string) => (query: ListQuery) =>
    Effect.gen(function*() {
      const { found, raw } = yield* fetch(what, path, listParams(query))
      if (!found) return { value: emptyPage<SportsEvent>(query.page), raw }
      const answer = yield* decode(what, BetsApi.EventsAnswer, raw)
      return { value: BetsApi.toEvents(answer, query.page), raw }
    })

  const notFound = (eventId: string, message = `Event ${eventId} not found.`) =>
    new EventNotFound({ eventId, message })

  const eventParams = (eventId: string) => ({ event_id: eventId })

  const event = (eventId: string) =>
    Effect.gen(function*() {
      const { found, raw } = yield* fetch("the event", BetsApi.paths.view, eventParams(eventId))
      if (!found) return yield* notFound(eventId)
      const answer = yield* decode("the event", BetsApi.ViewAnswer, raw)
      const first = answer.results[0]
      if (first === undefined) return yield* notFound(eventId)
      return { value: BetsApi.toEvent(first), raw }
    })

  /**
   * BetsAPI answers the odds, line-up or statistics of an event it does not
   * know with success and nothing in them, not NOT_FOUND. An empty answer is
   * checked against the event itself (a cached view): an unknown event is a
   * 404 on every event endpoint, whatever the provider's way of saying so.
   */
  const hasNothing = (raw: unknown) => {
    const results = (raw as { results?: unknown } | null)?.results
    return results === undefined || results === null || (typeof results === "object" && Object.keys(results).length === 0)
  }
  const confirmEvent = (eventId: string) => Effect.asVoid(event(eventId))

  const odds = (inPlay: boolean) => (eventId: string) =>
    Effect.gen(function*() {
      const what = inPlay ? "the live odds" : "the odds"
      const { found, raw } = yield* fetch(what, BetsApi.paths.odds, eventParams(eventId))
      if (!found) return yield* notFound(eventId)
      if (hasNothing(raw)) {
        yield* confirmEvent(eventId)
        return { value: [], raw }
      }
      const answer = yield* decode(what, BetsApi.OddsAnswer, raw)
      const value = remembered(raw, inPlay, () => BetsApi.toOdds(answer, inPlay))
      if (value.length === 0) yield* confirmEvent(eventId)
      return { value, raw }
    })

  const lineup = (eventId: string) =>
    Effect.gen(function*() {
      const { found, raw } = yield* fetch("the line-up", BetsApi.paths.lineup, eventParams(eventId))
      if (!found) return yield* notFound(eventId)
      if (hasNothing(raw)) {
        yield* confirmEvent(eventId)
        return yield* notFound(eventId, `No line-up is available for event ${eventId}.`)
      }
      const value = BetsApi.toLineup(yield* decode("the line-up", BetsApi.LineupAnswer, raw))
      if (value === undefined) return yield* notFound(eventId, `No line-up is available for event ${eventId}.`)
      return { value, raw }
    })

  const statsTrend = (eventId: string) =>
    Effect.gen(function*() {
      const { found, raw } = yield* fetch("the statistics", BetsApi.paths.statsTrend, eventParams(eventId))
      if (!found) return yield* notFound(eventId)
      if (hasNothing(raw)) {
        yield* confirmEvent(eventId)
        return yield* notFound(eventId, `No statistics are available for event ${eventId}.`)
      }
      const value = BetsApi.toStatsTrend(yield* decode("the statistics", BetsApi.StatsTrendAnswer, raw))
      if (value === undefined) return yield* notFound(eventId, `No statistics are available for event ${eventId}.`)
      return { value, raw }
    })

  const result = (eventId: string) =>
    Effect.gen(function*() {
      const { found, raw } = yield* fetch("the result", BetsApi.paths.result, eventParams(eventId))
      if (!found) return yield* notFound(eventId)
      const outcome = BetsApi.toResult(yield* decode("the result", BetsApi.ResultAnswer, raw))
      switch (outcome._tag) {
        case "Unknown":
          return yield* notFound(eventId)
        case "NotFinished":
          return yield* notFound(eventId, `Event ${eventId} has no final result yet (it is ${outcome.status}).`)
        case "Result":
          return { value: outcome.result, raw }
      }
    })

  return SportsProvider.of({
    name,
    configured: options.configured,
    // Both providers answer every operation of the contract.
    capabilities: sportsCapabilities,
    leagues: (query) =>
      Effect.gen(function*() {
        const { found, raw } = yield* fetch("the league list", BetsApi.paths.leagues, listParams(query))
        if (!found) return { value: emptyPage<SportsLeague>(query.page), raw }
        const answer = yield* decode("the league list", BetsApi.LeaguesAnswer, raw)
        return { value: BetsApi.toLeagues(answer, query.sportId), raw }
      }),
    upcoming: events("the upcoming events", BetsApi.paths.upcoming),
    live: events("the live events", BetsApi.paths.inplay),
    ended: events("the ended events", BetsApi.paths.ended),
    event,
    odds: odds(false),
    liveOdds: odds(true),
    lineup,
    statsTrend,
    result
  })
})
