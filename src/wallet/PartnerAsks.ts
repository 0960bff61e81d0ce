import { storedCurrency } from "../domain/Currency.ts"
import { Clock, Context, Effect, Layer } from "effect"
import { balanceBody } from "../domain/Callbacks.ts"
import type { Minor } from "../domain/Money.ts"
import type { CallbackTarget, PartnerPlayer } from "../domain/Partner.ts"
import { type PartnerAnswer, withCredits } from "../domain/Wallet.ts"
import { canBet, partyOf } from "../domain/WalletRecords.ts"
import { CallbackTargets } from "../partners/CallbackTargets.ts"
import { CallbackOutbox } from "./outbox/CallbackOutbox.ts"
import { PartnerCallbacks } from "./outbox/PartnerCallbacks.ts"
import { WalletRepo } from "./WalletRepo.ts"

/**
 * A shadow player's balance as the partner holds it (null when it cannot say), and how many callbacks of that
 * player had been written when it was asked: a decision taken on it checks that none was written since.
 */
export interface ShadowBalance {
  readonly balance: Minor | null
  readonly callbacks: number
}

/** Times a balance is asked again because a callback of the player's was written while it was asked. */
const balanceTries = 3

/**
 * What the wallet asks a partner about one of its players: to take a stake, or its balance. Either way the partner's
 * answer must take in every decision already made, since it is what the aggregator is told and (for a persisted
 * player) what the mirror becomes: the player's delivery queue of notifications (wins, refunds, rollbacks) is
 * delivered first, in the call's own time; what could not be delivered is added when it is a credit (what the partner
 * holds once it arrives); a partner that could not be reached a moment ago is not waited for again. A shadow
 * player's balance is asked again when another callback of theirs was written while it was asked (that decision may
 * or may not be in it); a persisted player's `Balance` answer then does not replace the mirror. Before, a persisted
 * player's partner was asked at once, and an answer lacking a rollback still on its way became the mirror and the
 * aggregator's balance.
 */
