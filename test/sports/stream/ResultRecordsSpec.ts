import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { ResultRecord } from "../../../src/domain/SportsLifecycle.ts"
import { ResultRecords, resultRetentionDays } from "../../../src/sports/stream/ResultRecords.ts"

/**
 * What ResultRecords promises, whichever form keeps it: run over PostgreSQL and over memory by
 * result-records.test.ts. Each test writes providers of its own; `now` is the time the form prunes by (the
 * database's clock, or the test's).
 */
export const resultRecordsSpec = <R>(
  it: Vitest.MethodsNonLive<ResultRecords | R>,
  now: Effect.Effect<number, never, R>
) => {
  const provider = () => `r${randomBytes(3).toString("hex")}`
  const day = 86_400_000
  const result = (eventId: string, at: number, change: Partial<ResultRecord> = {}): ResultRecord => ({
    eventId,
    homeScore: 2,
    awayScore: 1,
    winner: "home",
    finalAt: at,
    correctedAt: null,
    previous: null,
    answeredAt: at,
    ...change
  })

  it.effect("results are kept by provider and event, a correction with the result it replaced, as saved", () =>
    Effect.gen(function*() {
      const results = yield* ResultRecords
      const [p, other] = [provider(), provider()]
      const at = yield* now
      const first = result("e1", at - 60_000)
      yield* results.save(p, [first, result("e2", at)])
      assert.deepStrictEqual([...(yield* results.held(p, ["e1", "e2", "none"])).keys()].sort(), ["e1", "e2"])
      assert.strictEqual((yield* results.held(other, ["e1"])).size, 0, "providers apart")
      assert.strictEqual((yield* results.held(p, [])).size, 0)
      const corrected = result("e1", at - 60_000, {
        homeScore: 2,
        awayScore: 2,
        winner: "draw",
        correctedAt: at,
        previous: { homeScore: 2, awayScore: 1, winner: "home" },
        answeredAt: at
      })
      yield* results.save(p, [corrected])
      assert.deepStrictEqual((yield* results.held(p, ["e1"])).get("e1"), corrected)
    }))

  it.effect(`a result is forgotten ${resultRetentionDays} days after its last change`, () =>
    Effect.gen(function*() {
      const results = yield* ResultRecords
      const p = provider()
      const at = yield* now
      const old = at - (resultRetentionDays + 1) * day
      yield* results.save(p, [
        result("old", old),
        result("recent", at - day),
        result("correctedlately", old, {
          homeScore: 0,
          correctedAt: at - day,
          previous: { homeScore: 2, awayScore: 1, winner: "home" }
        })
      ])
      assert.isAtLeast(yield* results.prune, 1)
      assert.deepStrictEqual(
        [...(yield* results.held(p, ["old", "recent", "correctedlately"])).keys()].sort(),
        ["correctedlately", "recent"]
      )
    }))
}
