/**
 * The wallet's rules as pure functions: exact amounts, fingerprints of repeats, a bet's end from the partner's answer
 * and a refund's decision. The same rules over the Wallet service in memory are test/wallet/wallet-rules.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ExactJson from "../../src/domain/ExactJson.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { formatMinor, minorOf } from "../../src/domain/Money.ts"
import { decideRefund, type PartnerAnswer, settleBet } from "../../src/domain/Wallet.ts"
import { type Debit, fingerprint } from "../../src/domain/WalletEvents.ts"
import { bet, refundOf } from "../support/SandboxEvents.ts"

const brl = knownCurrency("BRL")!
const parseCents = (text: string) => minorOf(text, brl)

describe("the rules, as pure functions", () => {
  it("amounts are exact decimals or nothing", () => {
    assert.strictEqual(parseCents("12.5"), 1_250n)
    assert.strictEqual(parseCents("0.07"), 7n)
    assert.strictEqual(parseCents("1000000000000"), 100_000_000_000_000n)
    for (const text of ["", " 1", "1 ", "0x10", "1e2", "-1", "1.005", "01", ".5", "5.", "1000000000000.01", "NaN"]) {
      assert.isUndefined(parseCents(text), text)
    }
    assert.strictEqual(formatMinor(-1_205n, brl), "-12.05")
  })

  it("exact JSON keeps numbers as written", () => {
    const parsed = ExactJson.parse(`{"id": 1790000000000000001, "amount": 0.10, "big": 1e2}`) as Record<
      string,
      ExactJson.JsonNumber
    >
    assert.deepStrictEqual([parsed.id.source, parsed.amount.source, parsed.big.source], [
      "1790000000000000001",
      "0.10",
      "1e2"
    ])
  })

  it("a fingerprint is what money depends on", () => {
    const base = bet("f-1", { bet: 100, win: 0 })
    assert.strictEqual(fingerprint(base), fingerprint({ ...base }))
    for (
      const other of [
        { ...base, bet: 101n },
        { ...base, win: 1n },
        { ...base, roundId: "x" },
        { ...base, userCode: 2 },
        {
          ...base,
          gameCode: "h"
        }
      ]
    ) {
      assert.notStrictEqual(fingerprint(other), fingerprint(base))
    }
    assert.notStrictEqual(fingerprint(refundOf("f-1", "f-1")), fingerprint(base), "a refund is another kind")
  })

  it("a free bet's amount is in its fingerprint, and every other stake's stays what its rows keep", () => {
    const paid: Debit = {
      _tag: "Debit",
      aggregator: "hub88",
      userCode: 100_001,
      txnId: "f-2",
      roundId: "r-2",
      bet: 500n,
      gameCode: "g",
      providerCode: null
    }
    const free: Debit = { ...paid, bet: 0n, freeStake: 500n }
    assert.notStrictEqual(fingerprint({ ...free, freeStake: 600n }), fingerprint(free), "another free amount")
    assert.notStrictEqual(fingerprint(free), fingerprint({ ...paid, bet: 0n }), "a free bet is no stake of 0")
    assert.notStrictEqual(fingerprint(free), fingerprint(paid), "nor the paid bet of its amount")
    // As hashed before free bets had an amount: a repeat of a row written then still replays.
    assert.strictEqual(fingerprint(paid), "iYQuiaC0G0VTq1N5AXZKcqJ963e9W5kfc6y6vxBsDN4")
    assert.strictEqual(fingerprint(bet("f-1", { bet: 100, win: 0 })), "vTd_B6xD3Zc4CK27_GEHIBsn9zYd40hh-x2LLDC2P-c")
  })

  it("a bet's end follows the partner's answer", () => {
    const call = bet("s-1", { bet: 1_000, win: 2_500 })
    const answers: ReadonlyArray<[PartnerAnswer, object]> = [
      [{ _tag: "Balance", balance: 9_000n }, {
        status: "applied",
        amount: 1_500n,
        balanceAfter: 11_500n,
        rollback: false
      }],
      [{ _tag: "InsufficientFunds", balance: 500n }, {
        status: "refused",
        refusal: "INSUFFICIENT_USER_FUNDS",
        amount: 0n,
        rollback: false
      }],
      [{ _tag: "UnknownPlayer" }, { status: "refused", refusal: "INVALID_USER", rollback: false }],
      [{ _tag: "Unavailable", reason: "down" }, {
        status: "refused",
        refusal: "INSUFFICIENT_USER_FUNDS",
        rollback: true,
        askError: "down"
      }]
    ]
    for (const [answer, expected] of answers) assert.deepInclude(settleBet(call, answer, 7_700n), expected)
    assert.deepStrictEqual(settleBet(call, { _tag: "InsufficientFunds", balance: null }, 7_700n).answer, {
      _tag: "Refused",
      refusal: "INSUFFICIENT_USER_FUNDS",
      balance: 7700n
    })
  })

  it("a refund undoes its round once, and a round never seen becomes a tombstone", () => {
    const round = {
      ref: 1,
      partnerId: 1,
      environment: "live" as const,
      playerId: 1,
      roundId: "r",
      aggregator: "sandbox" as const,
      status: "settled" as const,
      pendingBets: 0,
      betTotal: 1_000n,
      winTotal: 2_500n,
      refundedEarly: false,
      createdAt: new Date(0),
      updatedAt: new Date(0),
      version: 0
    }
    assert.deepStrictEqual(decideRefund(round), { _tag: "Undo", amount: -1_500n })
    assert.deepStrictEqual(decideRefund({ ...round, status: "refunded" }), { _tag: "AlreadyRefunded" })
    assert.deepStrictEqual(decideRefund(undefined), { _tag: "Tombstone" })
  })
})
