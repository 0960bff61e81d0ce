import { assert, type Vitest } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Environment } from "../../src/domain/Environment.ts"
import { computeStatement } from "../../src/domain/StatementDocument.ts"
import type { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { type NewStatement, StatementRepo } from "../../src/wallet/statements/StatementRepo.ts"
import { givenRepoPartner } from "../support/RepoPartner.ts"

/**
 * What StatementRepo promises, whichever form keeps it: run over PostgreSQL and over memory by
 * statement-repo.test.ts. Days are the whole fleet's, so each test closes days of its own (a year of its own).
 */
export const statementRepoSpec = (it: Vitest.MethodsNonLive<StatementRepo | PartnerRepo>) => {
  let nextYear = 2101
  const yearOf = () => nextYear++
  const statement = (
    partnerId: number,
    environment: Environment,
    day: string,
    totals = { bets: 12_345n, wins: 2_000n }
  ): NewStatement => {
    const computed = computeStatement({
      partner: `p-${partnerId}`,
      environment,
      date: day,
      computedAt: new Date(`${day}T00:05:00.000Z`)
    }, [])
    const counts = { ...computed.summary.counts, transactions: 7 }
    // Two currencies, each its own totals: BRL's as given, and a BTC amount no double holds.
    const summary = {
      ...computed.summary,
      counts,
      currencies: totals.bets === 0n ? [] : [
        {
          currency: "BRL",
          totals: {
            bets: totals.bets,
            wins: totals.wins,
            refunds: -150n,
            rollbacks: 700n,
            net: totals.wins - totals.bets - 150n
          },
          counts: { ...counts, transactions: 5 }
        },
        {
          currency: "BTC",
          totals: { bets: 2_100_000_000_000_001n, wins: 0n, refunds: 0n, rollbacks: 0n, net: -2_100_000_000_000_001n },
          counts: { ...counts, transactions: 2 }
        }
      ]
    }
    return { partnerId, environment, computed: { ...computed, summary } }
  }

  it.effect("a day closes once: its statements are written with their document byte for byte, and a second close writes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* StatementRepo
      const partner = yield* givenRepoPartner
      const day = `${yearOf()}-03-01`
      const live = statement(partner.id, "live", day)
      assert.isFalse(yield* repo.isComplete(day))
      const told: Array<ReadonlyArray<string>> = []
      const wrote = yield* repo.close(day, new Date(), (written) => {
        told.push([...written])
        return Effect.succeed({
          statements: [live, statement(partner.id, "test", day, { bets: 0n, wins: 0n })],
          complete: true
        })
      })
      assert.deepStrictEqual([wrote, told], [2, [[]]])
      assert.isTrue(yield* repo.isComplete(day))
      assert.strictEqual(yield* repo.close(day, new Date(), () => Effect.die("a closed day's work never runs")), 0)
      const found = Option.getOrThrow(yield* repo.find(partner.id, "live", day))
      assert.deepStrictEqual([found.day, found.transactions, found.currencies], [day, 7, [
        {
          currency: "BRL",
          bets: 12_345n,
          wins: 2_000n,
          refunds: -150n,
          rollbacks: 700n,
          net: -10_495n,
          transactions: 5
        },
        {
          currency: "BTC",
          bets: 2_100_000_000_000_001n,
          wins: 0n,
          refunds: 0n,
          rollbacks: 0n,
          net: -2_100_000_000_000_001n,
          transactions: 2
        }
      ]])
      assert.deepStrictEqual(Option.getOrThrow(yield* repo.find(partner.id, "test", day)).currencies, [])
      assert.strictEqual(found.document, live.computed.document)
      assert.deepStrictEqual(new Uint8Array(found.sha256), new Uint8Array(live.computed.sha256))
      assert.deepStrictEqual(found.computedAt, live.computed.summary.computedAt)
      assert.isTrue(Option.isNone(yield* repo.find(partner.id, "live", `${day.slice(0, 4)}-03-02`)))
    }))

  it.effect("a day left incomplete stays open, and the next close is told which statements it has", () =>
    Effect.gen(function*() {
      const repo = yield* StatementRepo
      const partner = yield* givenRepoPartner
      const day = `${yearOf()}-05-10`
      yield* repo.close(
        day,
        new Date(),
        () => Effect.succeed({ statements: [statement(partner.id, "live", day)], complete: false })
      )
      assert.isFalse(yield* repo.isComplete(day))
      let told: ReadonlyArray<string> = []
      const wrote = yield* repo.close(day, new Date(), (written) => {
        told = [...written]
        return Effect.succeed({ statements: [statement(partner.id, "test", day)], complete: true })
      })
      assert.deepStrictEqual([wrote, told], [1, [`${partner.id}:live`]])
      assert.isTrue(yield* repo.isComplete(day))
    }))

  it.effect("a close whose work fails, or that would write a statement twice, keeps nothing", () =>
    Effect.gen(function*() {
      const repo = yield* StatementRepo
      const partner = yield* givenRepoPartner
      const day = `${yearOf()}-07-04`
      const failed = yield* Effect.flip(repo.close(day, new Date(), () => Effect.fail("upstream down" as const)))
      assert.strictEqual(failed, "upstream down")
      yield* repo.close(
        day,
        new Date(),
        () => Effect.succeed({ statements: [statement(partner.id, "live", day)], complete: false })
      )
      const twice = yield* Effect.exit(
        repo.close(day, new Date(), () =>
          Effect.succeed({
            statements: [statement(partner.id, "test", day), statement(partner.id, "live", day)],
            complete: true
          }))
      )
      assert.isTrue(twice._tag === "Failure", "a second statement of a partner environment and day is refused")
      assert.isTrue(Option.isNone(yield* repo.find(partner.id, "test", day)), "nothing of the refused close was kept")
      assert.isFalse(yield* repo.isComplete(day))
    }))

  it.effect("open days are those of the range not complete, oldest first; the first day is the earliest written or closed", () =>
    Effect.gen(function*() {
      const repo = yield* StatementRepo
      const partner = yield* givenRepoPartner
      // Years before the other tests' own, so the first day is this test's whatever ran before it.
      const year = 2001
      yield* repo.close(`${year}-02-27`, new Date(), () => Effect.succeed({ statements: [], complete: true }))
      yield* repo.close(
        `${year}-03-01`,
        new Date(),
        () => Effect.succeed({ statements: [statement(partner.id, "live", `${year}-03-01`)], complete: false })
      )
      assert.deepStrictEqual(yield* repo.firstDay, Option.some(`${year}-02-27`))
      assert.deepStrictEqual(yield* repo.openDays(`${year}-02-26`, `${year}-03-02`), [
        `${year}-02-26`,
        `${year}-02-28`,
        `${year}-03-01`,
        `${year}-03-02`
      ])
      assert.deepStrictEqual(yield* repo.openDays(`${year}-02-27`, `${year}-02-27`), [])
      assert.deepStrictEqual(yield* repo.openDays(`${year}-03-02`, `${year}-03-01`), [], "an empty range")
    }))

  it.effect("recent lists newest day first, then by partner and environment, narrowed by partner and environment, up to its limit", () =>
    Effect.gen(function*() {
      const repo = yield* StatementRepo
      const [a, b] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const year = yearOf() + 1_000
      const [d1, d2] = [`${year}-01-01`, `${year}-01-02`]
      yield* repo.close(
        d1,
        new Date(),
        () =>
          Effect.succeed({
            statements: [statement(b.id, "live", d1), statement(a.id, "test", d1), statement(a.id, "live", d1)],
            complete: true
          })
      )
      yield* repo.close(
        d2,
        new Date(),
        () => Effect.succeed({ statements: [statement(b.id, "test", d2)], complete: true })
      )
      const keys = (rows: ReadonlyArray<{ partnerId: number; environment: string; day: string }>) =>
        rows.map((row) => `${row.day} ${row.partnerId === a.id ? "a" : "b"} ${row.environment}`)
      assert.deepStrictEqual(keys(yield* repo.recent({ limit: 4 })), [
        `${d2} b test`,
        `${d1} a live`,
        `${d1} a test`,
        `${d1} b live`
      ])
      assert.deepStrictEqual(keys(yield* repo.recent({ partnerId: a.id, limit: 10 })), [`${d1} a live`, `${d1} a test`])
      assert.deepStrictEqual(keys(yield* repo.recent({ partnerId: b.id, environment: "test", limit: 10 })), [
        `${d2} b test`
      ])
      assert.deepStrictEqual(keys(yield* repo.recent({ environment: "live", limit: 1 })), [`${d1} a live`])
      assert.notProperty(
        (yield* repo.recent({ partnerId: a.id, limit: 1 }))[0],
        "document",
        "a listing carries no document"
      )
    }))

  it.effect("closes of one day at once: the work runs once, and each statement is written once", () =>
    Effect.gen(function*() {
      const repo = yield* StatementRepo
      const partner = yield* givenRepoPartner
      const day = `${yearOf()}-09-09`
      let runs = 0
      const close = repo.close(day, new Date(), (written) =>
        Effect.gen(function*() {
          runs++
          // The others try meanwhile (in PostgreSQL each in a transaction of its own, waiting on the lock).
          for (let i = 0; i < 5; i++) yield* Effect.yieldNow
          return { statements: written.size === 0 ? [statement(partner.id, "live", day)] : [], complete: true }
        }))
      const wrote = yield* Effect.all([close, close, close], { concurrency: "unbounded" })
      assert.deepStrictEqual([wrote.reduce((sum, n) => sum + n, 0), runs], [1, 1])
    }))

  it.effect("a test statement so far is replaced when closed again, and deleted when the day's own is written", () =>
    Effect.gen(function*() {
      const repo = yield* StatementRepo
      const partner = yield* givenRepoPartner
      const day = `${yearOf()}-11-11`
      const soFar = (hour: number) => {
        const at = new Date(`${day}T${String(hour).padStart(2, "0")}:00:00.000Z`)
        const computed = computeStatement(
          { partner: `p-${partner.id}`, environment: "test", date: day, computedAt: at, upTo: at },
          []
        )
        return { document: computed.document, sha256: computed.sha256, closedUpTo: at }
      }
      assert.isTrue(Option.isNone(yield* repo.findPartial(partner.id, day)))
      assert.isTrue(yield* repo.savePartial(partner.id, day, soFar(1), new Date()))
      assert.isTrue(yield* repo.savePartial(partner.id, day, soFar(2), new Date()))
      const kept = Option.getOrThrow(yield* repo.findPartial(partner.id, day))
      assert.strictEqual(kept.document, soFar(2).document)
      assert.deepStrictEqual(kept.closedUpTo, soFar(2).closedUpTo)
      // It is no daily statement: the day is neither written nor begun by it.
      assert.isTrue(Option.isNone(yield* repo.find(partner.id, "test", day)))
      yield* repo.close(day, new Date(), () =>
        Effect.succeed({
          statements: [statement(partner.id, "live", day), statement(partner.id, "test", day)],
          complete: true
        }))
      assert.isTrue(Option.isNone(yield* repo.findPartial(partner.id, day)))
      // Once the day has its own, none is kept again.
      assert.isFalse(yield* repo.savePartial(partner.id, day, soFar(3), new Date()))
      assert.isTrue(Option.isNone(yield* repo.findPartial(partner.id, day)))
    }))
}
