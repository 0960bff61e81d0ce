import type { Duration } from "effect"
import type {
  EventResult,
  EventStatus,
  Lineup,
  OddsMarket,
  Page,
  SportsEvent,
  SportsLeague,
  StatSample,
  StatsTrend,
  StatusReason
} from "../domain/Sports.ts"
import type { ProviderCall } from "./ProviderCall.ts"

/**
 * What the port asks of a provider's protocol: the request each call sends, how long its answer stays fresh, and
 * how an answer reads in the domain's terms. A provider (src/integrations/<name>/) brings one; the port caches,
 * shares and counts its answers whatever the protocol.
 */

/** What one upstream call answered, read once, when it arrived. */
export type Content<A> =
  | { readonly _tag: "Found"; readonly answer: A }
  /** The provider said it does not know what was asked. */
  | { readonly _tag: "NotFound" }
  /** Success with nothing in it: how a provider may answer an event detail it does not know (or has nothing of yet). */
  | { readonly _tag: "Nothing" }
  /** The provider refused the request (`message` in the partner's words, where the protocol knows it). */
  | { readonly _tag: "Rejected"; readonly code: string | undefined; readonly message?: string | undefined }
  | { readonly _tag: "Invalid" }

/** What a read hands on: the refusals and the wrong shapes have become errors. */
export type Usable<A> = Exclude<Content<A>, { readonly _tag: "Rejected" | "Invalid" }>

/** An event's result as the provider knows it: final, unknown, or not final yet. */
export type ResultOutcome =
  | { readonly _tag: "Result"; readonly result: EventResult }
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "NotFinished"; readonly status: EventStatus; readonly reason?: StatusReason | undefined }

/** Reads one answer (its payload as the provider sent it) of a call. */
export type Reader<A> = (raw: unknown, call: ProviderCall) => Content<A>

/** One request to the provider: a path and its parameters, in the provider's names. */
export interface ProviderRequest {
  readonly path: string
  readonly params: Readonly<Record<string, string>>
}

export interface SportsProtocol {
  /**
   * The request a call sends. Calls that send the same request share its answer (one upstream call serves them all).
   * `undefined`: the call names nothing the provider could know (an id of a form it never gives), so it is not found
   * without asking.
   */
  readonly request: (call: ProviderCall) => ProviderRequest | undefined
  /** How long an answer stays fresh (the port caps it with SPORTS_PROVIDER_CACHE_TTL_MAX). */
  readonly timeToLive: (request: ProviderRequest, raw: unknown) => Duration.Duration
  /** The sports the provider offers (the gateway's sport ids); every sport when absent. */
  readonly sportIds?: ReadonlyArray<number> | undefined
  /** Whether its upcoming list is a day's (the day asked, else today, UTC), not every event to come. */
  readonly upcomingByDay?: boolean | undefined
  /**
   * A sample of an event's statistics an answer carries, for a provider that answers running totals rather than a
   * series: the port keeps each one it fetches, and the stats-trend answer shows them.
   */
  readonly statsSample?:
    | ((
      request: ProviderRequest,
      raw: unknown,
      now: number
    ) => { readonly eventId: string; readonly sample: StatSample } | undefined)
    | undefined
  readonly leagues: Reader<Page<SportsLeague>>
  /** The upcoming, live and ended lists. */
  readonly events: Reader<Page<SportsEvent>>
  /** One event; `undefined` when the answer holds none. */
  readonly event: Reader<SportsEvent | undefined>
  readonly odds: Reader<ReadonlyArray<OddsMarket>>
  readonly liveOdds: Reader<ReadonlyArray<OddsMarket>>
  readonly lineup: Reader<Lineup | undefined>
  readonly statsTrend: Reader<StatsTrend | undefined>
  readonly result: Reader<ResultOutcome>
}
