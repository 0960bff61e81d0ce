import { assert, describe, it } from "@effect/vitest"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { isFinerThanMinorUnit } from "../../src/domain/Money.ts"
import { stuckAmount } from "../../src/domain/Stuck.ts"

const currency = (code: string) => knownCurrency(code)!

describe("an amount finer than the currency's minor unit", () => {
  it("counts significant places only, and never calls a text that is not a plain decimal finer", () => {
    assert.isTrue(isFinerThanMinorUnit("0.001", currency("BRL")))
    assert.isFalse(isFinerThanMinorUnit("1.50", currency("BRL")))
    assert.isFalse(isFinerThanMinorUnit("1.5000", currency("BRL")), "trailing zeros are no places")
    assert.isTrue(isFinerThanMinorUnit("10.5", currency("JPY")))
    assert.isFalse(isFinerThanMinorUnit("10", currency("JPY")))
    assert.isFalse(isFinerThanMinorUnit("5000000000000", currency("BRL")), "too large is not finer")
    assert.isFalse(isFinerThanMinorUnit("1e-3", currency("BRL")))
  })

  it("is a stuck item that says in words what came, in which currency, and what the aggregator must do", () => {
    const item = stuckAmount({
      ref: 7,
      aggregator: "playfiver",
      environment: "live",
      partnerId: 3,
      playerId: 9,
      txnId: "t-1",
      roundId: "r-1",
      field: "slot.bet",
      amount: "0.001",
      currency: "BRL",
      receivedAt: new Date("2026-12-01T10:00:00.000Z")
    }, "ana")
    assert.deepStrictEqual(item, {
      kind: "amount",
      ref: 7,
      partnerId: 3,
      environment: "live",
      subject: "t-1",
      transactionId: "t-1",
      externalPlayerId: "ana",
      since: new Date("2026-12-01T10:00:00.000Z"),
      detail: "Bet t-1 of round r-1: slot.bet 0.001 is finer than BRL's minor unit (2 decimals); nothing moved. " +
        "The aggregator must resend it in BRL's units."
    })
  })
})
