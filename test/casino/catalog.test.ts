import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import {
  CasinoGateway,
  CasinoGatewayError,
  CasinoGateways,
  type UpstreamGame,
  type UpstreamProvider
} from "../../src/casino/CasinoGateway.ts"
import { CatalogSync } from "../../src/casino/CatalogSync.ts"
import { live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { bearer, dataAs, givenPartner, request, TestApp, validationErrors } from "../support/TestApp.ts"

const provider = (code: string, enabled = true): UpstreamProvider => ({ code, name: code, enabled, imageUrl: null })
const game = (providerCode: string, code: string, name: string, enabled = true): UpstreamGame => ({
  code,
  name,
  providerCode,
  enabled,
  original: true,
  imageUrl: `https://img.example/${code}.png`
})

const baseSnapshot = {
  providers: [provider("Alpha Games"), provider("Beta Studio")],
  games: [
    game("Alpha Games", "a-1", "Alpha One"),
    game("Alpha Games", "a-2", "Alpha Two"),
    game("Beta Studio", "b-1", "Beta Fortune"),
    game("Beta Studio", "B_100%", "Percent Party")
  ]
}

/** Each test starts from an empty catalog (the file shares one database). */
const emptyCatalog = Effect.flatMap(
  Effect.service(SqlClient.SqlClient),
  (sql) => sql`TRUNCATE casino_games, casino_providers RESTART IDENTITY CASCADE`
).pipe(Effect.orDie)

/** GET /games over the wire, for query text the typed client does not send and the fields the wire carries. */
const listGames = (token: string, query: string) =>
  request("GET", `/api/partner/v1/games${query}`, { headers: bearer(token) })

const GamesOnTheWire = Schema.Struct({ games: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)) })

