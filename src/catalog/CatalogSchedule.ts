import { Effect, Layer } from "effect"
import { keepCurrent } from "../platform/KeepCurrent.ts"
import { SportsCatalog } from "./SportsCatalog.ts"
import { SportsCatalogConfig } from "./SportsCatalogConfig.ts"

/**
 * Keeps the feeds current without any partner asking: a full refresh every
 * CATALOG_REFRESH_INTERVAL and events in play every
 * CATALOG_LIVE_REFRESH_INTERVAL. An empty catalog is filled at start-up
 * (retried with backoff until the provider answers). Failures are logged;
 * the previous catalog stays as it was.
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
  yield* keepCurrent({
    isEmpty: catalog.isEmpty,
    fill: full,
    fillInterval: config.refreshInterval,
    waitAtStart: "15 seconds",
    jobs: [
      { run: full, interval: config.refreshInterval },
      { run: live, interval: config.liveRefreshInterval }
    ],
    defectMessage: "Sports catalog refresh failed unexpectedly"
  })
}))
