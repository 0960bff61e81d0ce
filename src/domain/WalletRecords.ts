import { storedCurrency } from "./Currency.ts"
import { Option } from "effect"
import {
  betBody,
  type CallbackParty,
  type CallbackTransaction,
  type NewCallback,
  refundBody,
  rollbackBody,
  transactionEventId,
  winBody
} from "./Callbacks.ts"
import type { Aggregator } from "./Aggregator.ts"
import type { Minor } from "./Money.ts"
import type { CallbackTarget, PartnerPlayer, PlayerIdentity } from "./Partner.ts"
import {
  balanceAfterRefund,
  type PartnerAnswer,
  type RefundDecision,
  type Round,
  settleBet,
  type WalletTransaction
} from "./Wallet.ts"
import {
  accepted,
  type BetFields,
  fingerprint,
  kindOf,
  type MoneyEvent,
  refused,
  type Rollback,
  type StakeEvent,
  winOf
} from "./WalletEvents.ts"
import type { Decided, NewTransaction, Outcome, RoundWrite } from "./WalletWrites.ts"

/**
 * What the wallet's decisions write, in the terms its repository takes
 * (wallet/WalletRepo.ts): the transaction a call brings, how it ends, what
 * that does to its round, the callbacks that go with it, and the conflicts a
 * write can meet. The builders here are pure: the wallet service (wallet/
 * Wallet.ts) decides when, and with what it read, and writes what they give.
 */

/** The player as the partner's callbacks name them. */
export const partyOf = (player: PartnerPlayer, partnerSlug: string): CallbackParty => ({
  partnerSlug,
  externalPlayerId: player.externalPlayerId,
  userCode: player.internalUserId,
  currency: storedCurrency(player.currency)
})

/** Only an active partner with a callback_url can be asked to take a stake. */
export const canBet = (target: Option.Option<CallbackTarget>): target is Option.Some<CallbackTarget> =>
  Option.isSome(target) && target.value.active && target.value.callbackUrl !== null

export const transactionOf = (t: {
  readonly aggregator: Aggregator
  readonly txnId: string
  readonly roundId: string
  readonly gameCode: string | null
  readonly providerCode: string | null
}): CallbackTransaction => ({
  aggregator: t.aggregator,
  txnId: t.txnId,
  roundId: t.roundId,
  gameCode: t.gameCode,
  providerCode: t.providerCode
})

/** The transaction an event brings, for its player (a credit's round is its own until it is decided on its debit's). */
export const newTransaction = (event: MoneyEvent, player: PlayerIdentity): NewTransaction => ({
  aggregator: event.aggregator,
  kind: kindOf(event),
  txnId: event.txnId,
  fingerprint: fingerprint(event),
  partnerId: player.partnerId,
  environment: player.environment,
  playerId: player.id,
  currency: player.currency,
  roundId: event.roundId,
  debitTxnId: event._tag === "Credit" || event._tag === "Rollback" ? event.debitTxnId : null,
  gameCode: event.gameCode,
  providerCode: event.providerCode,
  bet: event._tag === "Debit" || event._tag === "DebitAndCredit" ? event.bet : 0n,
  win: event._tag === "DebitAndCredit" || event._tag === "Credit" ? event.win : 0n
})

/** A notification (win, refund, rollback): it waits in the player's delivery queue. */
export const notification = (
  player: PartnerPlayer,
  kind: "win" | "refund" | "rollback",
  txn: { readonly aggregator: Aggregator; readonly txnId: string },
  body: string
): NewCallback => ({
  partnerId: player.partnerId,
  environment: player.environment,
  playerId: player.id,
  kind,
  txnId: txn.txnId,
  eventId: transactionEventId(kind, txn.txnId, txn.aggregator),
  body
})

/** A pending bet as the event that wrote it (for settling it again after a crash; a plain debit is one with no win). */
export const betOf = (t: WalletTransaction): StakeEvent => ({
  _tag: "DebitAndCredit",
  aggregator: t.aggregator,
  userCode: 0,
  txnId: t.txnId,
  roundId: t.roundId,
  bet: t.bet,
  win: t.win,
  gameCode: t.gameCode,
  providerCode: t.providerCode
})

