import { Duration, Effect, Layer } from "effect"
import { runsKeptFor } from "../../domain/CertificationRuns.ts"
import { runAcrossFleet } from "../../platform/FleetSchedule.ts"
import { CertificationRepo } from "./CertificationRepo.ts"

/** How often the fleet prunes old runs: a run past its 90 days waits at most this long more. */
export const certificationPruneInterval = Duration.hours(1)

/**
 * Runs older than 90 days are deleted with their cases, once an hour and once per fleet through the job queue (as the
 * wallet's operations are), but for each partner's latest verdict on its own wallet, which its live token's gate reads.
 */
export const CertificationPruning = Layer.effectDiscard(Effect.gen(function*() {
  const repo = yield* CertificationRepo
  yield* runAcrossFleet({
    name: "wallet-certifications",
    jobs: [{
      task: "wallet-certifications:prune",
      run: Effect.tap(
        repo.prune(runsKeptFor),
        (pruned) =>
          pruned === 0 ? Effect.void : Effect.logInfo("Old certification runs pruned").pipe(
            Effect.annotateLogs({ pruned })
          )
      ),
      interval: certificationPruneInterval
    }],
    defectMessage: "Pruning old certification runs failed unexpectedly"
  })
}))
