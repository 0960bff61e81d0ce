import { Duration, Effect, Layer } from "effect"
import { runAcrossFleet } from "../../platform/FleetSchedule.ts"
import { ChangeRecorder } from "./ChangeRecorder.ts"
import { StreamConfig } from "./StreamConfig.ts"

/** How often the log is pruned to STREAM_RETENTION. */
const pruneEvery = Duration.minutes(1)

/**
 * The change stream's own upkeep, each once across the fleet (the job queue
 * on PostgreSQL picks one instance per run): markets no answer has carried
 * for STREAM_STALE_AFTER are suspended, looked for four times per
 * STREAM_STALE_AFTER (within a quarter of it late, at most 15 s); changes
 * older than STREAM_RETENTION are pruned every minute.
 */
export const StreamSchedule = Layer.effectDiscard(Effect.gen(function*() {
  const recorder = yield* ChangeRecorder
  const config = yield* StreamConfig
  const staleEvery = Duration.clamp(Duration.divideUnsafe(config.staleAfter, 4), {
    minimum: Duration.millis(100),
    maximum: Duration.seconds(15)
  })
  // Nothing to fill: the log starts empty and fills with the catalog's refreshes.
  yield* runAcrossFleet({
    name: "sports-stream",
    jobs: [
      { task: "sports-stream:stale", run: recorder.suspendStale, interval: staleEvery },
      { task: "sports-stream:prune", run: recorder.prune, interval: pruneEvery }
    ],
    defectMessage: "Change stream upkeep failed unexpectedly"
  })
}))
