import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { RateLimiter } from "effect/persistence"
import { type SharedPersistence, type SharedStore } from "../platform/SharedStore.ts"
import * as BetsApiProvider from "./BetsApiProvider.ts"
import { SportsConfig } from "./SportsConfig.ts"
import type { SportsProvider } from "./SportsProvider.ts"

/**
 * A provider layer over the shared stores: the rate limit's counters (the
 * service's one RateLimiter) and the fleet's answers (Redis, with REDIS_URL).
 */
export type ProviderLayer<E = never, R = never> = Layer.Layer<
  SportsProvider,
  E,
  SportsConfig | RateLimiter.RateLimiter | SharedStore | SharedPersistence | R
>

/**
 * The provider SPORTS_PROVIDER names: `betsapi`, or `sandbox` (the default), whose layer the
 * caller gives: the sandbox is an area of its own, which this one does not know.
 */
export const layer = <E, R>(sandbox: ProviderLayer<E, R>) =>
  Layer.unwrap(Effect.gen(function*() {
    const config = yield* SportsConfig
    const provider: ProviderLayer<E, R> = config.provider === "betsapi"
      ? BetsApiProvider.layer.pipe(Layer.provide(FetchHttpClient.layer))
      : sandbox
    return provider
  }))
