import { Clock, Context, Effect, type Layer, Schema } from "effect"
import type { RateLimiter } from "effect/persistence"
import type { SharedPersistence, SharedStore } from "../platform/SharedStore.ts"
import {
  canonicalId,
  type Lineup,
  type OddsMarket,
  type Page,
  type SettledResult,
  sportsCapabilities,
  type SportsCapability,
  type SportsEvent,
  type SportsLeague,
  type StatSample,
  type StatsReport
} from "../domain/Sports.ts"
import { overdue } from "../domain/SportsLifecycle.ts"
import { makeProviderAnswers, type Origin, readOnce } from "./ProviderAnswers.ts"
import { type Endpoint, eventCall, listCall, type ProviderCall, readKeyOf } from "./ProviderCall.ts"
import type { Content, Reader, SportsProtocol, Usable } from "./ProviderProtocol.ts"
import { providerQuota } from "./ProviderQuota.ts"
import { SportsConfig } from "./SportsConfig.ts"
import { SportsProviderError } from "./SportsProviderError.ts"
import { traced } from "../platform/Traced.ts"

export { SportsProviderError }

export class EventNotFound extends Schema.TaggedError<EventNotFound>()("EventNotFound", {
  eventId: Schema.String,
  message: Schema.String
}) {}

/** A list asked of a sport the provider does not offer: the partner's query is wrong (a 422 naming `sport_id`). */
export class UnsupportedSport extends Schema.TaggedError<UnsupportedSport>()("UnsupportedSport", {
  sportId: Schema.Number,
  message: Schema.String
}) {}

/** A provider answer, mapped, with the raw payload it came from. */
export interface Fetched<A> {
  readonly value: A
  readonly raw: unknown
  /** When the provider gave this answer (epoch millis), for the `Age` header. */
  readonly storedAt: number
  /**
   * Whether the provider was asked for it, or it came from another instance, or it is the last answer kept, served
   * while the provider cannot be asked.
   */
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
 * the contract. Layers: the sandbox (simulated sports data, the default),
 * BetsAPI and API-Football over HTTP. Answers are cached per request with TTLs that fit the data,
 * identical concurrent calls share one upstream request, and upstream calls
 * stay under SPORTS_PROVIDER_RATE_LIMIT per hour.
 */
export class SportsProvider extends Context.Service<SportsProvider, {
  readonly name: string
  readonly configured: boolean
  readonly capabilities: ReadonlyArray<SportsCapability>
  /** The sports it offers (the gateway's sport ids); every sport when undefined. */
  readonly sportIds: ReadonlyArray<number> | undefined
  /** Whether its upcoming list is one day's (`day`, else today), so a refresh asks it day by day. */
  readonly upcomingByDay: boolean
  leagues(query: ListQuery): Effect.Effect<Fetched<Page<SportsLeague>>, SportsProviderError | UnsupportedSport>
  upcoming(query: ListQuery): Effect.Effect<Fetched<Page<SportsEvent>>, SportsProviderError | UnsupportedSport>
  live(query: ListQuery): Effect.Effect<Fetched<Page<SportsEvent>>, SportsProviderError | UnsupportedSport>
  ended(query: ListQuery): Effect.Effect<Fetched<Page<SportsEvent>>, SportsProviderError | UnsupportedSport>
  event(eventId: string): Effect.Effect<Fetched<SportsEvent>, SportsProviderError | EventNotFound>
  odds(eventId: string): Effect.Effect<Fetched<ReadonlyArray<OddsMarket>>, SportsProviderError | EventNotFound>
  liveOdds(eventId: string): Effect.Effect<Fetched<ReadonlyArray<OddsMarket>>, SportsProviderError | EventNotFound>
  lineup(eventId: string): Effect.Effect<Fetched<Lineup>, SportsProviderError | EventNotFound>
  statsTrend(eventId: string): Effect.Effect<Fetched<StatsReport>, SportsProviderError | EventNotFound>
  /** A final result; with the service's record of it (when it first saw it final, its last correction) where kept. */
  result(eventId: string): Effect.Effect<Fetched<SettledResult>, SportsProviderError | EventNotFound>
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

/** Where an event's statistics samples are kept (StatSamplesRepo), for a protocol that gives them. */
export interface StatSamples {
  record(provider: string, eventId: string, sample: StatSample): Effect.Effect<void>
  samplesOf(provider: string, eventId: string): Effect.Effect<ReadonlyArray<StatSample>>
}

/**
 * Builds the SportsProvider over a transport and the protocol it speaks: the answers kept per request
 * (ProviderAnswers: cached, coalesced, shared by the fleet, the last one served while the provider cannot be asked),
 * each read once per kind, and the hourly limit.
 */
export const makeSportsProvider = Effect.fnUntraced(function*(options: {
  readonly name: string
  readonly configured: boolean
  readonly transport: SportsTransport
  readonly protocol: SportsProtocol
  readonly statSamples?: StatSamples | undefined
}) {
  const { name, protocol, statSamples, transport } = options
  const { overdueAfter } = yield* SportsConfig
  const takeToken = transport.chargesQuota === true ? Effect.void : yield* providerQuota(name)
  const sample = protocol.statsSample
  const answers = yield* makeProviderAnswers({
    name,
    call: (request) => transport.call(request.path, request.params),
    protocol,
    takeToken,
    onFresh: statSamples === undefined || sample === undefined ?
      undefined :
      (request, raw) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const taken = sample(request, raw, now)
          // A sample not kept (the database busy) is only a point missing from a trend: the answer goes on.
          return taken === undefined
            ? Effect.void
            : Effect.ignore(statSamples.record(name, taken.eventId, taken.sample))
        })
  })

