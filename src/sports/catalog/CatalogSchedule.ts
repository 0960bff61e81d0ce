import { Effect, Layer } from "effect"
import { keepCurrentAcrossFleet } from "../../platform/FleetSchedule.ts"
import { SportsCatalog } from "./SportsCatalog.ts"
import { SportsCatalogConfig } from "./SportsCatalogConfig.ts"

/**
 * Keeps the feeds current without any partner asking: a full refresh every
 * CATALOG_REFRESH_INTERVAL and events in play every
 * CATALOG_LIVE_REFRESH_INTERVAL, each once across the fleet (the job queue
 * on PostgreSQL picks one instance per run). An empty catalog is filled at
 * start-up (retried with backoff until the provider answers). Failures are
 * logged; the previous catalog stays as it was.
 */
export const CatalogSchedule = Layer.effectDiscard(Effect.gen(function*() {
  const catalog = yield* SportsCatalog
  const config = yield* SportsCatalogConfig

  // Successes are logged by the refresh itself; failures here, since no partner is there to see them.
  const full = catalog.refresh(undefined).pipe(
    Effect.tapError((error) =>
      Effect.logWarning("Sports catalog refresh failed").pipe(Effect.annotateLogs({ detail: error.message }))
    )
  )
  const live = catalog.refreshLive.pipe(
    Effect.tapError((error) =>
      Effect.logWarning("Live events refresh failed").pipe(Effect.annotateLogs({ detail: error.message }))
    )
  )
  yield* keepCurrentAcrossFleet({
    fillTask: "sports-catalog:fill",
    isEmpty: catalog.isEmpty,
    fill: full,
    waitAtStart: "15 seconds",
    jobs: [
      { task: "sports-catalog:full", run: full, interval: config.refreshInterval },
      { task: "sports-catalog:live", run: live, interval: config.liveRefreshInterval }
    ],
    defectMessage: "Sports catalog refresh failed unexpectedly"
  })
}))
