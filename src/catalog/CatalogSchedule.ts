import { Duration, Effect, Fiber, Layer, Schedule } from "effect"
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
  // A defect is logged and the schedule goes on: one bad run must not stop the feeds for good.
  const survivingDefects = <A, E>(run: Effect.Effect<A, E>) =>
    Effect.catchDefect(run, (defect) =>
      Effect.logError("Sports catalog refresh failed unexpectedly").pipe(Effect.annotateLogs({ defect: String(defect) })))
  const every = (interval: Duration.Duration, run: Effect.Effect<unknown, unknown>) =>
    Effect.forever(Effect.andThen(Effect.sleep(interval), Effect.ignore(survivingDefects(run))))

  const initial = Effect.gen(function*() {
    if (!(yield* catalog.isEmpty)) return
    yield* full.pipe(
      Effect.retry({
        schedule: Schedule.min([
          Schedule.exponential("5 seconds"),
          Schedule.spaced(Duration.min(config.refreshInterval, Duration.minutes(5)))
        ])
      })
    )
  })
  // A first refresh that answers quickly is waited for, so the feeds are there when the service
  // starts answering; a slow or failing one goes on in the background.
  const first = yield* Effect.forkScoped(survivingDefects(initial))
  yield* Effect.raceFirst(Effect.ignore(Fiber.await(first)), Effect.sleep("15 seconds"))
  yield* Effect.forkScoped(Effect.andThen(Fiber.await(first), every(config.refreshInterval, full)))
  yield* Effect.forkScoped(Effect.andThen(Fiber.await(first), every(config.liveRefreshInterval, live)))
}))
