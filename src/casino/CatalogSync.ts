import { Context, Effect, Layer, Result } from "effect"
import { keepCurrentAcrossFleet } from "../platform/FleetSchedule.ts"
import { timedRefresh } from "../platform/Metrics.ts"
import { CasinoCatalog, type SyncReport } from "./CasinoCatalog.ts"
import { CasinoConfig } from "./CasinoConfig.ts"
import { CasinoGatewayError, CasinoGateways } from "./CasinoGateway.ts"

/** The reports of several syncs as one. */
const summed = (reports: ReadonlyArray<SyncReport>): SyncReport => {
  const sum = (pick: (report: SyncReport) => SyncReport["providers"]) => ({
    added: reports.reduce((total, report) => total + pick(report).added, 0),
    changed: reports.reduce((total, report) => total + pick(report).changed, 0),
    absent: reports.reduce((total, report) => total + pick(report).absent, 0)
  })
  return { providers: sum((report) => report.providers), games: sum((report) => report.games) }
}

/**
 * Refreshes the local catalog from each aggregator CASINO_GATEWAY lists, one after another: each one's whole
 * snapshot is fetched first (providers, then each provider's games), then applied in one transaction, so a failure
 * half-way changes nothing of it. One aggregator failing does not keep the others from syncing; the run then fails
 * with the first failure (each is logged), after the others are applied.
 */
export class CatalogSync extends Context.Service<CatalogSync, {
  readonly run: Effect.Effect<SyncReport, CasinoGatewayError>
}>()("partner-api/casino/CatalogSync") {
  static readonly layer = Layer.effect(
    CatalogSync,
    Effect.gen(function*() {
      const gateways = yield* CasinoGateways
      const catalog = yield* CasinoCatalog
      const one = (gateway: CasinoGateways["Service"]["all"][number]) =>
        Effect.gen(function*() {
          const providers = yield* gateway.providers
          const games = yield* Effect.forEach(providers, gateway.games, { concurrency: 4 })
          return yield* catalog.sync(gateway.name, { providers, games: games.flat() })
        }).pipe(
          Effect.tapError((error) =>
            Effect.logWarning("Casino catalog sync of one aggregator failed").pipe(
              Effect.annotateLogs({ aggregator: gateway.name, reason: error.reason, detail: error.message })
            )
          ),
          Effect.result
        )
      const run = Effect.gen(function*() {
        const results = yield* Effect.forEach(gateways.all, one)
        const failed = results.find(Result.isFailure)
        if (failed !== undefined) return yield* Effect.fail(failed.failure)
        return summed(results.filter(Result.isSuccess).map((result) => result.success))
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
