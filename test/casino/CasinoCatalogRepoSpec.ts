import { assert, type Vitest } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { randomBytes } from "node:crypto"
import { CasinoCatalogRepo } from "../../src/casino/CasinoCatalogRepo.ts"
import type { CatalogChanges, GameRecord, ProviderRecord } from "../../src/casino/CasinoCatalogRules.ts"

/**
 * What CasinoCatalogRepo promises, whichever form keeps it: run over PostgreSQL (layerSql) and over memory
 * (layerMemory) by casino-catalog-repo.test.ts, so the twin the handler specs and the catalog's service tests stand
 * on answers as the SQL does. The file's tests share the layer's rows: each writes providers of its own codes and
 * slugs, and reads the games of its own providers.
 */
export const casinoCatalogRepoSpec = (it: Vitest.MethodsNonLive<CasinoCatalogRepo>) => {
  const unique = () => randomBytes(4).toString("hex")
  const provider = (tag: string, name: string, fields: Partial<ProviderRecord> = {}): ProviderRecord => ({
    upstreamCode: `${name.toUpperCase().replace(/\W/g, "")}-${tag}`,
    slug: `${name.toLowerCase().replace(/\W/g, "-")}-${tag}`,
    name: `${name} ${tag}`,
    imageUrl: null,
    upstreamEnabled: true,
    presentUpstream: true,
    ...fields
  })
  const game = (of: ProviderRecord, gameCode: string, name: string, fields: Partial<GameRecord> = {}): GameRecord => ({
    providerCode: of.upstreamCode,
    gameCode,
    name,
    imageUrl: `https://img.example/${gameCode}.png`,
    original: true,
    upstreamEnabled: true,
    presentUpstream: true,
    ...fields
  })
  const added = (
    providers: ReadonlyArray<ProviderRecord>,
    games: ReadonlyArray<GameRecord> = []
  ): CatalogChanges => ({
    providers: { added: providers, changed: [], absent: [] },
    games: { added: games, changed: [], absent: [] }
  })
  // What a sync stored comes back in no particular order: read in one.
  const byCode = (rows: ReadonlyArray<ProviderRecord>) =>
    rows.toSorted((a, b) => a.upstreamCode.localeCompare(b.upstreamCode))
  const byGame = (rows: ReadonlyArray<GameRecord>) =>
    rows.toSorted((a, b) => `${a.providerCode}/${a.gameCode}`.localeCompare(`${b.providerCode}/${b.gameCode}`))
  const storedOf = (tag: string) =>
    Effect.map(Effect.flatMap(Effect.service(CasinoCatalogRepo), (repo) => repo.stored("sandbox")), (stored) => ({
      providers: byCode(stored.providers.filter((row) => row.upstreamCode.endsWith(tag))),
      games: byGame(stored.games.filter((row) => row.providerCode.endsWith(tag)))
    }))
  const gameOf = (providerRef: string, gameCode: string) =>
    Effect.map(
      Effect.flatMap(Effect.service(CasinoCatalogRepo), (repo) => repo.findGame(providerRef, gameCode, [])),
      Option.getOrThrow
    )

  it.effect("a sync's rows are stored as written, and read as partners see them: enabled only when listed, active and under an enabled provider", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoCatalogRepo
      const tag = unique()
      const pg = provider(tag, "PG Soft", { imageUrl: "https://img.example/pg.png" })
      const quiet = provider(tag, "Quiet Games", { upstreamEnabled: false })
      const tiger = game(pg, "126", "Fortune Tiger")
      const ox = game(pg, "98", "Fortune Ox", { original: false, imageUrl: null })
      const hush = game(quiet, "q-1", "Hush")
      const stray = game(provider(tag, "Unknown"), "x-1", "Stray")
      yield* repo.write("sandbox", added([pg, quiet], [tiger, ox, hush, stray]))
      assert.isFalse(yield* repo.isEmpty)
      assert.deepStrictEqual(yield* storedOf(tag), {
        providers: byCode([pg, quiet]),
        games: byGame([tiger, ox, hush])
      }, "a game of a provider the catalog does not know is left out")

      const mine = <A extends { readonly upstreamCode: string }>(all: ReadonlyArray<A>) =>
        all.filter((one) => one.upstreamCode.endsWith(tag))
      const listed = mine(yield* repo.providers(false, []))
      assert.deepStrictEqual(
        listed.map((one) => [one.slug, one.name, one.upstreamCode, one.enabled]),
        [[pg.slug, pg.name, pg.upstreamCode, true], [quiet.slug, quiet.name, quiet.upstreamCode, false]]
      )
      assert.deepStrictEqual(mine(yield* repo.providers(true, [])).map((one) => one.slug), [pg.slug])
      const found = Option.getOrThrow(yield* repo.findProvider(pg.slug, []))
      assert.deepStrictEqual(found, listed[0])
      assert.deepStrictEqual(Option.getOrThrow(yield* repo.findProvider(String(found.id), [])), found)
      assert.deepStrictEqual(Option.getOrThrow(yield* repo.findProvider(`00${found.id}`, [])), found, "an id's zeros")
      assert.isTrue(Option.isNone(yield* repo.findProvider(`none-${tag}`, [])))

      const read = yield* gameOf(String(found.id), "126")
      assert.deepStrictEqual(
        [read.gameCode, read.name, read.providerId, read.providerSlug, read.providerUpstreamCode, read.enabled],
        ["126", "Fortune Tiger", found.id, pg.slug, pg.upstreamCode, true]
      )
      assert.deepStrictEqual([read.imageUrl, read.original], [tiger.imageUrl, true])
      assert.deepStrictEqual(yield* gameOf(pg.slug, "126"), read)
      const oxRead = yield* gameOf(pg.slug, "98")
      assert.deepStrictEqual([oxRead.imageUrl, oxRead.original], [null, false])
      assert.isFalse((yield* gameOf(quiet.slug, "q-1")).enabled, "its provider is not enabled")
      assert.isTrue(Option.isNone(yield* repo.findGame(pg.slug, "x-1", [])))
      assert.isTrue(Option.isNone(yield* repo.findGame(quiet.slug, "126", [])), "a game is its provider's")
    }))

  it.effect("a later sync changes a row's facts but keeps its id, its slug and the operator's switch; an absent row is kept, disabled", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoCatalogRepo
      const tag = unique()
      const pg = provider(tag, "PG Soft")
      const tiger = game(pg, "126", "Fortune Tiger")
      const ox = game(pg, "98", "Fortune Ox")
      yield* repo.write("sandbox", added([pg], [tiger, ox]))
      const before = Option.getOrThrow(yield* repo.findProvider(pg.slug, []))
      const tigerBefore = yield* gameOf(pg.slug, "126")
      yield* repo.setGameEnabled(pg.slug, "126", false)

      const renamed = { ...pg, slug: `renamed-${tag}`, name: `PG Soft Renamed ${tag}` }
      yield* repo.write("sandbox", {
        providers: { added: [], changed: [renamed], absent: [] },
        games: {
          added: [],
          changed: [{ ...tiger, name: "Fortune Tiger II", original: false }],
          absent: [{ ...ox, presentUpstream: false }]
        }
      })
      const after = Option.getOrThrow(yield* repo.findProvider(pg.slug, []))
      assert.deepStrictEqual([after.id, after.slug, after.name], [before.id, pg.slug, renamed.name])
      assert.isTrue(Option.isNone(yield* repo.findProvider(renamed.slug, [])), "a slug is given once, for good")
      const tigerAfter = yield* gameOf(pg.slug, "126")
      assert.deepStrictEqual(
        [tigerAfter.id, tigerAfter.name, tigerAfter.original, tigerAfter.enabled],
        [tigerBefore.id, "Fortune Tiger II", false, false]
      )
      assert.isFalse((yield* gameOf(pg.slug, "98")).enabled, "absent upstream")
      assert.deepStrictEqual((yield* storedOf(tag)).games.map((row) => [row.gameCode, row.presentUpstream]), [
        ["126", true],
        ["98", false]
      ])
    }))

  it.effect("the operator's switch: a provider off takes its games off with it; a game has its own; nothing to switch is none", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoCatalogRepo
      const tag = unique()
      const pg = provider(tag, "PG Soft")
      yield* repo.write("sandbox", added([pg], [game(pg, "126", "Fortune Tiger"), game(pg, "98", "Fortune Ox")]))
      const id = Option.getOrThrow(yield* repo.findProvider(pg.slug, [])).id

      const off = Option.getOrThrow(yield* repo.setProviderEnabled(String(id), false))
      assert.deepStrictEqual([off.id, off.enabled], [id, false])
      assert.deepStrictEqual(
        [(yield* gameOf(pg.slug, "126")).enabled, (yield* gameOf(pg.slug, "98")).enabled],
        [false, false]
      )
      assert.isTrue(Option.getOrThrow(yield* repo.setProviderEnabled(pg.slug, true)).enabled)
      const game98 = Option.getOrThrow(yield* repo.setGameEnabled(String(id), "98", false))
      assert.deepStrictEqual([game98.gameCode, game98.enabled], ["98", false])
      assert.deepStrictEqual(
        [(yield* gameOf(pg.slug, "126")).enabled, (yield* gameOf(pg.slug, "98")).enabled],
        [true, false]
      )
      assert.isTrue(Option.getOrThrow(yield* repo.setGameEnabled(pg.slug, "98", true)).enabled)
      assert.isTrue(Option.isNone(yield* repo.setProviderEnabled(`none-${tag}`, false)))
      assert.isTrue(Option.isNone(yield* repo.setGameEnabled(pg.slug, "no-such-game", false)))
      assert.isTrue(Option.isNone(yield* repo.setGameEnabled(`none-${tag}`, "98", false)))
    }))

  it.effect("games are paged in order (provider, name as people read numbers, code), by provider id or slug, search and enabled", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoCatalogRepo
      const tag = unique()
      const first = provider(tag, "Alpha Studio")
      const second = provider(tag, "Beta Studio")
      yield* repo.write(
        "sandbox",
        added([first, second], [
          game(first, "g-10", "Game 10"),
          game(first, "g-9", "Game 9"),
          game(first, "b-1", "beta"),
          game(first, "a-1", "Alpha"),
          game(first, "p-1", "100% Gold", { upstreamEnabled: false }),
          game(first, "u-1", "Under_Score"),
          game(second, "s-1", "Second")
        ])
      )
      const firstId = Option.getOrThrow(yield* repo.findProvider(first.slug, [])).id
      const page = (query: Partial<Parameters<typeof repo.games>[0]>) =>
        Effect.map(repo.games({ page: 1, perPage: 50, provider: first.slug, ...query }, []), (found) => ({
          codes: found.games.map((one) => one.gameCode),
          total: found.total
        }))

      assert.deepStrictEqual(yield* page({}), {
        codes: ["p-1", "a-1", "b-1", "g-9", "g-10", "u-1"],
        total: 6
      })
      assert.deepStrictEqual(yield* page({ provider: String(firstId), page: 2, perPage: 4 }), {
        codes: ["g-10", "u-1"],
        total: 6
      })
      assert.deepStrictEqual(yield* page({ page: 3, perPage: 4 }), { codes: [], total: 6 })
      assert.deepStrictEqual(yield* page({ search: "  GAME " }), { codes: ["g-9", "g-10"], total: 2 })
      assert.deepStrictEqual(yield* page({ search: "g-1" }), { codes: ["g-10"], total: 1 }, "in the code too")
      assert.deepStrictEqual(yield* page({ search: "%" }), { codes: ["p-1"], total: 1 }, "% taken literally")
      assert.deepStrictEqual(yield* page({ search: "a_1" }), { codes: [], total: 0 }, "_ taken literally")
      assert.deepStrictEqual(yield* page({ search: "der_sc" }), { codes: ["u-1"], total: 1 })
      assert.deepStrictEqual(yield* page({ enabled: false }), { codes: ["p-1"], total: 1 })
      assert.strictEqual((yield* page({ enabled: true })).total, 5)
      assert.deepStrictEqual(yield* page({ provider: second.slug }), { codes: ["s-1"], total: 1 })
      assert.deepStrictEqual(yield* page({ provider: `none-${tag}` }), { codes: [], total: 0 })
      const everyone = yield* repo.games({ page: 1, perPage: 200, search: tag }, [])
      assert.deepStrictEqual(everyone, { games: [], total: 0 }, "the search reads games, not their providers")
      const both = yield* repo.games({ page: 1, perPage: 200, search: "second" }, [])
      assert.isTrue(both.games.some((one) => one.gameCode === "s-1" && one.providerSlug === second.slug))
    }))

  it.effect("a sync is all or nothing: one that fails keeps none of its rows", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoCatalogRepo
      const tag = unique()
      const pg = provider(tag, "PG Soft")
      yield* repo.write("sandbox", added([pg], [game(pg, "126", "Fortune Tiger")]))
      const failed = yield* Effect.exit(repo.syncing(Effect.gen(function*() {
        yield* repo.write("sandbox", {
          providers: { added: [provider(tag, "Later")], changed: [{ ...pg, name: "Changed" }], absent: [] },
          games: { added: [game(pg, "98", "Fortune Ox")], changed: [], absent: [] }
        })
        return yield* Effect.fail("the aggregator went away")
      })))
      assert.isTrue(Exit.isFailure(failed))
      const stored = yield* storedOf(tag)
      assert.deepStrictEqual(stored.providers, [pg])
      assert.deepStrictEqual(stored.games.map((row) => row.gameCode), ["126"])
    }))

  it.effect("a slug held by another provider is refused, and the write with it keeps nothing", () =>
    Effect.gen(function*() {
      const repo = yield* CasinoCatalogRepo
      const tag = unique()
      const pg = provider(tag, "PG Soft")
      yield* repo.write("sandbox", added([pg]))
      const impostor = { ...provider(tag, "Impostor"), slug: pg.slug }
      const refused = yield* Effect.exit(repo.write("sandbox", added([provider(tag, "Fine"), impostor])))
      assert.isTrue(Exit.hasDies(refused))
      assert.deepStrictEqual((yield* storedOf(tag)).providers, [pg])
    }))
}
