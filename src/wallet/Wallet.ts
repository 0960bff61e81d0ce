import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { balanceBody, betBody, transactionEventId } from "../domain/Callbacks.ts"
import type { CallbackTarget, PartnerPlayer, PlayerIdentity } from "../domain/Partner.ts"
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
  roundWrite,
  type TransactionExists,
  transactionOf
} from "../domain/WalletRecords.ts"
import type { Environment } from "../domain/Environment.ts"
import { toAmount } from "../domain/Money.ts"
import { CallbackTargets } from "../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import { recordWalletDecision } from "../platform/Metrics.ts"
import { CallbacksConfig } from "./CallbacksConfig.ts"
import { PartnerAsks, type ShadowFigure } from "./PartnerAsks.ts"
import { PendingBets } from "./PendingBets.ts"
import { WalletRepo } from "./WalletRepo.ts"

/** Times a decision on a shadow player's figure asks it again because another decision of theirs was written meanwhile. */
const figureTries = 3

/**
 * The aggregator's wallet calls, answered for the partner who keeps the
 * player's money. A bet is written pending before the partner is asked and
 * settled from its answer; everything else on a round (refunds, free rounds,
 * bets of refunded rounds) is decided with the round locked. Repeats replay
 * the first answer; another payload under a used id is refused. Bets left
 * pending by a crash are settled refused, with a rollback (PendingBets).
 * The partner is asked through PartnerAsks, which keeps a shadow player's
 * figures whole.
 */
