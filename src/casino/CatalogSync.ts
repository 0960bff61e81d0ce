import { Context, Duration, Effect, Fiber, Layer, Schedule } from "effect"
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
      }).pipe(Effect.withSpan("CatalogSync.run"))
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
    ),
    // A defect is logged and the schedule goes on: one bad run must not stop the syncs for good.
    Effect.catchDefect((defect) =>
      Effect.logError("Casino catalog sync failed unexpectedly").pipe(Effect.annotateLogs({ defect: String(defect) }))
    )
  )

/**
 * The schedule: an empty catalog is synced at start-up (retried with backoff
 * until the aggregator answers), then every CASINO_SYNC_INTERVAL.
 */
export const CatalogSyncSchedule = Layer.effectDiscard(Effect.gen(function*() {
  const sync = yield* CatalogSync
  const catalog = yield* CasinoCatalog
  const config = yield* CasinoConfig
  const run = logged(sync.run)

  const initial = Effect.gen(function*() {
    if (!(yield* catalog.isEmpty)) return
    yield* run.pipe(
      Effect.retry({
        schedule: Schedule.min([
          Schedule.exponential("5 seconds"),
          Schedule.spaced(Duration.min(config.syncInterval, Duration.minutes(5)))
        ])
      })
    )
  })
  const periodic = Effect.forever(Effect.andThen(Effect.sleep(config.syncInterval), Effect.ignore(run)))

  // A first sync that answers quickly is waited for, so the catalog is there
  // when the service starts answering; a slow or failing one goes on in the background.
  const firstSync = yield* Effect.forkScoped(initial)
  yield* Effect.raceFirst(
    Effect.ignore(Fiber.await(firstSync)),
    Effect.sleep("10 seconds")
  )
  yield* Effect.forkScoped(Effect.andThen(Fiber.await(firstSync), periodic))
}))
