import { Effect, Layer } from "effect"
import { Casino } from "./Casino.ts"
import { CasinoCatalog } from "./CasinoCatalog.ts"
import { CasinoConfig, sandboxSelected } from "./CasinoConfig.ts"
import { type CasinoGateway, CasinoGateways } from "./CasinoGateway.ts"
import { CatalogSync } from "./CatalogSync.ts"

/** The sandbox's catalog synced into the test catalog now, then every `interval`; a failure waits for the next run. */
const syncedEvery = (interval: CasinoConfig["Service"]["syncInterval"]) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const sync = (yield* CatalogSync).run.pipe(
      Effect.tapError((error) =>
        Effect.logWarning("Test casino catalog sync failed").pipe(Effect.annotateLogs({ detail: error.message }))
      ),
      Effect.ignore
    )
    yield* sync
    yield* Effect.forkScoped(Effect.forever(Effect.delay(sync, interval)))
  })).pipe(Layer.provide(CatalogSync.layer))

/**
 * The casino a test token reaches: always the sandbox aggregator (`testGateway`), so a test token never reaches a
 * real one. With CASINO_GATEWAY=sandbox it lists the live catalog (the same sandbox's; catalog data is not partner
 * data), otherwise its own catalog in this process's memory, synced from the sandbox at start and every
 * CASINO_SYNC_INTERVAL (the sandbox's catalog is fixed, so every instance holds the same one).
 */
export const layer = <E, R>(testGateway: Layer.Layer<CasinoGateway, E, R>) =>
  Layer.unwrap(Effect.map(Effect.service(CasinoConfig), (config) => {
    const sharesCatalog = sandboxSelected(config)
    const catalog: Layer.Layer<CasinoCatalog, never, CasinoCatalog | CasinoConfig> = sharesCatalog
      ? Layer.effect(CasinoCatalog, Effect.service(CasinoCatalog))
      : CasinoCatalog.layerMemory
    // Fresh: built apart from the live services, never taking their place (or they its).
    return Layer.fresh(
      Layer.merge(Casino.layer, sharesCatalog ? Layer.empty : syncedEvery(config.syncInterval)).pipe(
        Layer.provideMerge(Layer.merge(catalog, CasinoGateways.fromGateway(testGateway)))
      )
    )
  }))
