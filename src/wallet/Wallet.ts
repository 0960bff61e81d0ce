import { Context, Effect, Layer, Option } from "effect"
import { balanceBody, betBody, transactionEventId } from "../domain/Callbacks.ts"
import type { CallbackTarget, PartnerPlayer } from "../domain/Partner.ts"
import { decideRefund, type Round, type WalletTransaction } from "../domain/Wallet.ts"
import {
  accepted,
  type Balance,
  type Credit,
  metricNameOf,
  refused,
  type Rollback,
  type StakeEvent,
  type WalletEvent,
  type WalletOutcome,
  winOf
} from "../domain/WalletEvents.ts"
import {
  betSettlement,
  canBet,
  freeBet,
  newTransaction,
  partyOf,
  refundRecords,
  refusedBet,
  roundWrite,
  transactionOf
} from "../domain/WalletRecords.ts"
import type { DebitRolledBack, Outcome, RoundChanged, TransactionExists } from "../domain/WalletWrites.ts"
import type { Environment } from "../domain/Environment.ts"
import { noCurrency, recordWalletDecision } from "../platform/Metrics.ts"
import { makeDebitEvents } from "./DebitEvents.ts"
import { makeLedgerSteps } from "./LedgerSteps.ts"
import { PartnerAsks, type ShadowBalance } from "./PartnerAsks.ts"
import { PendingBets } from "./PendingBets.ts"

/**
 * The ledger: every aggregator's wallet events (domain/WalletEvents.ts), decided for the partner who keeps the
 * player's money, answered with a protocol-neutral outcome each integration writes in its own words. A stake is
 * written pending before the partner is asked and settled from its answer; everything else on a round (refunds,
 * credits, rollbacks, free wins, bets of refunded rounds) is decided with the round locked. Repeats replay the first
 * outcome; another payload under a used id is refused. Bets left pending by a crash are settled refused, with a
 * rollback (PendingBets). The partner is asked through PartnerAsks, which keeps a shadow player's balances whole.
 */