/** A bet's end from the partner's answer: the outcome and its callbacks (its ask record, a win, a rollback). */
export const betSettlement = (
  player: PartnerPlayer,
  slug: string,
  bet: StakeEvent,
  answer: PartnerAnswer,
  at: Date
): Decided => {
  // A shadow player has no mirror: what the partner said is all there is, answered and not kept (0 when it said nothing).
  const shadow = player.balance === null
  const win = winOf(bet)
  const settled = settleBet({ bet: bet.bet, win }, answer, player.balance ?? 0n, shadow)
  const party = partyOf(player, slug)
  const txn = transactionOf(bet)
  const written: Array<NewCallback> = [{
    partnerId: player.partnerId,
    environment: player.environment,
    playerId: player.id,
    kind: "bet",
    txnId: bet.txnId,
    eventId: transactionEventId("bet", bet.txnId, bet.aggregator),
    body: betBody(party, txn, bet.bet, at),
    asked: { error: settled.askError }
  }]
  if (settled.status === "applied" && win > 0n) {
    written.push(notification(player, "win", bet, winBody(party, txn, win, settled.balanceAfter, at)))
  }
  if (settled.rollback) written.push(notification(player, "rollback", bet, rollbackBody(party, txn, bet.bet, at)))
  return {
    outcome: {
      status: settled.status,
      refusal: settled.refusal,
      note: null,
      amount: settled.amount,
      balanceAfter: settled.balanceAfter,
      answer: settled.answer,
      mirror: settled.confirmsBalance ? settled.balanceAfter : null
    },
    callbacks: written
  }
}

/** What a decided transaction does to its round: create it, or update the one it was decided on. */
export const roundWrite = (
  round: Option.Option<Round>,
  change: { readonly refund: boolean; readonly addWin: Minor }
): RoundWrite =>
  Option.match(round, {
    onNone: () => ({ _tag: "Create", status: "settled", refundedEarly: false, addBet: 0n, addWin: change.addWin }),
    onSome: (r) => ({
      _tag: "Update",
      roundRef: r.ref,
      version: r.version,
      refund: change.refund,
      addBet: 0n,
      addWin: change.addWin
    })
  })

/**
 * A bet refused without asking the partner (its round was refunded, or its own rollback came first, or its partner
 * cannot be called); `balance`
 * is answered, `mirror` kept (null for a shadow player).
 */
export const refusedBet = (
  code: "ROUND_REFUNDED" | "INVALID_USER" | "DEBIT_ROLLED_BACK",
  balance: Minor,
  mirror: Minor | null
): Outcome => ({
  status: "refused",
  refusal: code,
  note: null,
  amount: 0n,
  balanceAfter: mirror,
  answer: refused(code, balance),
  mirror: null
})

/**
 * A free round (no stake): nothing to take; the win is credited through the outbox. For a shadow player
 * (`shadow`), `mirror` is the partner's balance just asked, answered plus the win and kept nowhere.
 */
export const freeBet = (
  // A free stake (its bet 0), or a credit naming no debit.
  call: BetFields & { readonly win: Minor; readonly bet?: Minor },
  player: PartnerPlayer,
  slug: string,
  mirror: Minor,
  at: Date,
  shadow = false
): Decided => {
  const balanceAfter = mirror + call.win
  const kept = shadow ? null : balanceAfter
  return {
    outcome: {
      status: "applied",
      refusal: null,
      note: null,
      amount: call.win,
      balanceAfter: kept,
      answer: accepted(balanceAfter),
      mirror: kept
    },
    callbacks: call.win > 0n
      ? [
        notification(player, "win", call, winBody(partyOf(player, slug), transactionOf(call), call.win, kept, at))
      ]
      : []
  }
}

/** A refund's records, from its decision on the round (locked, with no pending bet) and the player's mirror. */
export const refundRecords = (
  call: Rollback,
  player: PartnerPlayer,
  slug: string,
  round: Option.Option<Round>,
  decision: RefundDecision,
  mirror: Minor,
  at: Date,
  shadow = false
): Decided & { readonly round: RoundWrite } => {
  // A shadow player's `mirror` is the partner's balance just asked: answered, never kept.
  const base = {
    status: "applied" as const,
    refusal: null,
    amount: 0n,
    balanceAfter: shadow ? null : mirror,
    answer: accepted(mirror),
    mirror: null
  }
  switch (decision._tag) {
    case "Tombstone":
      return {
        outcome: { ...base, note: "early_refund" },
        round: { _tag: "Create", status: "refunded", refundedEarly: true, addBet: 0n, addWin: 0n },
        callbacks: []
      }
    case "AlreadyRefunded":
      return {
        outcome: { ...base, note: "already_refunded" },
        round: roundWrite(round, { refund: true, addWin: 0n }),
        callbacks: []
      }
    case "Undo": {
      const r = Option.getOrThrow(round)
      const balanceAfter = balanceAfterRefund(mirror, decision.amount)
      const kept = shadow ? null : balanceAfter
      const body = refundBody(
        partyOf(player, slug),
        transactionOf(call),
        { bet: r.betTotal, win: r.winTotal },
        decision.amount,
        kept,
        at
      )
      return {
        outcome: {
          ...base,
          note: null,
          amount: decision.amount,
          balanceAfter: kept,
          answer: accepted(balanceAfter),
          mirror: kept
        },
        round: roundWrite(round, { refund: true, addWin: 0n }),
        callbacks: decision.amount === 0n ? [] : [notification(player, "refund", call, body)]
      }
    }
  }
}
