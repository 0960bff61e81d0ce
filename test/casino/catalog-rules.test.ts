import { assert, describe, it, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { assignSlugs, catalogChanges, syncReport } from "../../src/casino/CasinoCatalogRules.ts"
import { CasinoStudioRepo } from "../../src/casino/CasinoStudioRepo.ts"
import type { UpstreamGame, UpstreamProvider } from "../../src/casino/CasinoGateway.ts"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { testCasinoConfig } from "../support/TestApp.ts"
import * as CasinoCatalogRepoMemory from "../../src/casino/CasinoCatalogRepoMemory.ts"

const provider = (code: string, name = code): UpstreamProvider => ({ code, name, enabled: true, imageUrl: null })
const game = (providerCode: string, code: string, name = code, enabled = true): UpstreamGame => ({
  code,
  name,
  providerCode,
  enabled,
  original: true,
  imageUrl: null
})

describe("the casino catalog's rules", () => {
  it("a new provider's slug is its name's, numbered when taken; a known provider keeps its slug", () => {
    const slugs = assignSlugs(
      [{ upstreamCode: "old", slug: "red-fox" }],
      [
        provider("old", "Renamed Entirely"),
        provider("fox-2", "Red Fox"),
        provider("fox-3", "Red  Fox!"),
        provider("x", "!!!")
      ]
    )
    assert.deepStrictEqual([...slugs], [["old", "red-fox"], ["fox-2", "red-fox-2"], ["fox-3", "red-fox-3"], [
      "x",
      "provider"
    ]])
  })

  it("a snapshot adds what is new, changes only what differs, and marks what vanished absent", () => {
    const first = catalogChanges({ providers: [], games: [] }, {
      providers: [provider("A")],
      games: [game("A", "a-1"), game("A", "a-2"), game("Unknown", "u-1")]
    })
    assert.deepStrictEqual(syncReport(first), {
      providers: { added: 1, changed: 0, absent: 0 },
      games: { added: 2, changed: 0, absent: 0 }
    }, "a game of a provider nobody listed is left out")
    const stored = {
      providers: [...first.providers.added],
      games: [...first.games.added]
    }
    assert.deepStrictEqual(
      syncReport(catalogChanges(stored, { providers: [provider("A")], games: [game("A", "a-1"), game("A", "a-2")] })),
      { providers: { added: 0, changed: 0, absent: 0 }, games: { added: 0, changed: 0, absent: 0 } }
    )
    const next = catalogChanges(stored, { providers: [provider("A")], games: [game("A", "a-1", "Renamed")] })
    assert.deepStrictEqual(next.games.changed.map((g) => g.name), ["Renamed"])
    assert.deepStrictEqual(next.games.absent.map((g) => [g.gameCode, g.presentUpstream]), [["a-2", false]])
    // Listed again, an absent game is a change (it is back), not an addition.
    const back = catalogChanges(
      { ...stored, games: [stored.games[0], { ...stored.games[1], presentUpstream: false }] },
      {
        providers: [provider("A")],
        games: [game("A", "a-1"), game("A", "a-2")]
      }
    )
    assert.deepStrictEqual(syncReport(back).games, { added: 0, changed: 1, absent: 0 })
  })

  it("a provider the aggregator stops listing is absent once, not again at every sync", () => {
    const stored = catalogChanges({ providers: [], games: [] }, {
      providers: [provider("A"), provider("B")],
      games: []
    })
    const gone = catalogChanges({ providers: stored.providers.added, games: [] }, {
      providers: [provider("A")],
      games: []
    })
    assert.deepStrictEqual(gone.providers.absent.map((p) => p.upstreamCode), ["B"])
    const again = catalogChanges({ providers: [stored.providers.added[0], ...gone.providers.absent], games: [] }, {
      providers: [provider("A")],
      games: []
    })
    assert.strictEqual(syncReport(again).providers.absent, 0)
  })
})

layer(
  CasinoCatalog.layerNoDeps.pipe(
    Layer.provideMerge(Layer.merge(CasinoCatalogRepoMemory.layerMemory, CasinoStudioRepo.layerMemory)),
    Layer.provide(Layer.succeed(CasinoConfig, testCasinoConfig({ catalogCacheTtl: Duration.minutes(5) })))
  )
)("the casino catalog over its repository in memory", (it) => {
  it.effect("a sync is visible at once, cache or not, and the operator's switch survives the next sync", () =>
    Effect.gen(function*() {
      const catalog = yield* CasinoCatalog
      const snapshot = { providers: [provider("Alpha Games")], games: [game("Alpha Games", "a-1", "Alpha One")] }
      assert.isTrue(yield* catalog.isEmpty)
      yield* catalog.sync("sandbox", snapshot)
      assert.deepStrictEqual((yield* catalog.enabledProviders).map((p) => p.slug), ["alpha-games"])
      const before = yield* catalog.findGame("alpha-games", "a-1")
      assert.isTrue(Option.isSome(before) && before.value.enabled)

      yield* catalog.setGameEnabled("alpha-games", "a-1", false)
      yield* catalog.sync("sandbox", snapshot)
      const after = yield* catalog.findGame("alpha-games", "a-1")
      assert.isTrue(Option.isSome(after) && !after.value.enabled, "the cached answer was forgotten, the switch kept")

      yield* catalog.sync("sandbox", { providers: [], games: [] })
      assert.deepStrictEqual(yield* catalog.enabledProviders, [], "a provider no longer listed is not offered")
      const unknown = yield* Effect.flip(catalog.setProviderEnabled("no-such", true))
      assert.strictEqual(unknown._tag, "UnknownProvider")
    }))
})
