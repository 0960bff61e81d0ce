import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import { afterBreakdown, afterFailure, backoff } from "../../src/domain/DeliveryQueue.ts"

describe("a player's delivery queue after a failed run", () => {
  const held = (attempts: number) => ({ playerId: 1, holder: "h", attempts })

  it("backs off exp(min(attempts, 10)) seconds: 3 s, 7 s, 20 s, … at most about 6 h", () => {
    assert.deepStrictEqual([1, 2, 3, 10, 25].map((n) => Math.round(Duration.toSeconds(backoff(n)))), [
      3,
      7,
      20,
      22_026,
      22_026
    ])
  })

  it("counts the run that moved nothing, and parks the queue at its last allowed run", () => {
    assert.deepInclude(afterFailure(held(0), 0, 25), { _tag: "BackingOff", attempts: 1 })
    assert.deepInclude(afterFailure(held(23), 0, 25), { _tag: "BackingOff", attempts: 24 })
    assert.deepStrictEqual(afterFailure(held(24), 0, 25), { _tag: "Parked", attempts: 25 })
    assert.deepStrictEqual(afterFailure(held(0), 0, 1), { _tag: "Parked", attempts: 1 })
  })

  it("backs off afresh once the run delivered something before its failure", () => {
    assert.deepInclude(afterFailure(held(24), 3, 25), { _tag: "BackingOff", attempts: 1 })
  })

  it("tries a run the service itself failed again shortly, its failed runs as they were", () => {
    assert.deepInclude(afterBreakdown(held(4)), { _tag: "BackingOff", attempts: 4 })
  })
})
