/**
 * What a wallet decision writes, without a database or a service: the
 * transaction a call brings, how a bet ends from the partner's answer, a free
 * round, a refund, and the callbacks each records.
 */
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { creditOf, transactionEventId } from "../../src/domain/Callbacks.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { type CallbackTarget, PartnerPlayer } from "../../src/domain/Partner.ts"
import { type Round, withCredits } from "../../src/domain/Wallet.ts"
import { type DebitAndCredit, fingerprint, type Rollback } from "../../src/domain/WalletEvents.ts"
import {
  betOf,
  betSettlement,
  canBet,
  freeBet,
  newTransaction,
  refundRecords,
  refusedBet,
  roundWrite
} from "../../src/domain/WalletRecords.ts"
import { at, eventFields, player, roundOf, transactionRow } from "../support/LedgerFixtures.ts"

const brl = knownCurrency("BRL")!

const bet: DebitAndCredit = { _tag: "DebitAndCredit", ...eventFields, txnId: "t-1", bet: 500n, win: 200n }
const refund: Rollback = { _tag: "Rollback", ...eventFields, txnId: "t-9", debitTxnId: null }

const round = (overrides: Partial<Round> = {}): Round => roundOf({ winTotal: 200n, ...overrides })

describe("the transaction a call brings", () => {
  it("a bet carries its amounts and fingerprint; a refund none", () => {
    assert.deepStrictEqual(newTransaction(bet, player), {
      aggregator: "sandbox",
      kind: "bet",
      txnId: "t-1",
      fingerprint: fingerprint(bet),
      partnerId: 3,
      environment: "live",
      playerId: 7,
      currency: "BRL",
      roundId: "r-1",
      debitTxnId: null,
      gameCode: "g",
      providerCode: "p",
      bet: 500n,
      win: 200n
    })
    const written = newTransaction(refund, player)
    assert.strictEqual(written.kind, "refund")
    assert.strictEqual(written.bet, 0n)
    assert.strictEqual(written.win, 0n)
  })
})

describe("a bet's end", () => {
  it("taken: applied at the partner's balance plus the win, with the ask record and a win notification", () => {
    const { callbacks, outcome } = betSettlement(player, "acme", bet, { _tag: "Balance", balance: 9_500n }, at)
    assert.deepStrictEqual(outcome, {
      status: "applied",
      refusal: null,
      note: null,
      amount: -300n,
      balanceAfter: 9_700n,
      answer: { _tag: "Accepted", balance: 9700n },
      mirror: 9_700n
    })
    assert.deepStrictEqual(callbacks.map((c) => [c.kind, c.eventId, c.asked]), [
      ["bet", transactionEventId("bet", "t-1"), { error: null }],
      ["win", transactionEventId("win", "t-1"), undefined]
    ])
    const win = JSON.parse(callbacks[1].body)
    assert.strictEqual(win.partner, "acme")
    assert.deepStrictEqual(win.player, { external_player_id: "p-42", user_code: 1000042 })
  })

  it("the partner away: refused, the mirror untouched, a rollback in case it took the stake", () => {
    const { callbacks, outcome } = betSettlement(player, "acme", bet, { _tag: "Unavailable", reason: "down" }, at)
    assert.strictEqual(outcome.status, "refused")
    assert.strictEqual(outcome.refusal, "INSUFFICIENT_USER_FUNDS")
    assert.strictEqual(outcome.mirror, null)
    assert.deepStrictEqual(callbacks.map((c) => [c.kind, c.asked]), [["bet", { error: "down" }], [
      "rollback",
      undefined
    ]])
  })

  it("a pending bet read back is the call that wrote it (for recovery)", () => {
    const pending = betOf(transactionRow({
      txnId: "t-1",
      win: 200n,
      status: "pending",
      amount: 0n,
      balanceAfter: null,
      answer: null,
      settledAt: null
    }))
    assert.deepStrictEqual({ ...pending, userCode: bet.userCode }, bet)
  })
})

describe("bets the partner is not asked about", () => {
  it("a partner without a callback URL, or inactive, cannot be asked", () => {
    const target: CallbackTarget = {
      partnerId: 3,
      environment: "live",
      partnerSlug: "acme",
      active: true,
      callbackUrl: "https://acme.test/wallet",
      webhookSecret: "s",
      previousSecret: null
    }
    assert.isTrue(canBet(Option.some(target)))
    assert.isFalse(canBet(Option.some({ ...target, callbackUrl: null })))
    assert.isFalse(canBet(Option.some({ ...target, active: false })))
    assert.isFalse(canBet(Option.none()))
  })

  it("refused: nothing moves, the mirror stays", () => {
    assert.deepStrictEqual(refusedBet("ROUND_REFUNDED", 10_000n, 10_000n), {
      status: "refused",
      refusal: "ROUND_REFUNDED",
      note: null,
      amount: 0n,
      balanceAfter: 10_000n,
      answer: { _tag: "Refused", refusal: "ROUND_REFUNDED", balance: 10_000n },
      mirror: null
    })
    assert.deepStrictEqual(refusedBet("INVALID_USER", 0n, 10_000n).answer, {
      _tag: "Refused",
      refusal: "INVALID_USER",
      balance: 0n
    })
  })

  it("a free round credits its win through a notification; without a win it writes none", () => {
    const free = freeBet({ ...bet, bet: 0n }, player, "acme", 10_000n, at)
    assert.strictEqual(free.outcome.balanceAfter, 10_200n)
    assert.strictEqual(free.outcome.mirror, 10_200n)
    assert.deepStrictEqual(free.callbacks.map((c) => c.kind), ["win"])
    assert.deepStrictEqual(freeBet({ ...bet, bet: 0n, win: 0n }, player, "acme", 10_000n, at).callbacks, [])
  })

  it("its round is created settled, or updated with the win", () => {
    assert.deepStrictEqual(roundWrite(Option.none(), { refund: false, addWin: 200n }), {
      _tag: "Create",
      status: "settled",
      refundedEarly: false,
      addBet: 0n,
      addWin: 200n
    })
    assert.deepStrictEqual(roundWrite(Option.some(round()), { refund: true, addWin: 0n }), {
      _tag: "Update",
      roundRef: 11,
      version: 0,
      refund: true,
      addBet: 0n,
      addWin: 0n
    })
  })
})

