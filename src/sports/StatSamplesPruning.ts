import { Clock, Duration, Effect, Layer } from "effect"
import { samplesKeptFor } from "../domain/StatSamples.ts"
import { runAcrossFleet } from "../platform/FleetSchedule.ts"
import { StatSamplesRepo } from "./StatSamplesRepo.ts"

/** How often the fleet prunes old samples: one past its 30 days waits at most this long more. */
export const statSamplesPruneInterval = Duration.days(1)

/**
 * Statistics samples older than 30 days are deleted, once a day and once per fleet through the job queue (as the
 * certification runs are pruned). No setting: the samples serve the stats trend of recent matches only.
 */
export const StatSamplesPruning = Layer.effectDiscard(Effect.gen(function*() {
  const repo = yield* StatSamplesRepo
  yield* runAcrossFleet({
    name: "sports-stat-samples",
    jobs: [{
      task: "sports-stat-samples:prune",
      run: Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => repo.prune(new Date(now - Duration.toMillis(samplesKeptFor)))),
        Effect.tap((pruned) =>
          pruned === 0 ? Effect.void : Effect.logInfo("Old statistics samples pruned").pipe(
            Effect.annotateLogs({ pruned })
          )
        )
      ),
      interval: statSamplesPruneInterval
    }],
    defectMessage: "Pruning old statistics samples failed unexpectedly"
  })
}))
