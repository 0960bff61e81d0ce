import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Persistence, RateLimiter } from "effect/persistence"
import { layerBoundedMemory } from "../platform/MemoryBacking.ts"
import { BetsApiProviderLive } from "./BetsApiProvider.ts"
import { SportsConfig } from "./SportsConfig.ts"
import type { SportsProvider } from "./SportsProvider.ts"

/**
 * Where cached answers and the rate limit's counters live: this process's
 * memory. effect's Persistence and RateLimiter stores can move both to Redis
 * (or SQL) so several instances share one quota and one cache.
 */
export const ProviderStoresLive = Layer.mergeAll(
  Persistence.layer.pipe(Layer.provide(layerBoundedMemory(20_000))),
  RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))
)

/** A provider layer over the provider stores (the cache, the rate limit's counters). */
export type ProviderLayer<E = never, R = never> = Layer.Layer<
  SportsProvider,
  E,
  SportsConfig | Persistence.Persistence | RateLimiter.RateLimiter | R
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
