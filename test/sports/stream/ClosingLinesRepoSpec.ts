import { assert, type Vitest } from "@effect/vitest"
import { Clock, Deferred, Effect, Schedule } from "effect"
import { randomBytes } from "node:crypto"
import type { ClosingAsk, ClosingLine } from "../../../src/domain/ClosingLines.ts"
import { pruneClosingLines } from "../../../src/sports/stream/ClosingLinesPruning.ts"
import { ClosingLinesRepo } from "../../../src/sports/stream/ClosingLinesRepo.ts"

/**
 * What ClosingLinesRepo promises, whichever form keeps it: run over PostgreSQL and over memory by
 * closing-lines-repo.test.ts. Each test writes providers of its own.
 */
export const closingLinesRepoSpec = (it: Vitest.MethodsNonLive<ClosingLinesRepo>) => {
  const provider = () => `p${randomBytes(3).toString("hex")}`
  const at = Date.UTC(2026, 11, 1, 12)
  const day = 86_400_000
  const line = (eventId: string, fields: Partial<ClosingLine> = {}): ClosingLine => ({
    eventId,
    sportId: 1,
    leagueId: "900",
    source: "kick_off",
    closedAt: at,
    quotedAt: at - 60_000,
    markets: [
      { key: "1_1", name: "Full Time Result", odds: [{ label: "Home", value: 2.5 }, { label: "Draw", value: 3.2 }] },
      { key: "1_3", name: "Goals Over/Under", odds: [{ label: "Over 2.5", value: 1.95 }] }
    ],
    ...fields
  })
  const ask = (eventId: string, fields: Partial<ClosingAsk> = {}): ClosingAsk => ({
    eventId,
    sportId: 1,
    leagueId: "900",
    closedAt: at,
    attempts: 0,
    ...fields
  })

  it.effect("a line is kept once per provider and event: a later one changes nothing, and says so", () =>
    Effect.gen(function*() {
      const repo = yield* ClosingLinesRepo
      const [p, other] = [provider(), provider()]
      assert.isUndefined(yield* repo.closingLine(p, "7"))
      assert.deepStrictEqual([...(yield* repo.keep(p, [line("7"), line("8", { source: "provider" })]))].sort(), [
        "7",
        "8"
      ])
      const later = line("7", { source: "provider", quotedAt: at, markets: [] })
      assert.deepStrictEqual([...(yield* repo.keep(p, [later, line("9")]))], ["9"], "only the new event's")
      assert.deepStrictEqual(yield* repo.closingLine(p, "7"), line("7"), "as first kept")
      assert.deepStrictEqual(yield* repo.closingLine(p, "8"), line("8", { source: "provider" }))
      assert.isUndefined(yield* repo.closingLine(other, "7"), "providers apart")
      assert.deepStrictEqual([...(yield* repo.keep(other, [later]))], ["7"])
    }))

  it.effect("of ten writers keeping the same event's line at once, one keeps it", () =>
    Effect.gen(function*() {
      const repo = yield* ClosingLinesRepo
      const p = provider()
      const kept = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => line("7", { quotedAt: at - i })),
        (each) => repo.keep(p, [each]),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(kept.filter((set) => set.has("7")).length, 1)
      const winner = kept.findIndex((set) => set.has("7"))
      assert.deepStrictEqual(yield* repo.closingLine(p, "7"), line("7", { quotedAt: at - winner }))
    }))

  it.effect("asks are claimed when due, in kick-off order, each held until its lease ends and counted", () =>
    Effect.gen(function*() {
      const repo = yield* ClosingLinesRepo
      const p = provider()
      assert.isNull(yield* repo.nextDue(p))
      yield* repo.want(p, [ask("b", { closedAt: at + 1 }), ask("a", { closedAt: at + 2 }), ask("c")], at + 1_000)
      yield* repo.want(p, [ask("b", { closedAt: at + 9 })], at + 5_000)
      assert.strictEqual(yield* repo.nextDue(p), at + 1_000, "an ask written twice is the first")
      assert.deepStrictEqual(yield* repo.claim(p, { now: at + 999, until: at + 60_000, limit: 10 }), [], "not due")
      const first = yield* repo.claim(p, { now: at + 1_000, until: at + 60_000, limit: 2 })
      assert.deepStrictEqual(first, [ask("c", { attempts: 1 }), ask("b", { closedAt: at + 1, attempts: 1 })])
      const second = yield* repo.claim(p, { now: at + 2_000, until: at + 60_000, limit: 10 })
      assert.deepStrictEqual(second, [ask("a", { closedAt: at + 2, attempts: 1 })], "held ones are not claimed again")
      assert.strictEqual(yield* repo.nextDue(p), at + 60_000)
      yield* repo.retry(p, "b", at + 10_000)
      yield* repo.drop(p, "a")
      const again = yield* repo.claim(p, { now: at + 60_000, until: at + 120_000, limit: 10 })
      assert.deepStrictEqual(again, [ask("c", { attempts: 2 }), ask("b", { closedAt: at + 1, attempts: 2 })])
      assert.deepStrictEqual(yield* repo.claim(provider(), { now: at + 60_000, until: at, limit: 10 }), [])
    }))

  it.effect("ten claimers at once take each due ask once", () =>
    Effect.gen(function*() {
      const repo = yield* ClosingLinesRepo
      const p = provider()
      yield* repo.want(p, Array.from({ length: 25 }, (_, i) => ask(String(i))), at)
      const claimed = yield* Effect.forEach(
        Array.from({ length: 10 }),
        () => repo.claim(p, { now: at, until: at + 60_000, limit: 3 }),
        { concurrency: "unbounded" }
      )
      const ids = claimed.flat().map((each) => each.eventId)
      assert.strictEqual(new Set(ids).size, ids.length, "none twice")
      assert.strictEqual(ids.length, 25)
    }))

  it.effect("a line kept ends its ask; an event with a line is not asked for", () =>
    Effect.gen(function*() {
      const repo = yield* ClosingLinesRepo
      const p = provider()
      yield* repo.want(p, [ask("7"), ask("8")], at)
      yield* repo.keep(p, [line("7")])
      yield* repo.want(p, [ask("7")], at)
      assert.deepStrictEqual(
        (yield* repo.claim(p, { now: at, until: at + 1, limit: 10 })).map((each) => each.eventId),
        ["8"]
      )
    }))

  it.effect("asks written wake the listeners, on any instance", () =>
    Effect.scoped(Effect.gen(function*() {
      const repo = yield* ClosingLinesRepo
      const p = provider()
      const woken = yield* Deferred.make<void>()
      yield* repo.whenWanted(Deferred.succeed(woken, undefined))
      // Written until one wakes it: PostgreSQL's listener may still be connecting when the first is announced.
      let n = 0
      yield* repo.want(p, [ask(String(n++))], at).pipe(
        Effect.andThen(Deferred.isDone(woken)),
        Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (done) => done })
      )
      assert.isTrue(yield* Deferred.isDone(woken))
    })))

  it.effect("pruning removes the lines (and asks) that closed before the cut-off, any provider's, and keeps newer ones", () =>
    Effect.gen(function*() {
      const repo = yield* ClosingLinesRepo
      const [p, other] = [provider(), provider()]
      const cut = at - 30 * day
      yield* repo.keep(p, [line("old", { closedAt: cut - 1 }), line("new", { closedAt: cut })])
      yield* repo.keep(other, [line("old", { closedAt: cut - day })])
      yield* repo.want(p, [ask("asked-old", { closedAt: cut - 1 }), ask("asked-new", { closedAt: cut })], at)
      assert.strictEqual(yield* repo.prune(new Date(cut)), 2)
      assert.isUndefined(yield* repo.closingLine(p, "old"))
      assert.isUndefined(yield* repo.closingLine(other, "old"))
      assert.deepStrictEqual(yield* repo.closingLine(p, "new"), line("new", { closedAt: cut }))
      assert.deepStrictEqual(
        (yield* repo.claim(p, { now: at, until: at + 1, limit: 10 })).map((each) => each.eventId),
        ["asked-new"]
      )
      assert.strictEqual(yield* repo.prune(new Date(cut)), 0, "nothing left to prune")
    }))

  it.effect("the daily prune removes the lines whose kick-off is more than 30 days past, and keeps the others", () =>
    Effect.gen(function*() {
      const repo = yield* ClosingLinesRepo
      const p = provider()
      const now = yield* Clock.currentTimeMillis
      yield* repo.keep(p, [
        line("31 days", { closedAt: now - 31 * day }),
        line("30 days and a minute", { closedAt: now - 30 * day - 60_000 }),
        line("29 days", { closedAt: now - 29 * day }),
        line("today", { closedAt: now })
      ])
      assert.strictEqual(yield* pruneClosingLines, 2)
      const kept = yield* Effect.forEach(
        ["31 days", "30 days and a minute", "29 days", "today"],
        (eventId) => repo.closingLine(p, eventId)
      )
      assert.deepStrictEqual(kept.map((each) => each?.eventId ?? null), [null, null, "29 days", "today"])
    }))
}
