import { assert, describe, it } from "@effect/vitest"
import { decide } from "../../src/integrations/sandbox/SandboxPartnerWallet.ts"

const none = { rolledBack: false, betApplied: false }

describe("the demo partner wallet's rules", () => {
  it("a bet the balance covers is taken; one it does not is refused with 402 and moves nothing", () => {
    assert.deepStrictEqual(decide({ kind: "bet" }, 500, 2000, none), {
      reply: { status: 200, body: { balance: 15 } },
      balance: 1500
    })
    assert.deepStrictEqual(decide({ kind: "bet" }, 2500, 2000, none), {
      reply: { status: 402, body: { error: "insufficient_funds", balance: 20 } },
      balance: 2000
    })
  })

  it("a bet whose rollback came first is refused with 409, whatever the balance", () => {
    assert.deepStrictEqual(decide({ kind: "bet" }, 100, 2000, { rolledBack: true, betApplied: false }), {
      reply: { status: 409, body: { error: "rolled_back", balance: 20 } },
      balance: 2000
    })
  })

  it("a rollback gives the stake back only when the bet was taken", () => {
    assert.deepStrictEqual(decide({ kind: "rollback" }, 500, 1500, { rolledBack: false, betApplied: true }), {
      reply: { status: 200, body: { ok: true, rolled_back: true } },
      balance: 2000
    })
    assert.deepStrictEqual(decide({ kind: "rollback" }, 500, 1500, none), {
      reply: { status: 200, body: { ok: true, rolled_back: false } },
      balance: 1500
    })
  })

  it("wins and refunds are paid; a negative refund never takes the balance below zero", () => {
    assert.strictEqual(decide({ kind: "win" }, 750, 100, none).balance, 850)
    assert.strictEqual(decide({ kind: "refund" }, -300, 100, none).balance, 0)
    assert.deepStrictEqual(decide({ kind: "balance" }, 0, 1234, none).reply, { status: 200, body: { balance: 12.34 } })
  })
})
