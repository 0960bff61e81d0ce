import { assert, type Vitest } from "@effect/vitest"
import { Effect, Option, Result } from "effect"
import { randomBytes } from "node:crypto"
import { CasinoStudioRepo } from "../../src/casino/CasinoStudioRepo.ts"

/**
 * What CasinoStudioRepo promises of aliases, whichever form keeps it: run over PostgreSQL (layerSql) and over memory
 * (layerMemory) by casino-studio-repo.test.ts, so the console's tests over memory stand on what the SQL does. The
 * file's tests share the layer's rows: each uses keys of its own.
 */
export const casinoStudioRepoSpec = (it: Vitest.MethodsNonLive<CasinoStudioRepo>) => {
  const unique = () => randomBytes(4).toString("hex")

  it.effect("an alias is set, changed (answering its studio before), listed and removed once", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoStudioRepo
      const [alias, first, second] = [`a${unique()}`, `s${unique()}`, `s${unique()}`]
      assert.isTrue(Option.isNone(yield* repo.setAlias(alias, first)))
      assert.deepStrictEqual(yield* repo.setAlias(alias, second), Option.some(first))
      assert.strictEqual((yield* repo.aliases).get(alias), second)
      assert.deepStrictEqual(yield* repo.removeAlias(alias), Option.some(second))
      assert.isTrue(Option.isNone(yield* repo.removeAlias(alias)))
      assert.isFalse((yield* repo.aliases).has(alias))
    }))

  it.effect("aliases do not chain: an alias's studio may not become an alias, nor an alias a studio", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoStudioRepo
      const [alias, studio, other] = [`a${unique()}`, `s${unique()}`, `o${unique()}`]
      yield* repo.setAlias(alias, studio)
      const studioAsAlias = yield* Effect.flip(repo.setAlias(studio, other))
      assert.strictEqual(studioAsAlias.field, "alias")
      assert.include(studioAsAlias.message, `"${studio}" is the studio of the alias "${alias}"`)
      const aliasAsStudio = yield* Effect.flip(repo.setAlias(other, alias))
      assert.strictEqual(aliasAsStudio.field, "studio")
      assert.include(aliasAsStudio.message, `"${alias}" is itself an alias of "${studio}"`)
      const kept = yield* repo.aliases
      assert.deepStrictEqual([kept.get(alias), kept.has(studio), kept.has(other)], [studio, false, false])
      yield* repo.removeAlias(alias)
    }))

  it.effect("two opposite sets at once never both pass: exactly one alias is kept, every time", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoStudioRepo
      for (let round = 0; round < 20; round++) {
        const [a, b] = [`a${unique()}`, `b${unique()}`]
        const outcomes = yield* Effect.all([Effect.result(repo.setAlias(a, b)), Effect.result(repo.setAlias(b, a))], {
          concurrency: "unbounded"
        })
        assert.strictEqual(outcomes.filter(Result.isSuccess).length, 1, `round ${round}: one of the two passes`)
        const kept = yield* repo.aliases
        assert.strictEqual([kept.get(a) === b, kept.get(b) === a].filter(Boolean).length, 1)
        yield* repo.removeAlias(a)
        yield* repo.removeAlias(b)
      }
    }))
}