layer(TestApp(), live)("the local casino catalog", (it) => {
  it.effect("a sync adds, changes only what changed, and keeps vanished games as absent (disabled)", () =>
    Effect.gen(function*() {
      yield* emptyCatalog
      const catalog = yield* CasinoCatalog
      const first = yield* catalog.sync("sandbox", baseSnapshot)
      assert.deepStrictEqual(first, {
        providers: { added: 2, changed: 0, absent: 0 },
        games: { added: 4, changed: 0, absent: 0 }
      })
      const again = yield* catalog.sync("sandbox", baseSnapshot)
      assert.deepStrictEqual(again, {
        providers: { added: 0, changed: 0, absent: 0 },
        games: { added: 0, changed: 0, absent: 0 }
      })

      const changed = yield* catalog.sync("sandbox", {
        providers: baseSnapshot.providers,
        games: [
          game("Alpha Games", "a-1", "Alpha One Deluxe"), // renamed
          game("Alpha Games", "a-2", "Alpha Two", false), // disabled upstream
          game("Beta Studio", "b-1", "Beta Fortune"),
          // "B_100%" vanished; a new one arrives
          game("Beta Studio", "b-2", "Beta Two")
        ]
      })
      assert.deepStrictEqual(changed.games, { added: 1, changed: 2, absent: 1 })
      const vanished = yield* catalog.findGame("beta-studio", "B_100%")
      assert.isTrue(vanished._tag === "Some" && !vanished.value.enabled, "kept, not deleted, and disabled")
      const renamed = yield* catalog.findGame("alpha-games", "a-1")
      assert.isTrue(renamed._tag === "Some" && renamed.value.name === "Alpha One Deluxe")

      // It comes back when the aggregator lists it again.
      yield* catalog.sync("sandbox", baseSnapshot)
      const back = yield* catalog.findGame("beta-studio", "B_100%")
      assert.isTrue(back._tag === "Some" && back.value.enabled)
    }))

  it.effect("the operator's switch survives syncs; a provider gone upstream takes its games with it", () =>
    Effect.gen(function*() {
      yield* emptyCatalog
      const catalog = yield* CasinoCatalog
      yield* catalog.sync("sandbox", baseSnapshot)
      yield* catalog.setGameEnabled("alpha-games", "a-1", false)
      yield* catalog.sync("sandbox", baseSnapshot)
      const stillOff = yield* catalog.findGame("alpha-games", "a-1")
      assert.isTrue(stillOff._tag === "Some" && !stillOff.value.enabled)
      yield* catalog.setGameEnabled("alpha-games", "a-1", true)

      const report = yield* catalog.sync("sandbox", {
        providers: [provider("Alpha Games")],
        games: baseSnapshot.games.filter((g) => g.providerCode === "Alpha Games")
      })
      assert.strictEqual(report.providers.absent, 1)
      const providers = yield* catalog.enabledProviders
      assert.deepStrictEqual(providers.map((p) => p.slug), ["alpha-games"])
      const orphan = yield* catalog.findGame("beta-studio", "b-1")
      assert.isTrue(orphan._tag === "Some" && !orphan.value.enabled)
      yield* catalog.sync("sandbox", baseSnapshot)
    }))

  it.effect("two syncs at once neither fail nor duplicate", () =>
    Effect.gen(function*() {
      yield* emptyCatalog
      const catalog = yield* CasinoCatalog
      yield* Effect.all([
        catalog.sync("sandbox", baseSnapshot),
        catalog.sync("sandbox", baseSnapshot),
        catalog.sync("sandbox", baseSnapshot)
      ], {
        concurrency: "unbounded"
      })
      const { total } = yield* catalog.games({ page: 1, perPage: 200 })
      assert.strictEqual(total, 4)
    }))

  it.effect("a sync that fails half-way changes nothing", () =>
    Effect.gen(function*() {
      yield* emptyCatalog
      const catalog = yield* CasinoCatalog
      yield* catalog.sync("sandbox", baseSnapshot)
      const sql = yield* SqlClient.SqlClient
      // Read the tables themselves: the catalog's own reads may be answered from memory.
      const snapshotOfTables = sql`
        SELECT p.upstream_code, p.present_upstream AS provider_present, g.game_code, g.name, g.present_upstream
        FROM casino_providers p LEFT JOIN casino_games g ON g.provider_id = p.id
        ORDER BY p.upstream_code, g.game_code
      `
      const before = yield* snapshotOfTables
      // The second provider's game list fails: nothing of the new snapshot may land.
      const failing = CasinoGateway.of({
        name: "failing",
        configured: true,
        serves: () => true,
        providers: Effect.succeed([provider("Alpha Games"), provider("Gamma New")]),
        games: (p) =>
          p.code === "Gamma New"
            ? Effect.fail(new CasinoGatewayError({ reason: "Unavailable", message: "down" }))
            : Effect.succeed([game("Alpha Games", "a-3", "Alpha Three")]),
        launch: () => Effect.die("unused")
      })
      const error = yield* Effect.flip(
        Effect.flatMap(Effect.service(CatalogSync), (sync) => sync.run).pipe(
          Effect.provide(
            Layer.fresh(CatalogSync.layer).pipe(
              Layer.provide(CasinoGateways.fromGateway(Layer.succeed(CasinoGateway, failing)))
            )
          )
        )
      )
      assert.strictEqual(error.reason, "Unavailable")
      const after = yield* snapshotOfTables
      assert.deepStrictEqual(after, before)
      assert.isTrue((yield* catalog.findProvider("gamma-new"))._tag === "None")
    }))

  describe("GET /games (its SQL: search, and the wire)", () => {
    it.effect("/games search is case-insensitive over name and code, and takes % and _ literally", () =>
      Effect.gen(function*() {
        yield* emptyCatalog
        yield* (yield* CasinoCatalog).sync("sandbox", baseSnapshot)
        const { token } = yield* givenPartner()
        const client = yield* partnerClient(token)
        const codes = (search: string) =>
          Effect.map(
            client.casino.games({ query: { search } }),
            (response) => response.data.games.map((g) => g.game_code)
          )
        assert.deepStrictEqual(yield* codes("FORTUNE"), ["b-1"])
        assert.deepStrictEqual(yield* codes("A-2"), ["a-2"])
        assert.deepStrictEqual(yield* codes("100%"), ["B_100%"])
        assert.deepStrictEqual(yield* codes("_"), ["B_100%"])
        assert.deepStrictEqual(yield* codes("zzz"), [])
      }))

    it.effect("/games answers the contract's fields, and can filter on enabled", () =>
      Effect.gen(function*() {
        yield* emptyCatalog
        const catalog = yield* CasinoCatalog
        yield* catalog.sync("sandbox", baseSnapshot)
        yield* catalog.setGameEnabled("alpha-games", "a-2", false)
        const { token } = yield* givenPartner()
        const client = yield* partnerClient(token)
        const all = yield* client.casino.games({ query: { provider: "alpha-games" } })
        const expected = {
          game_code: "a-2",
          provider: "alpha-games",
          provider_id: all.data.games[1].provider_id,
          name: "Alpha Two",
          enabled: false,
          image_url: "https://img.example/a-2.png",
          original: true
        }
        assert.deepStrictEqual(all.data.games[1], expected)
        // Exactly those fields on the wire, not only those the client's schema keeps.
        const onTheWire = dataAs(GamesOnTheWire)(yield* listGames(token, "?provider=alpha-games"))
        assert.deepStrictEqual(onTheWire.games[1], expected)
        const enabledOnly = yield* client.casino.games({ query: { provider: "alpha-games", enabled: "true" } })
        assert.deepStrictEqual(enabledOnly.data.games.map((g) => g.game_code), ["a-1"])
        // A value outside the contract's two: the typed client cannot send it.
        const bad = yield* listGames(token, "?enabled=maybe")
        assert.strictEqual(bad.status, 422)
        assert.deepStrictEqual(Object.keys(validationErrors(bad)), ["enabled"])
        yield* catalog.setGameEnabled("alpha-games", "a-2", true)
      }))

    it.effect("/games paging: a per_page above 200 means 200; a value that cannot be read is a 422 naming the field", () =>
      Effect.gen(function*() {
        yield* emptyCatalog
        yield* (yield* CasinoCatalog).sync("sandbox", baseSnapshot)
        const { token } = yield* givenPartner()
        const client = yield* partnerClient(token)
        const games = (query: { readonly page?: number; readonly per_page?: number }) => client.casino.games({ query })
        assert.deepStrictEqual((yield* games({})).data.meta, { page: 1, per_page: 50, total: 4 })
        assert.deepStrictEqual((yield* games({ page: 1, per_page: 500 })).data.meta, {
          page: 1,
          per_page: 200,
          total: 4
        })
        // Values the typed client refuses to send: only the wire carries them.
        const unreadable = yield* listGames(token, "?page=abc&per_page=1e2")
        assert.strictEqual(unreadable.status, 422)
        assert.deepStrictEqual(validationErrors(unreadable), {
          page: ["The page field must be an integer."],
          per_page: ["The per page field must be an integer."]
        })
        const outOfRange = yield* listGames(token, "?page=0&per_page=-3")
        assert.deepStrictEqual(validationErrors(outOfRange), {
          page: ["The page field must be between 1 and 1000000."],
          per_page: ["The per page field must be at least 1."]
        })
        const second = yield* games({ page: 2, per_page: 3 })
        assert.deepStrictEqual(second.data.meta, { page: 2, per_page: 3, total: 4 })
        assert.strictEqual(second.data.games.length, 1)
        const beyond = yield* games({ page: 99, per_page: 3 })
        assert.deepStrictEqual(beyond.data, { games: [], meta: { page: 99, per_page: 3, total: 4 } })
      }))
  })
})
