import { Clock, Duration, Effect, Layer } from "effect"
import { closingLinesKeptFor } from "../../domain/ClosingLines.ts"
import { runAcrossFleet } from "../../platform/FleetSchedule.ts"
import { ClosingLinesRepo } from "./ClosingLinesRepo.ts"

/** How often the fleet prunes old closing lines: one past its 30 days waits at most this long more. */
export const closingLinesPruneInterval = Duration.days(1)

/** One prune: the lines whose kick-off is more than 30 days past (closingLinesKeptFor) are deleted; how many. */
export const pruneClosingLines = Effect.gen(function*() {
  const repo = yield* ClosingLinesRepo
  const now = yield* Clock.currentTimeMillis
  const pruned = yield* repo.prune(new Date(now - Duration.toMillis(closingLinesKeptFor)))
  if (pruned > 0) yield* Effect.logInfo("Old closing lines pruned").pipe(Effect.annotateLogs({ pruned }))
  return pruned
})

/**
 * Closing lines whose kick-off is more than 30 days past are deleted, once a day and once per fleet through the job
 * queue (as the statistics samples are pruned). No setting: partners read a line for 30 days after its match.
 */
export const ClosingLinesPruning = Layer.effectDiscard(Effect.gen(function*() {
  const repo = yield* ClosingLinesRepo
  yield* runAcrossFleet({
    name: "sports-closing-lines",
    jobs: [{
      task: "sports-closing-lines:prune",
      run: Effect.provideService(pruneClosingLines, ClosingLinesRepo, repo),
      interval: closingLinesPruneInterval
    }],
    defectMessage: "Pruning old closing lines failed unexpectedly"
  })
}))
