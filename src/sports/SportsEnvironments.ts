import { Context, Effect, Layer } from "effect"
import type { Environment } from "../domain/Environment.ts"
import type { CatalogChanges } from "./catalog/CatalogChanges.ts"
import { SportsCatalog } from "./catalog/SportsCatalog.ts"
import { SportsCatalogConfig } from "./catalog/SportsCatalogConfig.ts"
import { SportsConfig } from "./SportsConfig.ts"
import type { ProviderLayer } from "./SportsProviders.ts"
import { SportsProvider } from "./SportsProvider.ts"

/** What answers a partner's sports requests in one environment: the provider endpoints, the catalog and feeds. */
export interface SportsServices {
  readonly provider: SportsProvider["Service"]
  readonly catalog: SportsCatalog["Service"]
}

/** Runs `refresh` every `interval`, here, for as long as the layer lives; a failure waits for the next run. */
const every = (interval: SportsCatalogConfig["Service"]["refreshInterval"], refresh: Effect.Effect<unknown, { message: string }>) =>
  Effect.forkScoped(Effect.forever(Effect.delay(
    refresh.pipe(
      Effect.tapError((error) =>
        Effect.logWarning("Test sports catalog refresh failed").pipe(Effect.annotateLogs({ detail: error.message }))
      ),
      Effect.ignore
    ),
    interval
  )))

/**
 * The sports of each environment; a handler picks with the token's environment. `live` is the provider
 * SPORTS_PROVIDER names and the catalog in PostgreSQL. `test` is always the sandbox's world, so a test
 * token never reaches the real provider nor spends its quota: with SPORTS_PROVIDER=sandbox it is the live
 * one (catalog data is not partner data); otherwise a provider of its own over the sandbox world and a
 * catalog in this process's memory, refreshed from it at start and on the catalog's intervals, so every
 * event a test feed lists is one the test provider endpoints know. The world is deterministic (fixed
 * seeds and the clock), so every instance holds the same catalog without sharing it.
 */
export class SportsEnvironments extends Context.Service<SportsEnvironments, Readonly<Record<Environment, SportsServices>>>()(
  "partner-api/sports/SportsEnvironments"
) {
  /**
   * `live` from the context's services; `test` over `testProvider` (the sandbox world's), its in-memory catalog's
   * publishes told to `testChanges` (the change stream of the sandbox world).
   */
  static readonly layer = <E, R, RC>(testProvider: ProviderLayer<E, R>, testChanges: Layer.Layer<CatalogChanges, never, RC>) =>
    Layer.effect(
      SportsEnvironments,
      Effect.gen(function*() {
        const live: SportsServices = { provider: yield* SportsProvider, catalog: yield* SportsCatalog }
        if ((yield* SportsConfig).provider === "sandbox") return SportsEnvironments.of({ live, test: live })
        // Fresh: built apart from the live services, never taking their place (or they its).
        const built = yield* Layer.build(
          Layer.fresh(SportsCatalog.layerMemoryTold.pipe(Layer.provide(testChanges), Layer.provideMerge(testProvider)))
        )
        const test: SportsServices = { provider: Context.get(built, SportsProvider), catalog: Context.get(built, SportsCatalog) }
        const config = yield* SportsCatalogConfig
        yield* test.catalog.refresh(undefined).pipe(
          Effect.tapError((error) =>
            Effect.logWarning("Test sports catalog refresh failed").pipe(Effect.annotateLogs({ detail: error.message }))
          ),
          Effect.ignore
        )
        yield* every(config.refreshInterval, test.catalog.refresh(undefined))
        yield* every(config.liveRefreshInterval, test.catalog.refreshLive)
        return SportsEnvironments.of({ live, test })
      })
    )

  /** Both environments answered by the context's services (tests of the handlers). */
  static readonly layerShared = Layer.effect(
    SportsEnvironments,
    Effect.gen(function*() {
      const services: SportsServices = { provider: yield* SportsProvider, catalog: yield* SportsCatalog }
      return SportsEnvironments.of({ live: services, test: services })
    })
  )
}
