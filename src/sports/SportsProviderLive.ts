import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { RateLimiter } from "effect/persistence"
import { RateLimiterLive } from "../platform/RateLimiterStore.ts"
import { BetsApiProviderLive } from "./BetsApiProvider.ts"
import { SportsConfig } from "./SportsConfig.ts"
import type { SportsProvider } from "./SportsProvider.ts"

/** Where the rate limit's counters live: the service's one RateLimiter store, which the partner API's limits share. */
export const ProviderStoresLive = RateLimiterLive

/** A provider layer over the provider stores (the rate limit's counters). */
export type ProviderLayer<E = never, R = never> = Layer.Layer<
  SportsProvider,
  E,
  SportsConfig | RateLimiter.RateLimiter | R
>

/**
 * The provider SPORTS_PROVIDER names: `betsapi`, or `sandbox` (the default), whose layer the
 * caller gives: the sandbox is an area of its own, which this one does not know.
 */
export const sportsProviderLayer = <E, R>(sandbox: ProviderLayer<E, R>) =>
  Layer.unwrap(Effect.gen(function*() {
    const config = yield* SportsConfig
    const provider: ProviderLayer<E, R> = config.provider === "betsapi"
      ? BetsApiProviderLive.pipe(Layer.provide(FetchHttpClient.layer))
      : sandbox
    return provider
  })).pipe(Layer.provide(ProviderStoresLive))