  /** Reads a call's answer as `read` makes it; a refusal or an answer of the wrong shape is an error worded for `what`. */
  const fetch = Effect.fnUntraced(function*<A>(what: string, read: Reader<A>, call: ProviderCall): Effect.fn.Return<
    { readonly raw: unknown; readonly content: Usable<A>; readonly stamp: Pick<Fetched<A>, "storedAt" | "origin"> },
    SportsProviderError
  > {
    const request = protocol.request(call)
    if (request === undefined) {
      return {
        raw: null,
        content: { _tag: "NotFound" },
        stamp: { storedAt: yield* Clock.currentTimeMillis, origin: "shared" }
      }
    }
    const { origin, stored } = yield* answers(request)
    const content = readOnce(stored, readKeyOf(call), (raw): Content<A> => read(raw, call))
    const raw = stored.raw
    switch (content._tag) {
      case "Rejected":
        return yield* new SportsProviderError({
          reason: "Rejected",
          message: content.message ?? `The sports provider refused ${what}: ${content.code ?? "unknown error"}.`,
          providerResponse: raw
        })
      case "Invalid":
        return yield* new SportsProviderError({
          reason: "InvalidResponse",
          message: `The sports provider's answer to ${what} has an unexpected shape.`,
          providerResponse: raw
        })
      default:
        return { raw, content, stamp: { storedAt: stored.storedAt, origin } }
    }
  })

  const emptyPage = <A>(page: number): Page<A> => ({ results: [], page, perPage: 0, total: 0 })

