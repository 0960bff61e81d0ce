import { Duration, Effect, Layer } from "effect"
import { runAcrossFleet } from "../platform/FleetSchedule.ts"
import { Statements } from "./statements/Statements.ts"
import { OperationsConfig, stuckCheckInterval } from "./stuck/OperationsConfig.ts"
import { StuckItems } from "./stuck/StuckItems.ts"

/** How often the fleet looks for days to close: a day's statements are ready within this of its end. */
export const statementsCloseInterval = Duration.minutes(1)

/**
 * The wallet's operations, once per fleet through the job queue: closing the days that ended (their
 * statements) every minute, and the stuck-item check (its alerts) every quarter of WALLET_STUCK_ROUND_AFTER
 * (1 second to 1 minute). Whichever instance is free takes each run; a run that fails is logged and the next
 * one comes as planned.
 */
export const WalletOperations = Layer.effectDiscard(Effect.gen(function*() {
  const statements = yield* Statements
  const stuck = yield* StuckItems
  const config = yield* OperationsConfig
  const logged = (what: string) => <A, E>(run: Effect.Effect<A, E>) =>
    run.pipe(
      Effect.tapError((error) =>
        Effect.logWarning(`${what} failed; the next run tries again`).pipe(
          Effect.annotateLogs({ detail: String(error) })
        )
      )
    )
  yield* runAcrossFleet({
    name: "wallet-operations",
    jobs: [
      {
        task: "wallet-statements:close",
        run: logged("Closing the statements' days")(statements.closeDays),
        interval: statementsCloseInterval
      },
      { task: "wallet-stuck:check", run: logged("The stuck check")(stuck.check), interval: stuckCheckInterval(config) }
    ],
    defectMessage: "A wallet operation failed unexpectedly"
  })
}))
