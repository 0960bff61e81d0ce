import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"

/**
 * What AuditRepo promises, whichever form keeps it: run over PostgreSQL (layerSql) and over memory (layerMemory) by
 * audit-repo.test.ts, so the twin the handler specs stand on is shown to answer as the SQL does. Every test writes
 * under targets and actors of its own: the layer (and its rows) is shared by the file's tests.
 */
export const auditRepoSpec = (it: Vitest.MethodsNonLive<AuditRepo>) => {
  const unique = () => randomBytes(4).toString("hex")

  it.effect("an entry is kept as recorded: who, through what, the change, and its before and after as JSON", () =>
    Effect.gen(function*() {
      const audit = yield* AuditRepo
      const target = `partner:${unique()}`
      const after = { status: "inactive", limits: [1, 2], note: null }
      yield* audit.record({ name: "ops@example.com", via: "console" }, {
        action: "partner.status",
        target,
        before: { status: "active" },
        after
      })
      after.limits.push(3) // a change to the object recorded is not the entry's
      const [entry] = yield* audit.list({ target, limit: 10 })
      assert.deepStrictEqual(
        { ...entry, id: 0, at: new Date(0) },
        {
          id: 0,
          at: new Date(0),
          actor: "ops@example.com",
          via: "console",
          action: "partner.status",
          target,
          before: { status: "active" },
          after: { status: "inactive", limits: [1, 2], note: null }
        }
      )
      assert.isTrue(Number.isSafeInteger(entry.id) && entry.id > 0)
      assert.instanceOf(entry.at, Date)
    }))

  it.effect("a change without a before or an after records null for it", () =>
    Effect.gen(function*() {
      const audit = yield* AuditRepo
      const target = `sports:${unique()}`
      yield* audit.record({ name: "cli", via: "cli" }, { action: "sports.refresh", target, after: { events: 3 } })
      yield* audit.record({ name: "owner@example.com", via: "portal" }, { action: "token.roll", target })
      const entries = yield* audit.list({ target, limit: 10 })
      assert.deepStrictEqual(entries.map((entry) => [entry.via, entry.before, entry.after]), [
        ["portal", null, null],
        ["cli", null, { events: 3 }]
      ])
    }))

  it.effect("listed newest first, by target, by actor or both, and no more than the limit", () =>
    Effect.gen(function*() {
      const audit = yield* AuditRepo
      const [target, other] = [`partner:${unique()}`, `partner:${unique()}`]
      const [alice, bob] = [`alice-${unique()}@example.com`, `bob-${unique()}@example.com`]
      for (const [name, on, action] of [[alice, target, "one"], [bob, target, "two"], [alice, other, "three"]]) {
        yield* audit.record({ name, via: "console" }, { action, target: on })
      }
      const actions = (entries: ReadonlyArray<{ readonly action: string }>) => entries.map((entry) => entry.action)
      assert.deepStrictEqual(actions(yield* audit.list({ target, limit: 10 })), ["two", "one"])
      assert.deepStrictEqual(actions(yield* audit.list({ actor: alice, limit: 10 })), ["three", "one"])
      assert.deepStrictEqual(actions(yield* audit.list({ target, actor: alice, limit: 10 })), ["one"])
      assert.deepStrictEqual(actions(yield* audit.list({ target, limit: 1 })), ["two"])
      assert.deepStrictEqual(actions(yield* audit.list({ target: `partner:${unique()}`, limit: 10 })), [])
      const everyone = yield* audit.list({ limit: 1000 })
      assert.isTrue(everyone.some((entry) => entry.target === other), "no filter lists every target")
    }))
}
