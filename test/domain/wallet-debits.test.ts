/**
 * The events of the ledger's one union, without a database or a service: how each is written, and what a credit
 * or a rollback naming a debit decides from that debit as its locked round shows it, and writes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import type { Round, WalletTransaction } from "../../src/domain/Wallet.ts"
import {
  creditRecords,
  debitRollbackRecords,
  debitState,
  decideCredit,
  decideDebitRollback
} from "../../src/domain/WalletDebits.ts"
import {
  type Credit,
  type Debit,
  type DebitAndCredit,
  fingerprint,
  kindOf,
  metricNameOf,
  type Rollback
} from "../../src/domain/WalletEvents.ts"
import { newTransaction } from "../../src/domain/WalletRecords.ts"
import { at, eventFields, player, roundOf, transactionRow } from "../support/LedgerFixtures.ts"

const debit: Debit = { _tag: "Debit", ...eventFields, txnId: "d-1", bet: 500n }
const winBet: DebitAndCredit = { _tag: "DebitAndCredit", ...eventFields, txnId: "d-1", bet: 500n, win: 0n }
const credit: Credit = { _tag: "Credit", ...eventFields, txnId: "c-1", win: 700n, debitTxnId: "d-1" }
const rollback: Rollback = { _tag: "Rollback", ...eventFields, txnId: "rb-1", debitTxnId: "d-1" }
const refund: Rollback = { ...rollback, debitTxnId: null }

const round = roundOf()

const applied = transactionRow({})
const undone = transactionRow({ ref: 2, kind: "rollback", txnId: "rb-0", debitTxnId: "d-1", bet: 0n, amount: 500n })

describe("the events as the ledger writes them", () => {
  it("each kind of event is a kind of transaction, and names what it must", () => {
    assert.deepStrictEqual([debit, winBet, credit, rollback, refund].map(kindOf), [
      "bet",
      "bet",
      "credit",
      "rollback",
      "refund"
    ])
    assert.deepInclude(newTransaction(debit, player), { kind: "bet", bet: 500n, win: 0n, debitTxnId: null })
    assert.deepInclude(newTransaction(credit, player), { kind: "credit", bet: 0n, win: 700n, debitTxnId: "d-1" })
    assert.deepInclude(newTransaction(rollback, player), { kind: "rollback", bet: 0n, win: 0n, debitTxnId: "d-1" })
    assert.deepInclude(newTransaction(refund, player), { kind: "refund", debitTxnId: null })
  })

  it("a plain debit is a stake with no win; a credit's or a rollback's debit is part of its fingerprint", () => {
    assert.strictEqual(fingerprint(debit), fingerprint(winBet))
    assert.notStrictEqual(fingerprint(credit), fingerprint({ ...credit, debitTxnId: "d-2" }))
    assert.notStrictEqual(fingerprint(credit), fingerprint({ ...credit, debitTxnId: null }))
    assert.notStrictEqual(fingerprint(rollback), fingerprint({ ...rollback, debitTxnId: "d-2" }))
    assert.notStrictEqual(fingerprint(rollback), fingerprint(refund), "a round's refund is another transaction")
  })

  it("PlayFiver's calls keep their names in the metrics", () => {
    assert.deepStrictEqual([winBet, refund, debit, credit, rollback].map(metricNameOf), [
      "WinBet",
      "Refund",
      "Debit",
      "Credit",
      "Rollback"
    ])
  })
})

describe("a credit naming a debit", () => {
  const decide = (transactions: ReadonlyArray<WalletTransaction>, r: Round = round) =>
    decideCredit(debitState(transactions, "d-1", Option.some(r)), player)

  it("pays a debit of the player's that took its stake", () => {
    assert.deepStrictEqual(decide([applied]), { _tag: "Pay" })
  })

  it("waits for a pending debit", () => {
    assert.strictEqual(decide([transactionRow({ status: "pending", amount: 0n })])._tag, "Wait")
  })

  it("is refused when no debit of the player's took a stake: none, another's, refused, rolled back", () => {
    assert.deepStrictEqual(decide([]), { _tag: "NoDebit" })
    assert.deepStrictEqual(decide([transactionRow({ playerId: 8 })]), { _tag: "NoDebit" })
    assert.deepStrictEqual(
      decide([transactionRow({ status: "refused", refusal: "INSUFFICIENT_USER_FUNDS", amount: 0n })]),
      {
        _tag: "NoDebit"
      }
    )
    assert.deepStrictEqual(decide([applied, undone]), { _tag: "NoDebit" })
    assert.deepStrictEqual(decide([applied], { ...round, status: "refunded" }), { _tag: "RoundRefunded" })
  })

  it("lands on the debit's round: its win on the round, the mirror raised, a win notification under its own id", () => {
    const decided = creditRecords(credit, applied, player, "acme", round, 9_500n, at, false)
    assert.deepStrictEqual(decided.outcome, {
      status: "applied",
      refusal: null,
      note: null,
      amount: 700n,
      balanceAfter: 10_200n,
      answer: { _tag: "Accepted", balance: 10_200n },
      mirror: 10_200n
    })
    assert.deepStrictEqual(decided.round, {
      _tag: "Update",
      roundRef: 11,
      version: 0,
      refund: false,
      addBet: 0n,
      addWin: 700n
    })
    assert.deepStrictEqual(decided.callbacks.map((c) => [c.kind, c.txnId, c.eventId]), [
      ["win", "c-1", transactionEventId("win", "c-1")]
    ])
    const body = JSON.parse(decided.callbacks[0].body)
    assert.deepInclude(body, { transaction_id: "c-1", round_id: "r-1", amount: 7, balance: 102 })
  })

  it("a shadow player's: answered with the partner's balance plus the win, kept nowhere", () => {
    const decided = creditRecords(credit, applied, player, "acme", round, 9_000n, at, true)
    assert.deepInclude(decided.outcome, {
      balanceAfter: null,
      mirror: null,
      answer: { _tag: "Accepted", balance: 9_700n }
    })
  })
})

describe("a rollback naming a debit", () => {
  const decide = (transactions: ReadonlyArray<WalletTransaction>, r: Option.Option<Round> = Option.some(round)) =>
    decideDebitRollback(debitState(transactions, "d-1", r), player)

  it("gives exactly the debit's stake back, once", () => {
    assert.deepStrictEqual(decide([applied]), { _tag: "Undo", debit: applied })
    assert.deepStrictEqual(decide([applied, undone]), { _tag: "AlreadyRolledBack" })
    assert.deepStrictEqual(decide([applied], Option.some({ ...round, status: "refunded" })), {
      _tag: "AlreadyRolledBack"
    })
  })

  it("a debit not seen yet: a tombstone; a pending one: wait; a refused one: nothing to give back", () => {
    assert.deepStrictEqual(decide([], Option.none()), { _tag: "Tombstone" })
    assert.strictEqual(decide([transactionRow({ status: "pending", amount: 0n })])._tag, "Wait")
    assert.deepStrictEqual(
      decide([transactionRow({ status: "refused", refusal: "INSUFFICIENT_USER_FUNDS", amount: 0n })]),
      {
        _tag: "DebitRefused"
      }
    )
    assert.deepStrictEqual(decide([transactionRow({ playerId: 8 })]), { _tag: "NoDebit" })
  })

  it("an undo: the stake back on the mirror and off its round, and the rollback notification partners know", () => {
    const decided = debitRollbackRecords(
      { _tag: "Undo", debit: applied },
      player,
      "acme",
      Option.some(round),
      9_500n,
      at,
      false
    )
    assert.deepInclude(decided.outcome, {
      status: "applied",
      note: null,
      amount: 500n,
      balanceAfter: 10_000n,
      mirror: 10_000n,
      answer: { _tag: "Accepted", balance: 10_000n }
    })
    assert.deepStrictEqual(decided.round, {
      _tag: "Update",
      roundRef: 11,
      version: 0,
      refund: false,
      addBet: -500n,
      addWin: 0n
    })
    assert.deepStrictEqual(decided.callbacks.map((c) => [c.kind, c.txnId, c.eventId]), [
      ["rollback", "d-1", transactionEventId("rollback", "d-1")]
    ])
    const body = JSON.parse(decided.callbacks[0].body)
    assert.deepInclude(body, { transaction_id: "d-1", amount: 5, rolls_back: transactionEventId("bet", "d-1") })
  })

  it("a tombstone, a second rollback, a refused debit's: applied, nothing moved, nothing told, the note says why", () => {
    for (
      const [decision, note] of [
        [{ _tag: "Tombstone" }, "early_rollback"],
        [{ _tag: "AlreadyRolledBack" }, "already_rolled_back"],
        [{ _tag: "DebitRefused" }, "debit_refused"]
      ] as const
    ) {
      const decided = debitRollbackRecords(decision, player, "acme", Option.none(), 9_500n, at, false)
      assert.deepInclude(decided.outcome, { status: "applied", note, amount: 0n, mirror: null })
      assert.deepStrictEqual(decided.outcome.answer, { _tag: "Accepted", balance: 9_500n })
      assert.deepStrictEqual(decided.callbacks, [])
    }
  })
})
