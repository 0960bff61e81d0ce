import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Persistence, RateLimiter } from "effect/persistence"
import { layerBoundedMemory } from "../platform/MemoryBacking.ts"
import { BetsApiProviderLive } from "./BetsApiProvider.ts"
import { SandboxProviderLive } from "./SandboxProvider.ts"
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

/** The provider SPORTS_PROVIDER names: `sandbox` (default) or `betsapi`. */
export const SportsProviderLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* SportsConfig
  const provider: Layer.Layer<SportsProvider, never, SportsConfig | Persistence.Persistence | RateLimiter.RateLimiter> =
    config.provider === "betsapi"
      ? BetsApiProviderLive.pipe(Layer.provide(FetchHttpClient.layer))
      : SandboxProviderLive
  return provider
})).pipe(Layer.provide(ProviderStoresLive))
