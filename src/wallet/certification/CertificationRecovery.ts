import { Clock, Duration, Effect, Layer, Option, Schedule } from "effect"
import { answerReading } from "../../domain/Certification.ts"
import { amountText } from "../../domain/CertificationCaseTexts.ts"
import { storedCurrency } from "../../domain/Currency.ts"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { PartnerCallbacks } from "../outbox/PartnerCallbacks.ts"
import { CaseLog, makeCalls, roundOf } from "./CertificationCalls.ts"
import { CertificationRepo, type InterruptedRun } from "./CertificationRepo.ts"

/** How long recovery keeps asking a wallet that cannot answer, before it leaves the run as it is and says so. */
const givesUpAfter = Duration.days(1)

/** The event id of a recovery's refund: one per run, so a refund sent twice (two passes, two instances) moves once. */
export const recoveryEventId = (runId: string) => `evt_${runId}_recovery`

/**
 * Puts back the test player of a run that ended before its last case (a stop, a crash, the service's own error):
 * such a run may have left the free round's win, or a case's stake, with the player. Every instance, at start and
 * every minute, claims such runs one at a time (CertificationRepo.claimInterrupted), asks the test wallet the test
 * player's balance, and sends one refund of the difference from the balance the run started with, under the run's
 * recovery event id; what it did is added to the run's summary. A run that read no starting balance had moved nothing.
 * A wallet that cannot answer is asked again when the claim lapses, for a day.
 */
export const CertificationRecovery = Layer.effectDiscard(Effect.gen(function*() {
  const repo = yield* CertificationRepo
  const callbacks = yield* PartnerCallbacks
  const targets = yield* CallbackTargets
  const players = yield* PartnerPlayers
  const { timeout } = yield* CallbacksConfig

  const recover = Effect.fn("CertificationRecovery.recover")(function*(run: InterruptedRun) {
    if (run.start === null) return yield* repo.recovered(run.id, "Recovered: the run had moved nothing.")
    const start = run.start
    const currency = storedCurrency(run.currency)
    const say = (minor: bigint) => amountText(minor, currency)
    const target = yield* targets.fresh(run.partnerId, "test")
    const player = yield* players.find(run.partnerId, "test", run.externalPlayerId, run.currency)
    if (Option.isNone(target) || Option.isNone(player)) {
      return yield* repo.recovered(run.id, "Not recovered: the partner or its test player is gone.")
    }
    const pass = yield* Clock.currentTimeMillis
    const calls = makeCalls(
      {
        id: run.id,
        target: target.value,
        party: {
          partnerSlug: target.value.partnerSlug,
          externalPlayerId: run.externalPlayerId,
          userCode: player.value.internalUserId,
          currency
        },
        timeoutMillis: Duration.toMillis(timeout)
      },
      callbacks,
      // Each pass asks afresh: a wallet answers a repeated event id as it did the first time.
      (n) => `evt_${run.id}_recovery_${pass}_${n}`
    )
    const log = new CaseLog("conservation")
    const found = yield* calls.balance(log, "recovery: balance of the test player")
    if (found._tag !== "Balance") {
      if (pass - run.startedAt.getTime() < Duration.toMillis(givesUpAfter)) {
        // The claim lapses and another pass asks again.
        return yield* Effect.logWarning("A certification run's test player could not be recovered yet").pipe(
          Effect.annotateLogs({ certification: run.id, reading: answerReading(found, currency) })
        )
      }
      return yield* repo.recovered(
        run.id,
        `Not recovered: for a day the test wallet answered the balance with ${answerReading(found, currency)}; the ` +
          `test player may be off the ${say(start)} the run found.`
      )
    }
    const missing = start - found.balance
    if (missing === 0n) {
      return yield* repo.recovered(run.id, `Recovered: the test player was where the run found it (${say(start)}).`)
    }
    const refund = yield* calls.refundCall(
      log,
      roundOf(run.id, "recovery"),
      missing > 0n ? { bet: missing, win: 0n } : { bet: 0n, win: -missing },
      recoveryEventId(run.id)
    )
    yield* calls.notify(log, refund.label, refund.eventId, refund.body)
    const after = yield* calls.balance(log, "recovery: balance after the refund")
    const end = after._tag === "Balance" ? after.balance : undefined
    yield* repo.recovered(
      run.id,
      `Recovered: the test player was at ${say(found.balance)}, not the ${say(start)} the run found; a refund of ` +
        `${say(missing)} (${refund.eventId}) ${
          end === start
            ? "put it back"
            : `left it at ${end === undefined ? "a balance that could not be read" : say(end)}`
        }.`
    )
  })

  /** Every run there is to recover now, one claim at a time. */
  const recoverAll: Effect.Effect<void> = Effect.flatMap(
    repo.claimInterrupted,
    (claimed) =>
      Option.isNone(claimed) ? Effect.void : Effect.andThen(
        recover(claimed.value).pipe(
          Effect.catchCause((cause) => Effect.logWarning("Recovery of a certification run failed; trying again", cause))
        ),
        Effect.suspend(() => recoverAll)
      )
  )

  yield* recoverAll.pipe(Effect.repeat(Schedule.spaced(Duration.minutes(1))), Effect.forkScoped)
}))
