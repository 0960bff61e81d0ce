import { Clock, Context, Duration, Effect, Layer, Option, Schedule } from "effect"
import { balanceBody, betBody, transactionEventId } from "../domain/Callbacks.ts"
import type { CallbackTarget, PartnerPlayer } from "../domain/Partner.ts"
import {
  accepted,
  type BalanceCall,
  type BetCall,
  decideRefund,
  fingerprint,
  type RefundCall,
  refused,
  type Round,
  type StoredAnswer,
  type WalletAnswer,
  type WalletCall,
  type WalletTransaction
} from "../domain/Wallet.ts"
import {
  betOf,
  betSettlement,
  canBet,
  type Decided,
  freeBet,
  newTransaction,
  type Outcome,
  partyOf,
  refundRecords,
  refusedBet,
  type RoundChanged,
  type RoundWrite,
  type TransactionExists,
  roundWrite,
  transactionOf
} from "../domain/WalletRecords.ts"
import type { Environment } from "../domain/Environment.ts"
import { type Cents, toAmount } from "../domain/Money.ts"
import { CallbackTargets } from "../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import { recordWalletDecision } from "../platform/Metrics.ts"
import { CallbacksConfig } from "./CallbacksConfig.ts"
import { PartnerCallbacks } from "./outbox/PartnerCallbacks.ts"
import { WalletRepo } from "./WalletRepo.ts"

/** How often a call waiting on a pending bet looks again: quickly at first, then every 200 ms. */
const pollSchedule = Schedule.min([Schedule.exponential("10 millis"), Schedule.spaced("200 millis")])

const unanswered = "No answer was recorded: the call to the partner was cut off (its instance stopped or hung)."

/**
 * The aggregator's wallet calls, answered for the partner who keeps the
 * player's money. A bet is written pending before the partner is asked and
 * settled from its answer; everything else on a round (refunds, free rounds,
 * bets of refunded rounds) is decided with the round locked. Repeats replay
 * the first answer; another payload under a used id is refused. Bets left
 * pending by a crash are settled refused, with a rollback, by `recover`.
 */