export class PartnerAsks extends Context.Service<PartnerAsks, {
  /**
   * Asks the partner (a `bet` or a `balance` callback) about `player`. `queued: false` says that the statement that
   * wrote the bet found no undelivered notification of the player's: a persisted player's delivery queue is then not
   * looked up again (a shadow player's always is, its answer being the balance the aggregator is told).
   */
  ask(
    player: PartnerPlayer,
    target: CallbackTarget,
    eventId: string,
    body: string,
    options?: { readonly queued?: boolean }
  ): Effect.Effect<PartnerAnswer>
  /**
   * Asks the partner for `player`'s balance (a `balance` callback) after their delivery queue, whatever the player's
   * mode: the answer takes in every notification already decided. `stillCurrent` tells, when run, whether no callback
   * of the player's was written since it was asked: only then may the answer replace the ledger's mirror.
   */
  askBalance(
    player: PartnerPlayer,
    target: CallbackTarget,
    eventId: string,
    body: string
  ): Effect.Effect<{ readonly answer: PartnerAnswer; readonly stillCurrent: Effect.Effect<boolean> }>
  /** A shadow player's balance as its partner holds it now. */
  shadowBalance(player: PartnerPlayer): Effect.Effect<ShadowBalance>
  /** Whether no callback of the player was written since the balance `asked` was asked (inside a decision's transaction). */
  isCurrent(player: PartnerPlayer, asked: ShadowBalance): Effect.Effect<boolean>
}>()("partner-api/wallet/PartnerAsks") {
  static readonly layer = Layer.effect(
    PartnerAsks,
    Effect.gen(function*() {
      const callbacks = yield* PartnerCallbacks
      const outbox = yield* CallbackOutbox
      const ledger = yield* WalletRepo
      const targets = yield* CallbackTargets

      /**
       * The player's delivery queue delivered first, in the call's own time: what the partner is still owed once the
       * rest arrives, or that it could not be reached a moment ago (asking it now would only wait for another time-out).
       */
      const deliverFirst = Effect.fn("PartnerAsks.deliverFirst")(function*(player: PartnerPlayer) {
        const delivered = yield* outbox.catchUp(player.id, storedCurrency(player.currency))
        if (delivered._tag === "Delivered") return { _tag: "Ready", owed: 0n } as const
        yield* Effect.logWarning("A player's notifications were not all delivered before the partner was asked").pipe(
          Effect.annotateLogs({
            partner_id: player.partnerId,
            player_id: player.id,
            detail: delivered.reason,
            away: delivered.away
          })
        )
        return delivered.away
          ? { _tag: "Away", reason: delivered.reason } as const
          : { _tag: "Ready", owed: delivered.owed } as const
      })

      /** One ask of the partner, after the player's delivery queue. */
      const askAfterQueue = Effect.fn("PartnerAsks.askAfterQueue")(
        function*(player: PartnerPlayer, target: CallbackTarget, eventId: string, body: string) {
          const ready = yield* deliverFirst(player)
          if (ready._tag === "Away") return { _tag: "Unavailable", reason: ready.reason } satisfies PartnerAnswer
          return withCredits(yield* callbacks.ask(target, eventId, body, storedCurrency(player.currency)), ready.owed)
        }
      )

      /** One ask after the queue, and whether a callback of the player's was written meanwhile. */
      const askCounted = Effect.fn("PartnerAsks.askCounted")(
        function*(player: PartnerPlayer, target: CallbackTarget, eventId: string, body: string) {
          const before = yield* ledger.callbacksWritten(player.id)
          const answer = yield* askAfterQueue(player, target, eventId, body)
          const after = yield* ledger.callbacksWritten(player.id)
          return { answer, before, callbacks: after, current: after === before }
        }
      )

      const shadowBalance = Effect.fn("PartnerAsks.shadowBalance")(function*(player: PartnerPlayer) {
        const target = yield* targets.get(player.partnerId, player.environment)
        if (!canBet(target)) return { balance: null, callbacks: yield* ledger.callbacksWritten(player.id) }
        let asked = { answer: { _tag: "UnknownPlayer" } as PartnerAnswer, before: 0, callbacks: 0, current: false }
        for (let tries = 0; tries < balanceTries && !asked.current; tries++) {
          const request = balanceBody(
            partyOf(player, target.value.partnerSlug),
            new Date(yield* Clock.currentTimeMillis)
          )
          asked = yield* askCounted(player, target.value, request.eventId, request.body)
        }
        const { answer } = asked
        return {
          balance: answer._tag === "Balance" || answer._tag === "InsufficientFunds" ? answer.balance : null,
          callbacks: asked.callbacks
        }
      })

      const askAfterDecisions = Effect.fn("PartnerAsks.askAfterDecisions")(
        function*(player: PartnerPlayer, target: CallbackTarget, eventId: string, body: string) {
          const asked = yield* askCounted(player, target, eventId, body)
          if (asked.current || asked.answer._tag !== "Balance") return asked.answer
          // The stake was taken while another decision of the player's was written: its balance is asked again.
          const again = yield* shadowBalance(player)
          return again.balance === null
            ? asked.answer
            : { _tag: "Balance", balance: again.balance } satisfies PartnerAnswer
        }
      )

      return PartnerAsks.of({
        // A persisted player's stake is not asked again when another decision was written meanwhile: the count that
        // tells costs two statements on the hot path, and the mirror is set right by the next ask.
        // Nor is its delivery queue looked up when the statement that wrote the bet found it empty: a notification
        // written since is as one written while the partner is asked, which the next ask takes in.
        ask: (player, target, eventId, body, options) =>
          player.balance === null
            ? askAfterDecisions(player, target, eventId, body)
            : options?.queued === false
            ? callbacks.ask(target, eventId, body, storedCurrency(player.currency))
            : askAfterQueue(player, target, eventId, body),
        askBalance: (player, target, eventId, body) =>
          player.balance === null
            ? Effect.map(askAfterDecisions(player, target, eventId, body), (answer) => ({
              answer,
              stillCurrent: Effect.succeed(true)
            }))
            : Effect.map(askCounted(player, target, eventId, body), (asked) => ({
              answer: asked.answer,
              stillCurrent: Effect.map(ledger.callbacksWritten(player.id), (n) => n === asked.before)
            })),
        shadowBalance,
        isCurrent: (player, asked) => Effect.map(ledger.callbacksWritten(player.id), (n) => n === asked.callbacks)
      })
    })
  )
}
