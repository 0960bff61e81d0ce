/**
 * Refund arithmetic without a database: what a refund undoes of its round,
 * and where it leaves the balance mirror. In cents, so every sum is exact.
 */
import { assert, describe, it } from "@effect/vitest"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { amountOnWire, formatMinor, type Minor, minorOf } from "../../src/domain/Money.ts"
import { balanceAfterRefund, decideRefund, type Round } from "../../src/domain/Wallet.ts"

const brl = knownCurrency("BRL")!
const cents = (text: string): Minor => minorOf(text, brl)!

const round = (overrides: Partial<Round> = {}): Round => ({
  ref: 1,
  partnerId: 1,
  environment: "live",
  playerId: 1,
  aggregator: "sandbox",
  roundId: "r",
  status: "settled",
  pendingBets: 0,
  betTotal: 0n,
  winTotal: 0n,
  refundedEarly: false,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  version: 0,
  ...overrides
})

const undo = (r: Round): Minor => {
  const decision = decideRefund(r)
  assert.strictEqual(decision._tag, "Undo")
  if (decision._tag !== "Undo") throw new Error(`expected an undo, got ${decision._tag}`)
  return decision.amount
}

describe("a refund's amount", () => {
  it("gives the stakes back and takes the wins back: stakes minus wins", () => {
    assert.strictEqual(undo(round({ betTotal: 1_000n })), 1_000n, "a lost round gives its stake back")
    assert.strictEqual(undo(round({ betTotal: 1_000n, winTotal: 400n })), 600n)
    assert.strictEqual(
      undo(round({ betTotal: 1_000n, winTotal: 1_000n })),
      0n,
      "a round that paid back its stake moves nothing"
    )
    assert.strictEqual(
      undo(round({ betTotal: 1_000n, winTotal: 2_500n })),
      -1_500n,
      "a round that paid more takes it back"
    )
  })

  it("is exact for amounts a double cannot hold in currency units", () => {
    // 0.1 + 0.2 is not 0.3 in doubles; in cents it is.
    const bets = ["0.10", "0.20"].map(cents)
    const amount = undo(round({ betTotal: bets[0] + bets[1], winTotal: cents("0.30") }))
    assert.strictEqual(amount, 0n)
    const large = undo(round({ betTotal: cents("999999999999.99"), winTotal: cents("0.01") }))
    assert.strictEqual(formatMinor(large, brl), "999999999999.98")
  })

  it("is the same for an open round as for a settled one; a refunded round moves nothing again", () => {
    assert.strictEqual(undo(round({ status: "open", betTotal: 250n, winTotal: 50n })), 200n)
    assert.deepStrictEqual(decideRefund(round({ status: "refunded", betTotal: 250n })), { _tag: "AlreadyRefunded" })
  })
})

describe("the balance mirror after a refund", () => {
  it("adds the refund's amount, a stake given back or a win taken back", () => {
    assert.strictEqual(balanceAfterRefund(5_000n, 1_000n), 6_000n)
    assert.strictEqual(balanceAfterRefund(5_000n, -1_500n), 3_500n)
    assert.strictEqual(balanceAfterRefund(5_000n, 0n), 5_000n)
  })

  it("never goes below 0: the partner, who holds the money, has the last word", () => {
    assert.strictEqual(balanceAfterRefund(1_000n, -1_500n), 0n)
    assert.strictEqual(balanceAfterRefund(0n, -1n), 0n)
    assert.strictEqual(balanceAfterRefund(1_500n, -1_500n), 0n)
  })

  it("answers the aggregator in currency units, exactly", () => {
    assert.strictEqual(amountOnWire(balanceAfterRefund(cents("150.50"), cents("0.25")), brl), 150.75)
  })
})
