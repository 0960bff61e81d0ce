import { Clock, Context, Duration, Effect, Layer, Option, Schedule } from "effect"
import type { WalletTransaction } from "../domain/Wallet.ts"
import { betOf, betSettlement } from "../domain/WalletRecords.ts"
import { CallbackTargets } from "../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import { CallbacksConfig } from "./CallbacksConfig.ts"
import { WalletRepo } from "./WalletRepo.ts"

/** How often a call waiting on a pending bet looks again: quickly at first, then every 200 ms. */
const pollSchedule = Schedule.min([Schedule.exponential("10 millis"), Schedule.spaced("200 millis")])

const unanswered = "No answer was recorded: the call to the partner was cut off (its instance stopped or hung)."

/**
 * Bets written pending while their partner is asked: waiting for one to be
 * settled, and settling those whose instance crashed or hung (pending past
 * WALLET_PENDING_TIMEOUT) as refused, with a rollback notification in case
 * the partner took the stake. A bet is settled once, by whoever gets there
 * first (the repository's settle is conditional on the bet still pending).
 */
export class PendingBets extends Context.Service<PendingBets, {
  /** Waits (bounded by WALLET_PENDING_TIMEOUT) until a pending bet is settled, settling it if it went stale. */
  awaitSettled(pending: WalletTransaction): Effect.Effect<WalletTransaction>
  /** Settles one bet left pending past the time-out; false when it was settled otherwise first. */
  settleAbandoned(pending: WalletTransaction): Effect.Effect<boolean>
  /** Settles the bets pending past WALLET_PENDING_TIMEOUT; how many it settled. */
  readonly recover: Effect.Effect<number>
}>()("partner-api/wallet/PendingBets") {
  static readonly layer = Layer.effect(
    PendingBets,
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const players = yield* PartnerPlayers
      const targets = yield* CallbackTargets
      const config = yield* CallbacksConfig
      const pendingMillis = Duration.toMillis(config.pendingTimeout)

      const settleAbandoned = Effect.fn("PendingBets.settleAbandoned")(function*(pending: WalletTransaction) {
        const player = Option.getOrThrow(yield* players.findById(pending.playerId))
        const target = yield* targets.get(player.partnerId, player.environment)
        const slug = Option.match(target, {
          onNone: () => `partner-${player.partnerId}`,
          onSome: (t) => t.partnerSlug
        })
        const at = new Date(yield* Clock.currentTimeMillis)
        const { callbacks, outcome } = betSettlement(player, slug, betOf(pending), {
          _tag: "Unavailable",
          reason: unanswered
        }, at)
        const settled = yield* repo.settleBet(pending, { ...outcome, note: "recovered" }, callbacks, {
          olderThan: config.pendingTimeout
        })
        if (settled) {
          yield* Effect.logWarning("A bet left pending was settled as refused, with a rollback").pipe(
            Effect.annotateLogs({
              txn_id: pending.txnId,
              partner_id: pending.partnerId,
              pending_ms: Math.round(pending.ageMillis)
            })
          )
        }
        return settled
      })

      const reread = (t: WalletTransaction) =>
        Effect.map(repo.findTransaction(t.environment, t.aggregator, t.kind, t.txnId), Option.getOrThrow)

      const awaitSettled = (pending: WalletTransaction): Effect.Effect<WalletTransaction> =>
        reread(pending).pipe(
          Effect.filterOrFail((t) => t.status !== "pending" || t.ageMillis >= pendingMillis, () => "pending"),
          Effect.retry({ schedule: pollSchedule }),
          Effect.orDie,
          Effect.flatMap((t) =>
            t.status !== "pending" ? Effect.succeed(t) : Effect.andThen(settleAbandoned(t), reread(t))
          ),
          Effect.withSpan("PendingBets.awaitSettled")
        )

      const recover = repo.stalePendingBets(config.pendingTimeout, 100).pipe(
        Effect.flatMap((stale) => Effect.forEach(stale, settleAbandoned)),
        Effect.map((settled) => settled.filter(Boolean).length),
        Effect.withSpan("PendingBets.recover")
      )

      return PendingBets.of({ awaitSettled, settleAbandoned, recover })
    })
  )
}