export class Wallet extends Context.Service<Wallet, {
  /**
   * An event of an aggregator in `environment` (its credentials say which): it reaches only that environment's
   * players; a user code of the other environment is unknown here (INVALID_USER). An event's ids are its
   * aggregator's (`event.aggregator`): two aggregators' equal ids are two transactions, two rounds.
   */
  handle(event: WalletEvent, environment: Environment): Effect.Effect<WalletOutcome>
}>()("partner-api/wallet/Wallet") {
  static readonly layerNoDeps = Layer.effect(
    Wallet,
    Effect.gen(function*() {
      const steps = yield* makeLedgerSteps
      const { asks, now, pendingBets, players, repo, targets } = steps
      const { balanceOf, balanceHolds, record, replay, replayStored, askedBalance, withPlayer } = steps
      const debits = makeDebitEvents(steps)

      /** Runs a decision on a locked round again when the round changed under it (another call created it). */
      const onRound = <A>(
        player: PartnerPlayer,
        event: StakeEvent | Credit | Rollback,
        decide: (round: Option.Option<Round>) => Effect.Effect<A, RoundChanged | TransactionExists | DebitRolledBack>
      ) =>
        repo.withRoundLocked(player.id, event.aggregator, event.roundId, decide).pipe(
          Effect.retry({ while: (error) => error._tag === "RoundChanged", times: 10 })
        )

      /**
       * A stake or a win the partner is not asked about: of a refunded round, of a partner that cannot be called,
       * with no stake (a free win), or of a debit whose rollback came first (`refusal`).
       */
      const decideBet = Effect.fn("Wallet.decideBet")(
        function*(
          event: StakeEvent | Credit,
          player: PartnerPlayer,
          target: Option.Option<CallbackTarget>,
          rolledBackFirst = false
        ) {
          const win = event._tag === "Credit" ? event.win : winOf(event)
          let rolledBack = rolledBackFirst
          for (let tries = 1;; tries++) {
            // A shadow player's balance is asked before the round is locked: no HTTP call while the lock is held.
            const asked = yield* askedBalance(player)
            const decided: Option.Option<WalletOutcome> | "RolledBack" = yield* onRound(
              player,
              event,
              (round) =>
                Effect.gen(function*() {
                  const locked = yield* players.lockBalance(player.id)
                  if (!(yield* balanceHolds(player, asked, tries))) return Option.none()
                  const mirror = locked ?? balanceOf(asked)
                  // Held by the locks already: its write compares what they hold.
                  const held = { playerId: player.id, mirror: locked }
                  const refusal = (outcome: Outcome) =>
                    record(
                      event,
                      player,
                      { outcome, callbacks: [] },
                      roundWrite(round, { refund: false, addWin: 0n }),
                      held
                    )
                  if (Option.isSome(round) && round.value.status === "refunded") {
                    return Option.some(yield* refusal(refusedBet("ROUND_REFUNDED", mirror, locked)))
                  }
                  if (rolledBack) return Option.some(yield* refusal(refusedBet("DEBIT_ROLLED_BACK", mirror, locked)))
                  if (!canBet(target)) return Option.some(yield* refusal(refusedBet("INVALID_USER", 0n, locked)))
                  return Option.some(
                    yield* record(
                      event,
                      player,
                      freeBet({ ...event, win }, player, target.value.partnerSlug, mirror, yield* now, locked === null),
                      roundWrite(round, { refund: false, addWin: win }),
                      held
                    )
                  )
                })
            ).pipe(
              Effect.catchTag(
                ["TransactionExists", "RoundChanged"],
                () => Effect.map(replayStored(event, player), Option.some)
              ),
              // A free stake of a debit whose rollback came first: decided again, refused.
              Effect.catchTag("DebitRolledBack", () => Effect.succeed("RolledBack" as const))
            )
            if (decided === "RolledBack") rolledBack = true
            else if (Option.isSome(decided)) return decided.value
          }
        }
      )

      const askAndSettle = Effect.fn("Wallet.askAndSettle")(
        function*(
          event: StakeEvent,
          player: PartnerPlayer,
          target: CallbackTarget,
          pending: WalletTransaction,
          queued: boolean
        ) {
          const at = yield* now
          const party = partyOf(player, target.partnerSlug)
          const eventId = transactionEventId("bet", event.txnId, event.aggregator)
          const body = betBody(party, transactionOf(event), event.bet, at)
          const answer = yield* asks.ask(player, target, eventId, body, { queued })
          if (answer._tag === "Unavailable") {
            yield* Effect.logWarning("Partner bet callback failed; bet refused and rolled back").pipe(
              Effect.annotateLogs({ partner_id: player.partnerId, txn_id: event.txnId, detail: answer.reason })
            )
          }
          const { callbacks: written, outcome } = betSettlement(player, target.partnerSlug, event, answer, at)
          if (yield* repo.settleBet(pending, outcome, written)) return outcome.answer
          // Settled by someone else meanwhile (it was taken for abandoned): theirs is the answer.
          return yield* replayStored(event, player)
        }
      )

      /** A stake (a debit, or PlayFiver's stake and win in one): asked of the partner, or decided without it. */
      const stake = Effect.fn("Wallet.stake")(function*(event: StakeEvent | Credit, environment: Environment) {
        // Who the user code is never changes (kept in memory); the mirror is read by the step that writes the bet.
        const found = Option.filter(
          yield* players.identityByUserCode(event.userCode),
          (who) => who.environment === environment
        )
        if (Option.isNone(found)) return refused("INVALID_USER", 0n)
        const who = found.value
        const target = yield* targets.get(who.partnerId, who.environment)
        if (event._tag === "Credit" || event.bet === 0n || !canBet(target)) {
          return yield* withPlayer(who, (player) =>
            Effect.gen(function*() {
              const existing = yield* steps.findSeen(event, environment)
              if (Option.isSome(existing)) return yield* replay(existing.value, event, player)
              return yield* decideBet(event, player, target)
            }))
        }
        // Written pending first, so a crash while the partner is asked leaves a trace that recovery settles;
        // from there to the settle it runs to the end even if the aggregator hangs up.
        return yield* Effect.uninterruptibleMask((restore) =>
          repo.openBet(newTransaction(event, who), who).pipe(
            Effect.flatMap((opened) =>
              opened._tag === "Opened"
                ? askAndSettle(event, opened.player, target.value, opened.transaction, opened.queued)
                : restore(withPlayer(who, (player) => decideBet(event, player, target)))
            ),
            Effect.catchTag(
              "TransactionExists",
              () => restore(withPlayer(who, (player) => replayStored(event, player)))
            ),
            // Its rollback came first: refused, and written so (a refused debit is no tombstone's conflict).
            Effect.catchTag(
              "DebitRolledBack",
              () => restore(withPlayer(who, (player) => decideBet(event, player, target, true)))
            )
          )
        )
      })

      /**
       * One try at a refund, with its round locked: done, or wait for a pending bet, or try again (a shadow player's
       * asked, asked just before, is used only if no callback of theirs was written since).
       */
      const refundStep = Effect.fn("Wallet.refundStep")(
        function*(
          event: Rollback,
          player: PartnerPlayer,
          slug: string,
          asked: Option.Option<ShadowBalance>,
          tries: number
        ) {
          return yield* onRound(player, event, (round) =>
            Effect.gen(function*() {
              if (Option.isSome(round) && round.value.pendingBets > 0) {
                // A bet of this round still waits for the partner: wait for it, or settle it if it was abandoned.
                const pending = yield* repo.pendingBetsOf(round.value.ref)
                const stale = pending.filter((bet) => bet.ageMillis >= steps.pendingMillis)
                if (stale.length < pending.length) return { _tag: "Wait" as const, bet: pending[0] }
                yield* Effect.forEach(stale, pendingBets.settleAbandoned, { discard: true })
                return { _tag: "Again" as const }
              }
              const locked = yield* players.lockBalance(player.id)
              if (!(yield* balanceHolds(player, asked, tries))) return { _tag: "BalanceChanged" as const }
              const mirror = locked ?? balanceOf(asked)
              const decision = decideRefund(Option.getOrUndefined(round))
              const decided = refundRecords(event, player, slug, round, decision, mirror, yield* now, locked === null)
              const answer = yield* record(event, player, decided, decided.round, {
                playerId: player.id,
                mirror: locked
              })
              return { _tag: "Done" as const, answer }
            })).pipe(
              Effect.catchTag(
                ["TransactionExists", "RoundChanged"],
                () => Effect.succeed({ _tag: "Existing" as const })
              ),
              // Only a stake meets its tombstone; a refund never does.
              Effect.catchTag("DebitRolledBack", Effect.die)
            )
        }
      )

      /** PlayFiver's refund: the whole round undone, once. */
      const refund = Effect.fn("Wallet.refund")(function*(event: Rollback, environment: Environment) {
        const found = yield* steps.playerOf(event.userCode, environment)
        if (Option.isNone(found)) return refused("INVALID_USER", 0n)
        const player = found.value
        const existing = yield* steps.findSeen(event, environment)
        if (Option.isSome(existing)) return yield* replay(existing.value, event, player)
        const slug = yield* steps.slugOf(player)
        let tries = 1
        while (true) {
          // A shadow player's balance, asked before the round is locked (and before this refund's notification
          // exists), and again after each wait: a bet settled meanwhile may have added a win.
          const step = yield* refundStep(event, player, slug, yield* askedBalance(player), tries)
          switch (step._tag) {
            case "Done":
              return step.answer
            case "Existing":
              return yield* replayStored(event, player)
            case "Wait":
              yield* pendingBets.awaitSettled(step.bet)
              break
            case "Again":
              break
            case "BalanceChanged":
              tries++
              break
          }
        }
      })

      const balance = Effect.fn("Wallet.balance")(function*(event: Balance, environment: Environment) {
        const found = yield* steps.playerOf(event.userCode, environment)
        if (Option.isNone(found)) return refused("INVALID_USER", 0n)
        const player = found.value
        const target = yield* steps.targetOf(player)
        if (Option.isNone(target) || !target.value.active) return refused("INVALID_USER", 0n)
        // A shadow player has no balance here to answer with: only the partner knows it (0 when it cannot say).
        if (target.value.callbackUrl === null) return accepted(player.balance ?? 0n)
        const asked = balanceBody(partyOf(player, target.value.partnerSlug), yield* now)
        const { answer, stillCurrent } = yield* asks.askBalance(player, target.value, asked.eventId, asked.body)
        switch (answer._tag) {
          case "Unavailable":
            // A balance moves no money: the last one the partner confirmed is a fair answer while it is away.
            yield* Effect.logWarning("Partner balance callback failed; answering the last known balance").pipe(
              Effect.annotateLogs({ partner_id: player.partnerId, player_id: player.id, detail: answer.reason })
            )
            return accepted(player.balance ?? 0n)
          case "UnknownPlayer":
            return refused("INVALID_USER", 0n)
          case "InsufficientFunds":
          case "Balance": {
            const confirmed = answer.balance ?? player.balance ?? 0n
            if (player.balance === null || (yield* players.confirmBalance(player.id, confirmed, stillCurrent))) {
              return accepted(confirmed)
            }
            // A decision of the player's was written while the partner was asked: the mirror holds it, the answer
            // may not.
            const latest = yield* players.findById(player.id)
            return accepted(Option.getOrUndefined(latest)?.balance ?? confirmed)
          }
        }
      })

      const decide = (event: WalletEvent, environment: Environment): Effect.Effect<WalletOutcome> => {
        switch (event._tag) {
          case "Balance":
            return balance(event, environment)
          case "Debit":
          case "DebitAndCredit":
            return stake(event, environment)
          case "Credit":
            // A credit naming no debit is a free win on its round, as PlayFiver's WinBet with no stake.
            return event.debitTxnId === null ? stake(event, environment) : debits.credit(event, environment)
          case "Rollback":
            return event.debitTxnId === null ? refund(event, environment) : debits.rollback(event, environment)
        }
      }

      /** The player's currency, as the decision's metric is labelled (a user code's identity is kept in memory). */
      const currencyOf = (event: WalletEvent, environment: Environment) =>
        Effect.map(
          players.identityByUserCode(event.userCode),
          (identity) =>
            Option.match(Option.filter(identity, (player) => player.environment === environment), {
              onNone: () => noCurrency,
              onSome: (player) => player.currency
            })
        )

      const handle = (event: WalletEvent, environment: Environment) =>
        decide(event, environment).pipe(
          Effect.tap((outcome) =>
            Effect.flatMap(
              currencyOf(event, environment),
              (currency) =>
                recordWalletDecision(
                  metricNameOf(event),
                  outcome._tag === "Accepted" ? "" : outcome.refusal,
                  currency
                )
            )
          )
        )

      return Wallet.of({ handle })
    })
  )

  /** With how it asks partners and settles pending bets (both kept in the context: recovery runs on the latter). */
  static readonly layer = this.layerNoDeps.pipe(
    Layer.provideMerge(Layer.mergeAll(PartnerAsks.layer, PendingBets.layer))
  )
}
