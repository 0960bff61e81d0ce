import { Context, Effect, Layer } from "effect"
import type { CatalogChanges } from "./catalog/CatalogChanges.ts"
import { SportsCatalog } from "./catalog/SportsCatalog.ts"
import { SportsCatalogConfig } from "./catalog/SportsCatalogConfig.ts"
import { SportsConfig } from "./SportsConfig.ts"
import { type ProviderLayer, SportsProvider } from "./SportsProvider.ts"

/** A refresh whose failure is logged and waits for the next run. */
const logged = (refresh: Effect.Effect<unknown, { message: string }>) =>
  refresh.pipe(
    Effect.tapError((error) =>
      Effect.logWarning("Test sports catalog refresh failed").pipe(Effect.annotateLogs({ detail: error.message }))
    ),
    Effect.ignore
  )

/** Runs `refresh` every `interval`, for as long as the layer lives. */
const every = (
  interval: SportsCatalogConfig["Service"]["refreshInterval"],
  refresh: Effect.Effect<unknown, { message: string }>
) => Effect.forkScoped(Effect.forever(Effect.delay(logged(refresh), interval)))

/** The test catalog refreshed from its provider at start and on the catalog's intervals. */
const refreshed = Layer.effectDiscard(Effect.gen(function*() {
  const catalog = yield* SportsCatalog
  const config = yield* SportsCatalogConfig
  yield* logged(catalog.refresh(undefined))
  yield* every(config.refreshInterval, catalog.refresh(undefined))
  yield* every(config.liveRefreshInterval, catalog.refreshLive)
}))

/**
 * The sports a test token reaches: always the sandbox's sports data, so a test token never reaches the real provider nor
 * spends its quota. With SPORTS_PROVIDER=sandbox it is the live one (catalog data is not partner data); otherwise a
 * provider of its own over the sandbox's data (`testProvider`) and a catalog in this process's memory, its publishes
 * sent to `testChanges` (the change stream of the `sandbox` provider), refreshed from it at start and on the catalog's
 * intervals, so every event a test feed lists is one the test provider endpoints know. The sandbox's data is deterministic
 * (fixed seeds and the clock), so every instance holds the same catalog without sharing it.
 */
export const layer = <E, R, RC>(
  testProvider: ProviderLayer<E, R>,
  testChanges: Layer.Layer<CatalogChanges, never, RC>
) =>
  Layer.unwrap(Effect.map(Effect.service(SportsConfig), (config): Layer.Layer<
    SportsProvider | SportsCatalog,
    E,
    Layer.Services<ProviderLayer<E, R>> | RC | SportsCatalogConfig | SportsProvider | SportsCatalog
  > =>
    config.provider === "sandbox"
      ? Layer.effectContext(
        Effect.map(Effect.context<SportsProvider | SportsCatalog>(), Context.pick(SportsProvider, SportsCatalog))
      )
      // Fresh: built apart from the live services, never taking their place (or they its).
      : Layer.fresh(
        refreshed.pipe(
          Layer.provideMerge(SportsCatalog.layerMemoryNoDeps.pipe(Layer.provide(testChanges))),
          Layer.provideMerge(testProvider)
        )
      )))