describe("a refund's records", () => {
  it("of an unknown round: a tombstone round, refunded early, nothing moved", () => {
    const records = refundRecords(refund, player, "acme", Option.none(), { _tag: "Tombstone" }, 10_000n, at)
    assert.strictEqual(records.outcome.note, "early_refund")
    assert.strictEqual(records.outcome.amount, 0n)
    assert.deepStrictEqual(records.round, {
      _tag: "Create",
      status: "refunded",
      refundedEarly: true,
      addBet: 0n,
      addWin: 0n
    })
    assert.deepStrictEqual(records.callbacks, [])
  })

  it("of a round refunded before: nothing again", () => {
    const records = refundRecords(
      refund,
      player,
      "acme",
      Option.some(round({ status: "refunded" })),
      { _tag: "AlreadyRefunded" },
      10_000n,
      at
    )
    assert.strictEqual(records.outcome.note, "already_refunded")
    assert.deepStrictEqual(records.callbacks, [])
  })

  it("undoing a round: its net back to the mirror, with a refund notification", () => {
    const records = refundRecords(
      refund,
      player,
      "acme",
      Option.some(round()),
      { _tag: "Undo", amount: 300n },
      10_000n,
      at
    )
    assert.deepStrictEqual(records.outcome, {
      status: "applied",
      refusal: null,
      note: null,
      amount: 300n,
      balanceAfter: 10_300n,
      answer: { _tag: "Accepted", balance: 10_300n },
      mirror: 10_300n
    })
    assert.deepStrictEqual(records.callbacks.map((c) => [c.kind, c.txnId]), [["refund", "t-9"]])
    assert.deepStrictEqual(
      refundRecords(
        refund,
        player,
        "acme",
        Option.some(round({ betTotal: 0n, winTotal: 0n })),
        { _tag: "Undo", amount: 0n },
        10_000n,
        at
      ).callbacks,
      []
    )
  })
})

describe("a shadow player's balance with notifications still on their way", () => {
  const shadow = new PartnerPlayer({ ...player, balance: null })
  const round: Round = {
    ref: 1,
    partnerId: 3,
    environment: "live",
    playerId: 7,
    aggregator: "sandbox",
    roundId: "r-1",
    status: "settled",
    pendingBets: 0,
    betTotal: 500n,
    winTotal: 2_000n,
    refundedEarly: false,
    createdAt: at,
    updatedAt: at,
    version: 0
  }

  it("what each waiting notification credits: a win's and a refund's amount (negative when the round paid more); a rollback nothing", () => {
    const settled = betSettlement(shadow, "acme", { ...bet, win: 1_234n }, { _tag: "Balance", balance: 9_500n }, at)
    const win = settled.callbacks.find((c) => c.kind === "win")!
    assert.strictEqual(creditOf(win, brl), 1_234n)
    const refunded = refundRecords(
      refund,
      shadow,
      "acme",
      Option.some(round),
      { _tag: "Undo", amount: -1_500n },
      9_000n,
      at,
      true
    )
    assert.strictEqual(creditOf(refunded.callbacks[0], brl), -1_500n)
    const recovered = betSettlement(shadow, "acme", bet, { _tag: "Unavailable", reason: "down" }, at)
    const rollback = recovered.callbacks.find((c) => c.kind === "rollback")!
    assert.strictEqual(
      creditOf(rollback, brl),
      0n,
      "a rollback gives the stake back only if the partner took it: unknown"
    )
  })

  it("the partner's balance plus what is owed, never below 0; refusals without a balance are left alone", () => {
    assert.deepStrictEqual(withCredits({ _tag: "Balance", balance: 1_000n }, 250n), {
      _tag: "Balance",
      balance: 1_250n
    })
    assert.deepStrictEqual(withCredits({ _tag: "Balance", balance: 1_000n }, -1_500n), { _tag: "Balance", balance: 0n })
    assert.deepStrictEqual(withCredits({ _tag: "InsufficientFunds", balance: 10n }, 5n), {
      _tag: "InsufficientFunds",
      balance: 15n
    })
    assert.deepStrictEqual(withCredits({ _tag: "InsufficientFunds", balance: null }, 5n), {
      _tag: "InsufficientFunds",
      balance: null
    })
    assert.deepStrictEqual(withCredits({ _tag: "UnknownPlayer" }, 5n), { _tag: "UnknownPlayer" })
  })
})
