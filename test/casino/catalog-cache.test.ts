import { CasinoStudioRepo } from "../../src/casino/CasinoStudioRepo.ts"
/** The casino catalog's read cache: one entry per meaning, within its bound in bytes, without a database. */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { CasinoCatalogRepo } from "../../src/casino/CasinoCatalogRepo.ts"
import { canonicalProviderRef } from "../../src/casino/CasinoCatalogRules.ts"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { testCasinoConfig } from "../support/TestApp.ts"
import * as CasinoCatalogRepoMemory from "../../src/casino/CasinoCatalogRepoMemory.ts"

/** The catalog over the in-memory repository, counting the look-ups that reach it. */
const countedCatalog = (maxBytes = 1024 * 1024) => {
  const lookups = { games: 0, findGame: 0, findProvider: 0 }
  const counting = Layer.effect(
    CasinoCatalogRepo,
    Effect.map(Effect.service(CasinoCatalogRepo), (repo) =>
      CasinoCatalogRepo.of({
        ...repo,
        games: (query) => Effect.andThen(Effect.sync(() => lookups.games++), repo.games(query, [])),
        findGame: (providerRef, gameCode) =>
          Effect.andThen(Effect.sync(() => lookups.findGame++), repo.findGame(providerRef, gameCode, [])),
        findProvider: (ref) => Effect.andThen(Effect.sync(() => lookups.findProvider++), repo.findProvider(ref, []))
      }))
  ).pipe(Layer.provide(CasinoCatalogRepoMemory.layerMemory))
  const layer = CasinoCatalog.layerNoDeps.pipe(
    Layer.provide(Layer.merge(counting, CasinoStudioRepo.layerMemory)),
    Layer.provide(
      Layer.succeed(
        CasinoConfig,
        testCasinoConfig({ catalogCacheTtl: Duration.minutes(5), catalogCacheMaxBytes: maxBytes })
      )
    )
  )
  return { lookups, layer }
}

const snapshot = {
  providers: [{ code: "ALPHA", name: "Alpha Games", enabled: true, imageUrl: null }],
  games: [{ code: "a-1", name: "Alpha One", providerCode: "ALPHA", enabled: true, original: true, imageUrl: null }]
}

describe("the casino catalog's cache keys", () => {
  it("a provider id loses its leading zeros; a slug, or digits too long to be an id, stay as given", () => {
    assert.deepStrictEqual(["1", "01", "001", "0"].map(canonicalProviderRef), ["1", "1", "1", "0"])
    assert.deepStrictEqual(["alpha-games", "0000000001", "007-games"].map(canonicalProviderRef), [
      "alpha-games",
      "0000000001",
      "007-games"
    ])
  })

  it.effect("equal requests written differently share one entry and one look-up", () => {
    const { layer, lookups } = countedCatalog()
    return Effect.gen(function*() {
      const catalog = yield* CasinoCatalog
      yield* catalog.sync("sandbox", snapshot)
      const id = (yield* catalog.enabledProviders)[0].id

      for (const ref of [`${id}`, `0${id}`, `00${id}`]) {
        const found = yield* catalog.findGame(ref, "a-1")
        assert.isTrue(Option.isSome(found) && found.value.name === "Alpha One")
        assert.isTrue(Option.isSome(yield* catalog.findProvider(ref)))
      }
      assert.strictEqual(lookups.findGame, 1)
      assert.strictEqual(lookups.findProvider, 1)

      const pages = yield* Effect.forEach([
        { provider: `${id}`, search: "alpha", page: 1, perPage: 10 },
        { provider: `0${id}`, search: "  ALPHA ", enabled: undefined, page: 1, perPage: 10 },
        { perPage: 10, page: 1, search: "Alpha", provider: `00${id}` }
      ], (query) => catalog.games(query))
      assert.deepStrictEqual(pages.map((page) => page.total), [1, 1, 1])
      assert.strictEqual(lookups.games, 1)

      // No filter, however written, is one entry; another filter is another.
      yield* catalog.games({ page: 1, perPage: 10 })
      yield* catalog.games({ provider: "", search: "   ", page: 1, perPage: 10 })
      assert.strictEqual(lookups.games, 2)
      yield* catalog.games({ provider: "alpha-games", page: 1, perPage: 10 })
      yield* catalog.games({ page: 2, perPage: 10 })
      assert.strictEqual(lookups.games, 4)
    }).pipe(Effect.provide(layer))
  })

  it.effect("answers past the bound in bytes are not kept: each look-up reaches the repository", () => {
    const { layer, lookups } = countedCatalog(16)
    return Effect.gen(function*() {
      const catalog = yield* CasinoCatalog
      yield* catalog.sync("sandbox", snapshot)
      yield* catalog.findGame("alpha-games", "a-1")
      yield* catalog.findGame("alpha-games", "a-1")
      assert.strictEqual(lookups.findGame, 2)
    }).pipe(Effect.provide(layer))
  })
})