export class Wallet extends Context.Service<Wallet, {
  /**
   * A call of the aggregator of `environment` (its credentials say which): it reaches only that environment's
   * players; a user code of the other environment is unknown here (INVALID_USER).
   */
  handle(call: WalletCall, environment: Environment): Effect.Effect<WalletAnswer>
  /** Settles the bets pending past WALLET_PENDING_TIMEOUT as refused, with a rollback; how many it settled. */
  readonly recover: Effect.Effect<number>
}>()("partner-api/wallet/Wallet") {
  static readonly layerNoDeps = Layer.effect(
    Wallet,
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const players = yield* PartnerPlayers
      const targets = yield* CallbackTargets
      const callbacks = yield* PartnerCallbacks
      const config = yield* CallbacksConfig
      const pendingMillis = Duration.toMillis(config.pendingTimeout)
      const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
      /** Where the player's callbacks go: its partner's target in the player's environment. */
      const targetOf = (player: PartnerPlayer) => targets.get(player.partner_id, player.environment)
      const slugOf = (player: PartnerPlayer) =>
        Effect.map(targetOf(player), Option.match({ onNone: () => `partner-${player.partner_id}`, onSome: (t) => t.partnerSlug }))
      /** The player behind a user code, if it is of the calling aggregator's environment. */
      const playerOf = (userCode: number, environment: Environment) =>
        Effect.map(players.findByUserCode(userCode), Option.filter((player) => player.environment === environment))

      /**
       * A shadow player's balance as the partner says it now: the service keeps none of theirs. Null when the
       * partner cannot be asked or says nothing usable; the answer then carries 0, as for a player it refuses.
       */
      const partnerFigure = Effect.fn("Wallet.partnerFigure")(function*(player: PartnerPlayer) {
        const target = yield* targetOf(player)
        if (!canBet(target)) return null
        const asked = balanceBody(partyOf(player, target.value.partnerSlug), yield* now)
        const answer = yield* callbacks.ask(target.value, asked.eventId, asked.body)
        return answer._tag === "Balance" || answer._tag === "InsufficientFunds" ? answer.balance : null
      })

      /** A kept answer as the aggregator hears it again: a shadow player's was kept without its balance, asked anew. */
      const answerAgain = Effect.fn("Wallet.answerAgain")(function*(kept: StoredAnswer, player: PartnerPlayer) {
        if (kept.balance !== undefined) return { msg: kept.msg, balance: kept.balance }
        return { msg: kept.msg, balance: toAmount((yield* partnerFigure(player)) ?? 0) }
      })

      /** Settles one bet left pending past the time-out: refused, and a rollback in case the partner took it. */
      const recoverBet = Effect.fn("Wallet.recoverBet")(function*(pending: WalletTransaction) {
        const player = Option.getOrThrow(yield* players.findById(pending.playerId))
        const slug = yield* slugOf(player)
        const { callbacks: written, outcome } = betSettlement(player, slug, betOf(pending), {
          _tag: "Unavailable",
          reason: unanswered
        }, yield* now)
        const settled = yield* repo.settleBet(pending, { ...outcome, note: "recovered" }, written, {
          olderThan: config.pendingTimeout
        })
        if (settled) {
          yield* Effect.logWarning("A bet left pending was settled as refused, with a rollback").pipe(
            Effect.annotateLogs({ txn_id: pending.txnId, partner_id: pending.partnerId, pending_ms: Math.round(pending.ageMillis) })
          )
        }
        return settled
      })

      /** Waits (bounded by WALLET_PENDING_TIMEOUT) until a pending transaction is settled, settling it if it went stale. */
      const awaitSettled = (pending: WalletTransaction): Effect.Effect<WalletTransaction> =>
        repo.findTransaction(pending.environment, pending.kind, pending.txnId).pipe(
          Effect.map(Option.getOrThrow),
          Effect.filterOrFail((t) => t.status !== "pending" || t.ageMillis >= pendingMillis, () => "pending"),
          Effect.retry({ schedule: pollSchedule }),
          Effect.orDie,
          Effect.flatMap((t) =>
            t.status !== "pending"
              ? Effect.succeed(t)
              : recoverBet(t).pipe(Effect.andThen(repo.findTransaction(t.environment, t.kind, t.txnId)), Effect.map(Option.getOrThrow))
          ),
          Effect.withSpan("Wallet.awaitSettled")
        )

      /** A transaction seen before: the same payload gets its answer (once settled); another payload is refused. */
      const replay = Effect.fn("Wallet.replay")(
        function*(existing: WalletTransaction, call: BetCall | RefundCall, player: PartnerPlayer) {
          if (existing.fingerprint !== null && existing.fingerprint !== fingerprint(call)) {
            yield* Effect.logWarning("Wallet call refused: its transaction id was used before with another payload").pipe(
              Effect.annotateLogs({ kind: existing.kind, txn_id: existing.txnId, user_code: call.userCode })
            )
            return refused("DUPLICATE_TRANSACTION", player.balance ?? (yield* partnerFigure(player)) ?? 0)
          }
          const settled = existing.status === "pending" ? yield* awaitSettled(existing) : existing
          return yield* answerAgain(settled.answer!, player)
        }
      )

      const replayStored = Effect.fn("Wallet.replayStored")(function*(call: BetCall | RefundCall, player: PartnerPlayer) {
        const found = yield* repo.findTransaction(player.environment, call.type === "WinBet" ? "bet" : "refund", call.txnId)
        return yield* replay(Option.getOrThrow(found), call, player)
      })

      /** Runs a decision on a locked round again when the round changed under it (another call created it). */
      const onRound = <A>(
        player: PartnerPlayer,
        roundId: string,
        decide: (round: Option.Option<Round>) => Effect.Effect<A, RoundChanged | TransactionExists>
      ) =>
        repo.withRoundLocked(player.id, roundId, decide).pipe(
          Effect.retry({ while: (error) => error._tag === "RoundChanged", times: 10 })
        )

      /** Writes a transaction decided without a pending step, with its round and callbacks; its answer. */
      const record = (call: BetCall | RefundCall, player: PartnerPlayer, decided: Decided, write: RoundWrite) =>
        Effect.as(repo.recordDecided(newTransaction(call, player), decided.outcome, write, decided.callbacks), decided.outcome.answer)

      /** A bet the partner is not asked about: of a refunded round, of a partner that cannot be called, or with no stake. */
      const decideBet = Effect.fn("Wallet.decideBet")(
        function*(call: BetCall, player: PartnerPlayer, target: Option.Option<CallbackTarget>) {
          // A shadow player's figure is asked before the round is locked: no HTTP call while the lock is held.
          const figure = player.balance === null ? yield* partnerFigure(player) : null
          return yield* onRound(player, call.roundId, (round) =>
            Effect.gen(function*() {
              const locked = yield* players.lockBalance(player.id)
              const shadow = locked === null
              const mirror = locked ?? figure ?? 0
              const refusal = (outcome: Outcome) =>
                record(call, player, { outcome, callbacks: [] }, roundWrite(round, { refund: false, addWin: 0 }))
              if (Option.isSome(round) && round.value.status === "refunded") {
                return yield* refusal(refusedBet("ROUND_REFUNDED", mirror, locked))
              }
              if (!canBet(target)) return yield* refusal(refusedBet("INVALID_USER", 0, locked))
              return yield* record(
                call,
                player,
                freeBet(call, player, target.value.partnerSlug, mirror, yield* now, shadow),
                roundWrite(round, { refund: false, addWin: call.win })
              )
            })
          ).pipe(Effect.catchTag(["TransactionExists", "RoundChanged"], () => replayStored(call, player)))
        }
      )

      const askAndSettle = Effect.fn("Wallet.askAndSettle")(
        function*(call: BetCall, player: PartnerPlayer, target: CallbackTarget, pending: WalletTransaction) {
          const at = yield* now
          const party = partyOf(player, target.partnerSlug)
          const answer = yield* callbacks.ask(target, transactionEventId("bet", call.txnId), betBody(party, transactionOf(call), call.bet, at))
          if (answer._tag === "Unavailable") {
            yield* Effect.logWarning("Partner bet callback failed; bet refused and rolled back").pipe(
              Effect.annotateLogs({ partner_id: player.partner_id, txn_id: call.txnId, detail: answer.reason })
            )
          }
          const { callbacks: written, outcome } = betSettlement(player, target.partnerSlug, call, answer, at)
          if (yield* repo.settleBet(pending, outcome, written)) return outcome.answer
          // Settled by someone else meanwhile (it was taken for abandoned): theirs is the answer.
          return yield* replayStored(call, player)
        }
      )

      const winBet = Effect.fn("Wallet.winBet")(function*(call: BetCall, environment: Environment) {
        const found = yield* playerOf(call.userCode, environment)
        if (Option.isNone(found)) return refused("INVALID_USER", 0)
        const player = found.value
        const target = yield* targetOf(player)
        if (call.bet === 0 || !canBet(target)) {
          const existing = yield* repo.findTransaction(environment, "bet", call.txnId)
          if (Option.isSome(existing)) return yield* replay(existing.value, call, player)
          return yield* decideBet(call, player, target)
        }
        // Written pending first, so a crash while the partner is asked leaves a trace that recovery settles;
        // from there to the settle it runs to the end even if the aggregator hangs up.
        return yield* Effect.uninterruptibleMask((restore) =>
          repo.openBet(newTransaction(call, player)).pipe(
            Effect.flatMap((opened) =>
              opened._tag === "Opened"
                ? askAndSettle(call, player, target.value, opened.transaction)
                : restore(decideBet(call, player, target))
            ),
            Effect.catchTag("TransactionExists", () => restore(replayStored(call, player)))
          )
        )
      })

      /** One try at a refund, with its round locked: done, or wait for a pending bet, or try again. */
      const refundStep = Effect.fn("Wallet.refundStep")(
        function*(call: RefundCall, player: PartnerPlayer, slug: string, figure: Cents | null) {
        return yield* onRound(player, call.roundId, (round) =>
          Effect.gen(function*() {
            if (Option.isSome(round) && round.value.pendingBets > 0) {
              // A bet of this round still waits for the partner: wait for it, or settle it if it was abandoned.
              const pending = yield* repo.pendingBetsOf(round.value.ref)
              const stale = pending.filter((bet) => bet.ageMillis >= pendingMillis)
              if (stale.length < pending.length) return { _tag: "Wait" as const, bet: pending[0] }
              yield* Effect.forEach(stale, recoverBet, { discard: true })
              return { _tag: "Again" as const }
            }
            const locked = yield* players.lockBalance(player.id)
            const mirror = locked ?? figure ?? 0
            const decision = decideRefund(Option.getOrUndefined(round))
            const decided = refundRecords(call, player, slug, round, decision, mirror, yield* now, locked === null)
            const answer = yield* record(call, player, decided, decided.round)
            return { _tag: "Done" as const, answer }
          })
        ).pipe(Effect.catchTag(["TransactionExists", "RoundChanged"], () => Effect.succeed({ _tag: "Existing" as const })))
      })

      const refund = Effect.fn("Wallet.refund")(function*(call: RefundCall, environment: Environment) {
        const found = yield* playerOf(call.userCode, environment)
        if (Option.isNone(found)) return refused("INVALID_USER", 0)
        const player = found.value
        const existing = yield* repo.findTransaction(environment, "refund", call.txnId)
        if (Option.isSome(existing)) return yield* replay(existing.value, call, player)
        const slug = yield* slugOf(player)
        // A shadow player's figure, asked before the round is locked (and before this refund's notification exists).
        const figure = player.balance === null ? yield* partnerFigure(player) : null
        while (true) {
          const step = yield* refundStep(call, player, slug, figure)
          switch (step._tag) {
            case "Done":
              return step.answer
            case "Existing":
              return yield* replayStored(call, player)
            case "Wait":
              yield* awaitSettled(step.bet)
              break
            case "Again":
              break
          }
        }
      })

      const balance = Effect.fn("Wallet.balance")(function*(call: BalanceCall, environment: Environment) {
        const found = yield* playerOf(call.userCode, environment)
        if (Option.isNone(found)) return refused("INVALID_USER", 0)
        const player = found.value
        const target = yield* targetOf(player)
        if (Option.isNone(target) || !target.value.active) return refused("INVALID_USER", 0)
        // A shadow player has no balance here to answer with: only the partner knows it (0 when it cannot say).
        if (target.value.callbackUrl === null) return accepted(player.balance ?? 0)
        const asked = balanceBody(partyOf(player, target.value.partnerSlug), yield* now)
        const answer = yield* callbacks.ask(target.value, asked.eventId, asked.body)
        switch (answer._tag) {
          case "Unavailable":
            // A balance moves no money: the last one the partner confirmed is a fair answer while it is away.
            yield* Effect.logWarning("Partner balance callback failed; answering the last known balance").pipe(
              Effect.annotateLogs({ partner_id: player.partner_id, player_id: player.id, detail: answer.reason })
            )
            return accepted(player.balance ?? 0)
          case "UnknownPlayer":
            return refused("INVALID_USER", 0)
          case "InsufficientFunds":
          case "Balance": {
            const confirmed = answer.balance ?? player.balance ?? 0
            yield* players.confirmBalance(player.id, confirmed)
            return accepted(confirmed)
          }
        }
      })

      const recover = repo.stalePendingBets(config.pendingTimeout, 100).pipe(
        Effect.flatMap((stale) => Effect.forEach(stale, recoverBet)),
        Effect.map((settled) => settled.filter(Boolean).length),
        Effect.withSpan("Wallet.recover")
      )

      const handle = (call: WalletCall, environment: Environment) =>
        (call.type === "Balance"
          ? balance(call, environment)
          : call.type === "WinBet"
          ? winBet(call, environment)
          : refund(call, environment)).pipe(
          Effect.tap((answer) => recordWalletDecision(call.type, answer.msg))
        )

      return Wallet.of({ handle, recover })
    })
  )
}
