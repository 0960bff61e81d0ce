import { Context, Effect, Layer } from "effect"
import type { Environment } from "../domain/Environment.ts"
import { Casino } from "./Casino.ts"
import { CasinoCatalog } from "./CasinoCatalog.ts"
import { CasinoConfig } from "./CasinoConfig.ts"
import { CasinoGateway } from "./CasinoGateway.ts"
import { CatalogSync } from "./CatalogSync.ts"

/** What answers a partner's casino requests in one environment. */
export interface CasinoServices {
  readonly catalog: CasinoCatalog["Service"]
  readonly casino: Casino["Service"]
  readonly gateway: CasinoGateway["Service"]
}

/**
 * The casino of each environment; a handler picks with the token's environment. `live` is the
 * aggregator CASINO_GATEWAY names with the catalog in PostgreSQL. `test` is always the sandbox
 * aggregator, so a test token never reaches a real one: with CASINO_GATEWAY=sandbox it lists the live
 * catalog (the same sandbox's; catalog data is not partner data), otherwise its own catalog in this
 * process's memory, synced from the sandbox at start and every CASINO_SYNC_INTERVAL (the sandbox's
 * catalog is fixed, so every instance holds the same one).
 */
export class CasinoEnvironments extends Context.Service<CasinoEnvironments, Readonly<Record<Environment, CasinoServices>>>()(
  "partner-api/casino/CasinoEnvironments"
) {
  /** `live` from the context's services; `test` over `testGateway` (the sandbox's, for test launches). */
  static readonly layer = <E, R>(testGateway: Layer.Layer<CasinoGateway, E, R>) =>
    Layer.effect(
      CasinoEnvironments,
      Effect.gen(function*() {
        const config = yield* CasinoConfig
        const live: CasinoServices = { catalog: yield* CasinoCatalog, casino: yield* Casino, gateway: yield* CasinoGateway }
        const sharesCatalog = config.gateway === "sandbox"
        const catalog = sharesCatalog ? Layer.succeed(CasinoCatalog, live.catalog) : CasinoCatalog.layerMemory
        // Fresh: built apart from the live services, never taking their place (or they its).
        const built = yield* Layer.build(Layer.fresh(
          Layer.mergeAll(Casino.layer, CatalogSync.layer).pipe(Layer.provideMerge(Layer.merge(catalog, testGateway)))
        ))
        const test: CasinoServices = {
          catalog: Context.get(built, CasinoCatalog),
          casino: Context.get(built, Casino),
          gateway: Context.get(built, CasinoGateway)
        }
        if (!sharesCatalog) {
          const sync = Context.get(built, CatalogSync).run.pipe(
            Effect.tapError((error) =>
              Effect.logWarning("Test casino catalog sync failed").pipe(Effect.annotateLogs({ detail: error.message }))
            ),
            Effect.ignore
          )
          yield* sync
          yield* Effect.forkScoped(Effect.forever(Effect.delay(sync, config.syncInterval)))
        }
        return CasinoEnvironments.of({ live, test })
      })
    )

  /** Both environments answered by the context's services (tests of the handlers). */
  static readonly layerShared = Layer.effect(
    CasinoEnvironments,
    Effect.gen(function*() {
      const services: CasinoServices = { catalog: yield* CasinoCatalog, casino: yield* Casino, gateway: yield* CasinoGateway }
      return CasinoEnvironments.of({ live: services, test: services })
    })
  )
}

