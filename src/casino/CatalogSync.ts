import { Context, Effect, Layer } from "effect"
import { keepCurrentAcrossFleet } from "../platform/FleetSchedule.ts"
import { timedRefresh } from "../platform/Metrics.ts"
import { CasinoCatalog, type SyncReport } from "./CasinoCatalog.ts"
import { CasinoConfig } from "./CasinoConfig.ts"
import { CasinoGateway, type CasinoGatewayError } from "./CasinoGateway.ts"

/**
 * Refreshes the local catalog from the aggregator: the whole snapshot is
 * fetched first (providers, then each provider's games), then applied in one
 * transaction, so a failure half-way changes nothing.
 */
export class CatalogSync extends Context.Service<CatalogSync, {
  readonly run: Effect.Effect<SyncReport, CasinoGatewayError>
}>()("partner-api/casino/CatalogSync") {
  static readonly layer = Layer.effect(
    CatalogSync,
    Effect.gen(function*() {
      const gateway = yield* CasinoGateway
      const catalog = yield* CasinoCatalog
      const run = Effect.gen(function*() {
        const providers = yield* gateway.providers
        const games = yield* Effect.forEach(providers, gateway.games, { concurrency: 4 })
        return yield* catalog.sync({ providers, games: games.flat() })
      }).pipe(timedRefresh("casino_sync"), Effect.withSpan("CatalogSync.run"))
      return CatalogSync.of({ run })
    })
  )
}

const logged = (run: Effect.Effect<SyncReport, CasinoGatewayError>) =>
  run.pipe(
    Effect.tap((report) => Effect.logInfo("Casino catalog synced").pipe(Effect.annotateLogs({ ...report }))),
    Effect.tapError((error) =>
      Effect.logWarning("Casino catalog sync failed").pipe(
        Effect.annotateLogs({ reason: error.reason, detail: error.message })
      )
    )
  )

/**
 * The schedule: an empty catalog is synced at start-up (retried with backoff
 * until the aggregator answers; start-up waits up to 10 s for it), then every
 * CASINO_SYNC_INTERVAL, once across the fleet (the job queue on PostgreSQL
 * picks one instance per run).
 */
export const CatalogSyncSchedule = Layer.effectDiscard(Effect.gen(function*() {
  const sync = yield* CatalogSync
  const catalog = yield* CasinoCatalog
  const config = yield* CasinoConfig
  const run = logged(sync.run)
  yield* keepCurrentAcrossFleet({
    fillTask: "casino-catalog:fill",
    isEmpty: catalog.isEmpty,
    fill: run,
    waitAtStart: "10 seconds",
    jobs: [{ task: "casino-catalog:sync", run, interval: config.syncInterval }],
    defectMessage: "Casino catalog sync failed unexpectedly"
  })
}))