  /**
   * Events as of now: one the provider still calls in play long past its kick-off is `suspended` (SportsLifecycle's
   * `overdue`). Applied to each read, not to the answer kept: the answer stays the provider's while the clock moves.
   */
  const asOfNow = (events: ReadonlyArray<SportsEvent>) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const read = events.map((event) => overdue(event, now, overdueAfter))
      return read.every((event, i) => event === events[i]) ? events : read
    })

  /** A list of a sport the provider offers; another sport is the partner's mistake (a 422), not the provider's. */
  const offered = (sportId: number) =>
    protocol.sportIds === undefined || protocol.sportIds.includes(sportId)
      ? Effect.void
      : Effect.fail(
        new UnsupportedSport({
          sportId,
          message: `The sports provider ${name} does not offer sport ${sportId} (it offers ${
            protocol.sportIds.join(", ")
          }).`
        })
      )

  const leagues = traced(
    "SportsProvider.leagues",
    Effect.fnUntraced(function*(query: ListQuery) {
      yield* offered(query.sportId)
      const { content, raw, stamp } = yield* fetch("the league list", protocol.leagues, listCall("leagues", query))
      if (content._tag !== "Found") return { value: emptyPage<SportsLeague>(query.page), raw, ...stamp }
      return { value: content.answer, raw, ...stamp }
    })
  )

  const events = (what: string, endpoint: Endpoint, spanName: string) =>
    traced(
      spanName,
      Effect.fnUntraced(function*(query: ListQuery) {
        yield* offered(query.sportId)
        const { content, raw, stamp } = yield* fetch(what, protocol.events, listCall(endpoint, query))
        if (content._tag !== "Found") return { value: emptyPage<SportsEvent>(query.page), raw, ...stamp }
        const results = yield* asOfNow(content.answer.results)
        const value = results === content.answer.results ? content.answer : { ...content.answer, results }
        return { value, raw, ...stamp }
      })
    )

  const notFound = (eventId: string, message = `Event ${eventId} not found.`) => new EventNotFound({ eventId, message })

  const event = traced(
    "SportsProvider.event",
    Effect.fnUntraced(function*(eventId: string) {
      const { content, raw, stamp } = yield* fetch("the event", protocol.event, eventCall("event", eventId))
      const found = content._tag === "Found" ? content.answer : undefined
      if (found === undefined) return yield* notFound(eventId)
      const [value] = yield* asOfNow([found])
      return { value, raw, ...stamp }
    })
  )

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
    traced(
      inPlay ? "SportsProvider.liveOdds" : "SportsProvider.odds",
      Effect.fnUntraced(function*(eventId: string) {
        const what = inPlay ? "the live odds" : "the odds"
        const read = inPlay ? protocol.liveOdds : protocol.odds
        const { content, raw, stamp } = yield* fetch(what, read, eventCall(inPlay ? "liveOdds" : "odds", eventId))
        if (content._tag === "NotFound") return yield* notFound(eventId)
        const value = content._tag === "Found" ? content.answer : []
        if (value.length === 0) yield* confirmEvent(eventId)
        return { value, raw, ...stamp }
      })
    )

  /** An event detail that may be missing (line-up, statistics): a 404 that says so when the event has none. */
  const eventDetail = <D>(options: {
    readonly what: string
    readonly endpoint: Endpoint
    readonly read: Reader<D | undefined>
  }) =>
    Effect.fnUntraced(function*(eventId: string) {
      const { content, raw, stamp } = yield* fetch(options.what, options.read, eventCall(options.endpoint, eventId))
      if (content._tag === "NotFound") return yield* notFound(eventId)
      if (content._tag === "Nothing") yield* confirmEvent(eventId)
      const value = content._tag === "Found" ? content.answer : undefined
      return { value, raw, ...stamp }
    })

  const lineupDetail = eventDetail({ what: "the line-up", endpoint: "lineup", read: protocol.lineup })
  const lineup = traced(
    "SportsProvider.lineup",
    Effect.fnUntraced(function*(eventId: string) {
      const { value, ...rest } = yield* lineupDetail(eventId)
      if (value === undefined) return yield* notFound(eventId, `No line-up is available for event ${eventId}.`)
      return { value, ...rest }
    })
  )

  const statsDetail = eventDetail({ what: "the statistics", endpoint: "statsTrend", read: protocol.statsTrend })
  const statsTrend = traced(
    "SportsProvider.statsTrend",
    Effect.fnUntraced(function*(eventId: string) {
      const { value, ...rest } = yield* statsDetail(eventId)
      const samples = statSamples === undefined ? [] : yield* statSamples.samplesOf(name, canonicalId(eventId))
      // Kept samples outlive the provider's answer: after a match the trend is still there.
      const latest = value ?? samples.at(-1)?.stats
      if (latest === undefined) return yield* notFound(eventId, `No statistics are available for event ${eventId}.`)
      return { value: { latest, samples } satisfies StatsReport, ...rest }
    })
  )

  const result = traced(
    "SportsProvider.result",
    Effect.fnUntraced(function*(eventId: string) {
      const { content, raw, stamp } = yield* fetch("the result", protocol.result, eventCall("result", eventId))
      if (content._tag !== "Found") return yield* notFound(eventId)
      const outcome = content.answer
      switch (outcome._tag) {
        case "Unknown":
          return yield* notFound(eventId)
        case "NotFinished": {
          const why = outcome.reason === undefined ? "" : `: ${outcome.reason.text}`
          return yield* notFound(eventId, `Event ${eventId} has no final result yet (it is ${outcome.status}${why}).`)
        }
        case "Result":
          return { value: outcome.result, raw, ...stamp }
      }
    })
  )

  return SportsProvider.of({
    name,
    configured: options.configured,
    // Every provider answers every operation of the contract.
    capabilities: sportsCapabilities,
    sportIds: protocol.sportIds,
    upcomingByDay: protocol.upcomingByDay === true,
    leagues,
    upcoming: events("the upcoming events", "upcoming", "SportsProvider.upcoming"),
    live: events("the live events", "live", "SportsProvider.live"),
    ended: events("the ended events", "ended", "SportsProvider.ended"),
    event,
    odds: odds(false),
    liveOdds: odds(true),
    lineup,
    statsTrend,
    result
  })
})
