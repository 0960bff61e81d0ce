import { assert, describe, it } from "@effect/vitest"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { decide } from "../../src/integrations/sandbox/SandboxPartnerWallet.ts"

const brl = knownCurrency("BRL")!

const none = { rolledBack: false, betApplied: false }

describe("the demo partner wallet's rules", () => {
  it("a bet the balance covers is taken; one it does not is refused with 402 and moves nothing", () => {
    assert.deepStrictEqual(decide({ kind: "bet" }, 500n, 2000n, none, brl), {
      reply: { status: 200, body: { balance: 15 } },
      balance: 1500n
    })
    assert.deepStrictEqual(decide({ kind: "bet" }, 2500n, 2000n, none, brl), {
      reply: { status: 402, body: { error: "insufficient_funds", balance: 20 } },
      balance: 2000n
    })
  })

  it("a bet whose rollback came first is refused with 409, whatever the balance", () => {
    assert.deepStrictEqual(decide({ kind: "bet" }, 100n, 2000n, { rolledBack: true, betApplied: false }, brl), {
      reply: { status: 409, body: { error: "rolled_back", balance: 20 } },
      balance: 2000n
    })
  })

  it("a rollback gives the stake back only when the bet was taken", () => {
    assert.deepStrictEqual(decide({ kind: "rollback" }, 500n, 1500n, { rolledBack: false, betApplied: true }, brl), {
      reply: { status: 200, body: { ok: true, rolled_back: true } },
      balance: 2000n
    })
    assert.deepStrictEqual(decide({ kind: "rollback" }, 500n, 1500n, none, brl), {
      reply: { status: 200, body: { ok: true, rolled_back: false } },
      balance: 1500n
    })
  })

  it("wins and refunds are paid; a negative refund never takes the balance below zero", () => {
    assert.strictEqual(decide({ kind: "win" }, 750n, 100n, none, brl).balance, 850n)
    assert.strictEqual(decide({ kind: "refund" }, -300n, 100n, none, brl).balance, 0n)
    assert.deepStrictEqual(decide({ kind: "balance" }, 0n, 1234n, none, brl).reply, {
      status: 200,
      body: { balance: 12.34 }
    })
  })
})