export class Wallet extends Context.Service<Wallet, {
  /**
   * A call of an aggregator in `environment` (its credentials say which): it reaches only that environment's
   * players; a user code of the other environment is unknown here (INVALID_USER). A bet's or a refund's ids are the
   * call's aggregator's (`call.aggregator`): two aggregators' equal ids are two transactions, two rounds.
   */
  handle(call: WalletCall, environment: Environment): Effect.Effect<WalletAnswer>
}>()("partner-api/wallet/Wallet") {
  static readonly layerNoDeps = Layer.effect(
    Wallet,
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const players = yield* PartnerPlayers
      const targets = yield* CallbackTargets
      const asks = yield* PartnerAsks
      const pendingBets = yield* PendingBets
      const config = yield* CallbacksConfig
      const pendingMillis = Duration.toMillis(config.pendingTimeout)
      const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
      /** Where the player's callbacks go: its partner's target in the player's environment. */
      const targetOf = (player: PartnerPlayer) => targets.get(player.partnerId, player.environment)
      const slugOf = (player: PartnerPlayer) =>
        Effect.map(
          targetOf(player),
          Option.match({ onNone: () => `partner-${player.partnerId}`, onSome: (t) => t.partnerSlug })
        )
      /** The player behind a user code, if it is of the calling aggregator's environment. */
      const playerOf = (userCode: number, environment: Environment) =>
        Effect.map(players.findByUserCode(userCode), Option.filter((player) => player.environment === environment))
      /** A shadow player's figure (the partner's, asked now); null for a persisted player, whose mirror is kept. */
      const shadowFigure = (player: PartnerPlayer) =>
        player.balance === null
          ? Effect.map(asks.figure(player), Option.some)
          : Effect.succeed(Option.none<ShadowFigure>())
      /**
       * Whether a decision on the round locked now may use `figure`: no callback of the player was written since it
       * was asked (that decision may not be in it). After `figureTries` asks it is taken as it is, so that a player
       * whose calls never stop is still answered.
       */
      const figureHolds = (player: PartnerPlayer, figure: Option.Option<ShadowFigure>, tries: number) =>
        Option.isNone(figure) || tries >= figureTries ? Effect.succeed(true) : asks.isCurrent(player, figure.value)
      const balanceOf = (figure: Option.Option<ShadowFigure>) => Option.getOrUndefined(figure)?.balance ?? 0

      /** A kept answer as the aggregator hears it again: a shadow player's was kept without its balance, asked anew. */
      const answerAgain = Effect.fn("Wallet.answerAgain")(function*(kept: StoredAnswer, player: PartnerPlayer) {
        if (kept.balance !== undefined) return { msg: kept.msg, balance: kept.balance }
        return { msg: kept.msg, balance: toAmount((yield* asks.figure(player)).balance ?? 0) }
      })

      /** A transaction seen before: the same payload gets its answer (once settled); another payload is refused. */
      const replay = Effect.fn("Wallet.replay")(
        function*(existing: WalletTransaction, call: BetCall | RefundCall, player: PartnerPlayer) {
          if (existing.fingerprint !== null && existing.fingerprint !== fingerprint(call)) {
            yield* Effect.logWarning("Wallet call refused: its transaction id was used before with another payload")
              .pipe(
                Effect.annotateLogs({ kind: existing.kind, txn_id: existing.txnId, user_code: call.userCode })
              )
            return refused("DUPLICATE_TRANSACTION", player.balance ?? (yield* asks.figure(player)).balance ?? 0)
          }
          const settled = existing.status === "pending" ? yield* pendingBets.awaitSettled(existing) : existing
          return yield* answerAgain(settled.answer!, player)
        }
      )

      const replayStored = Effect.fn("Wallet.replayStored")(
        function*(call: BetCall | RefundCall, player: PartnerPlayer) {
          const found = yield* repo.findTransaction(
            player.environment,
            call.aggregator,
            call.type === "WinBet" ? "bet" : "refund",
            call.txnId
          )
          return yield* replay(Option.getOrThrow(found), call, player)
        }
      )

      /** Runs a decision on a locked round again when the round changed under it (another call created it). */
      const onRound = <A>(
        player: PartnerPlayer,
        call: BetCall | RefundCall,
        decide: (round: Option.Option<Round>) => Effect.Effect<A, RoundChanged | TransactionExists>
      ) =>
        repo.withRoundLocked(player.id, call.aggregator, call.roundId, decide).pipe(
          Effect.retry({ while: (error) => error._tag === "RoundChanged", times: 10 })
        )

      /** Writes a transaction decided without a pending step, with its round and callbacks; its answer. */
      const record = (call: BetCall | RefundCall, player: PartnerPlayer, decided: Decided, write: RoundWrite) =>
        Effect.as(
          repo.recordDecided(newTransaction(call, player), decided.outcome, write, decided.callbacks),
          decided.outcome.answer
        )

      /** A bet the partner is not asked about: of a refunded round, of a partner that cannot be called, or with no stake. */
      const decideBet = Effect.fn("Wallet.decideBet")(
        function*(call: BetCall, player: PartnerPlayer, target: Option.Option<CallbackTarget>) {
          for (let tries = 1;; tries++) {
            // A shadow player's figure is asked before the round is locked: no HTTP call while the lock is held.
            const figure = yield* shadowFigure(player)
            const decided = yield* onRound(player, call, (round) =>
              Effect.gen(function*() {
                const locked = yield* players.lockBalance(player.id)
                if (!(yield* figureHolds(player, figure, tries))) return Option.none()
                const mirror = locked ?? balanceOf(figure)
                const refusal = (outcome: Outcome) =>
                  record(call, player, { outcome, callbacks: [] }, roundWrite(round, { refund: false, addWin: 0 }))
                if (Option.isSome(round) && round.value.status === "refunded") {
                  return Option.some(yield* refusal(refusedBet("ROUND_REFUNDED", mirror, locked)))
                }
                if (!canBet(target)) return Option.some(yield* refusal(refusedBet("INVALID_USER", 0, locked)))
                return Option.some(
                  yield* record(
                    call,
                    player,
                    freeBet(call, player, target.value.partnerSlug, mirror, yield* now, locked === null),
                    roundWrite(round, { refund: false, addWin: call.win })
                  )
                )
              })).pipe(
                Effect.catchTag(
                  ["TransactionExists", "RoundChanged"],
                  () => Effect.map(replayStored(call, player), Option.some)
                )
              )
            if (Option.isSome(decided)) return decided.value
          }
        }
      )

      const askAndSettle = Effect.fn("Wallet.askAndSettle")(
        function*(call: BetCall, player: PartnerPlayer, target: CallbackTarget, pending: WalletTransaction) {
          const at = yield* now
          const party = partyOf(player, target.partnerSlug)
          const eventId = transactionEventId("bet", call.txnId, call.aggregator)
          const answer = yield* asks.ask(player, target, eventId, betBody(party, transactionOf(call), call.bet, at))
          if (answer._tag === "Unavailable") {
            yield* Effect.logWarning("Partner bet callback failed; bet refused and rolled back").pipe(
              Effect.annotateLogs({ partner_id: player.partnerId, txn_id: call.txnId, detail: answer.reason })
            )
          }
          const { callbacks: written, outcome } = betSettlement(player, target.partnerSlug, call, answer, at)
          if (yield* repo.settleBet(pending, outcome, written)) return outcome.answer
          // Settled by someone else meanwhile (it was taken for abandoned): theirs is the answer.
          return yield* replayStored(call, player)
        }
      )

      /** The player as it is now, for the paths that decide without a pending step; INVALID_USER when it is gone. */
      const withPlayer = (who: PlayerIdentity, decide: (player: PartnerPlayer) => Effect.Effect<WalletAnswer>) =>
        Effect.flatMap(
          players.findById(who.id),
          (player): Effect.Effect<WalletAnswer> =>
            Option.isNone(player) ? Effect.succeed(refused("INVALID_USER", 0)) : decide(player.value)
        )

      const winBet = Effect.fn("Wallet.winBet")(function*(call: BetCall, environment: Environment) {
        // Who the user code is never changes (kept in memory); the mirror is read by the step that writes the bet.
        const found = Option.filter(
          yield* players.identityByUserCode(call.userCode),
          (who) => who.environment === environment
        )
        if (Option.isNone(found)) return refused("INVALID_USER", 0)
        const who = found.value
        const target = yield* targets.get(who.partnerId, who.environment)
        if (call.bet === 0 || !canBet(target)) {
          return yield* withPlayer(who, (player) =>
            Effect.gen(function*() {
              const existing = yield* repo.findTransaction(environment, call.aggregator, "bet", call.txnId)
              if (Option.isSome(existing)) return yield* replay(existing.value, call, player)
              return yield* decideBet(call, player, target)
            }))
        }
        // Written pending first, so a crash while the partner is asked leaves a trace that recovery settles;
        // from there to the settle it runs to the end even if the aggregator hangs up.
        return yield* Effect.uninterruptibleMask((restore) =>
          repo.openBet(newTransaction(call, who), who).pipe(
            Effect.flatMap((opened) =>
              opened._tag === "Opened"
                ? askAndSettle(call, opened.player, target.value, opened.transaction)
                : restore(withPlayer(who, (player) => decideBet(call, player, target)))
            ),
            Effect.catchTag("TransactionExists", () => restore(withPlayer(who, (player) => replayStored(call, player))))
          )
        )
      })

      /**
       * One try at a refund, with its round locked: done, or wait for a pending bet, or try again (a shadow player's
       * figure, asked just before, is used only if no callback of theirs was written since).
       */
      const refundStep = Effect.fn("Wallet.refundStep")(
        function*(
          call: RefundCall,
          player: PartnerPlayer,
          slug: string,
          figure: Option.Option<ShadowFigure>,
          tries: number
        ) {
          return yield* onRound(player, call, (round) =>
            Effect.gen(function*() {
              if (Option.isSome(round) && round.value.pendingBets > 0) {
                // A bet of this round still waits for the partner: wait for it, or settle it if it was abandoned.
                const pending = yield* repo.pendingBetsOf(round.value.ref)
                const stale = pending.filter((bet) => bet.ageMillis >= pendingMillis)
                if (stale.length < pending.length) return { _tag: "Wait" as const, bet: pending[0] }
                yield* Effect.forEach(stale, pendingBets.settleAbandoned, { discard: true })
                return { _tag: "Again" as const }
              }
              const locked = yield* players.lockBalance(player.id)
              if (!(yield* figureHolds(player, figure, tries))) return { _tag: "FigureChanged" as const }
              const mirror = locked ?? balanceOf(figure)
              const decision = decideRefund(Option.getOrUndefined(round))
              const decided = refundRecords(call, player, slug, round, decision, mirror, yield* now, locked === null)
              const answer = yield* record(call, player, decided, decided.round)
              return { _tag: "Done" as const, answer }
            })).pipe(
              Effect.catchTag(
                ["TransactionExists", "RoundChanged"],
                () => Effect.succeed({ _tag: "Existing" as const })
              )
            )
        }
      )

      const refund = Effect.fn("Wallet.refund")(function*(call: RefundCall, environment: Environment) {
        const found = yield* playerOf(call.userCode, environment)
        if (Option.isNone(found)) return refused("INVALID_USER", 0)
        const player = found.value
        const existing = yield* repo.findTransaction(environment, call.aggregator, "refund", call.txnId)
        if (Option.isSome(existing)) return yield* replay(existing.value, call, player)
        const slug = yield* slugOf(player)
        let tries = 1
        while (true) {
          // A shadow player's figure, asked before the round is locked (and before this refund's notification
          // exists), and again after each wait: a bet settled meanwhile may have added a win.
          const step = yield* refundStep(call, player, slug, yield* shadowFigure(player), tries)
          switch (step._tag) {
            case "Done":
              return step.answer
            case "Existing":
              return yield* replayStored(call, player)
            case "Wait":
              yield* pendingBets.awaitSettled(step.bet)
              break
            case "Again":
              break
            case "FigureChanged":
              tries++
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
        const answer = yield* asks.ask(player, target.value, asked.eventId, asked.body)
        switch (answer._tag) {
          case "Unavailable":
            // A balance moves no money: the last one the partner confirmed is a fair answer while it is away.
            yield* Effect.logWarning("Partner balance callback failed; answering the last known balance").pipe(
              Effect.annotateLogs({ partner_id: player.partnerId, player_id: player.id, detail: answer.reason })
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

      const handle = (call: WalletCall, environment: Environment) =>
        (call.type === "Balance"
          ? balance(call, environment)
          : call.type === "WinBet"
          ? winBet(call, environment)
          : refund(call, environment)).pipe(
            Effect.tap((answer) => recordWalletDecision(call.type, answer.msg))
          )

      return Wallet.of({ handle })
    })
  )

  /** With how it asks partners and settles pending bets (both kept in the context: recovery runs on the latter). */
  static readonly layer = this.layerNoDeps.pipe(
    Layer.provideMerge(Layer.mergeAll(PartnerAsks.layer, PendingBets.layer))
  )
}
