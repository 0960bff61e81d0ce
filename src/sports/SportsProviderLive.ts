import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { RateLimiter } from "effect/persistence"
import { BetsApiProviderLive } from "./BetsApiProvider.ts"
import { SandboxProviderLive } from "./SandboxProvider.ts"
import { SportsConfig } from "./SportsConfig.ts"
import type { SportsProvider } from "./SportsProvider.ts"

/**
 * Where the rate limit's counters live: this process's memory. effect's
 * RateLimiter store can move them to Redis so several instances share one
 * quota.
 */
export const ProviderStoresLive = RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))

/** The provider SPORTS_PROVIDER names: `sandbox` (default) or `betsapi`. */
export const SportsProviderLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* SportsConfig
  const provider: Layer.Layer<SportsProvider, never, SportsConfig | RateLimiter.RateLimiter> =
    config.provider === "betsapi"
      ? BetsApiProviderLive.pipe(Layer.provide(FetchHttpClient.layer))
      : SandboxProviderLive
  return provider
})).pipe(Layer.provide(ProviderStoresLive))
