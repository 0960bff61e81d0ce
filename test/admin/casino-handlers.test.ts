import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { randomBytes } from "node:crypto"
import { AdminApi } from "../../src/api/admin/AdminApi.ts"
import { NotFound, SessionForbidden, UpstreamFailed } from "../../src/api/admin/AdminErrors.ts"
import * as AdminAuth from "../../src/admin/http/AdminAuth.ts"
import { AdminCasinoHandlers } from "../../src/admin/http/Casino.ts"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import {
  CasinoGateway,
  CasinoGatewayError,
  CasinoGateways,
  type UpstreamGame,
  type UpstreamProvider
} from "../../src/casino/CasinoGateway.ts"
import { CatalogSync } from "../../src/casino/CatalogSync.ts"
import { CasinoAdmin } from "../../src/changes/CasinoAdmin.ts"
import { CasinoSyncAdmin } from "../../src/changes/CasinoSyncAdmin.ts"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { type AdminSession, asAdmin, givenAdmin, sessionOf } from "../support/AdminConsole.ts"
import { TestConfig } from "../support/TestApp.ts"

/**
 * The console's contract for the casino catalog (providers with the latest syncs, games paged and searched, a
 * provider or game enabled or disabled, a sync and its failure as 502, 404 for an unknown one, a viewer's 403),
 * through the real handlers over the memory catalog and an aggregator that answers at once: no socket, no
 * PostgreSQL. The catalog's SQL and a sync against an aggregator over HTTP are in test/casino.
 */
const aggregator = {
  down: false,
  providers: [{ code: "PGSOFT", name: "PG Soft", enabled: true, imageUrl: null }] as ReadonlyArray<UpstreamProvider>,
  games: [
    {
      code: "fortune-tiger",
      name: "Fortune Tiger",
      providerCode: "PGSOFT",
      enabled: true,
      original: true,
      imageUrl: null
    },
    { code: "fortune-ox", name: "Fortune Ox", providerCode: "PGSOFT", enabled: true, original: true, imageUrl: null },
    {
      code: "mahjong-ways",
      name: "Mahjong Ways",
      providerCode: "PGSOFT",
      enabled: true,
      original: true,
      imageUrl: null
    }
  ] as ReadonlyArray<UpstreamGame>
}
const unavailable = new CasinoGatewayError({ reason: "Unavailable", message: "connection refused at 10.0.0.9" })
const ScriptedAggregator = CasinoGateways.fromGateway(Layer.succeed(
  CasinoGateway,
  CasinoGateway.of({
    name: "sandbox",
    configured: true,
    serves: () => true,
    providers: Effect.suspend(() => aggregator.down ? Effect.fail(unavailable) : Effect.succeed(aggregator.providers)),
    games: (provider) => Effect.succeed(aggregator.games.filter((game) => game.providerCode === provider.code)),
    launch: () => Effect.die("the console launches no game")
  })
))

const InMemoryConsole = AdminCasinoHandlers.pipe(
  Layer.provideMerge(Layer.mergeAll(AdminAuth.layer, RequestValidationLive)),
  Layer.provideMerge(Layer.mergeAll(AdminAccounts.layerMemory, CasinoAdmin.layer, CasinoSyncAdmin.layer)),
  Layer.provideMerge(CatalogSync.layer),
  Layer.provideMerge(Layer.mergeAll(CasinoCatalog.layerMemory, ScriptedAggregator, AuditRepo.layerMemory)),
  Layer.provideMerge(TestConfig()),
  Layer.provideMerge(HttpServer.layerServices)
)

const clientAs = (session: AdminSession) =>
  HttpApiTest.groups(AdminApi, ["casino"]).pipe(Effect.provide(asAdmin(session)))
const as = (role: "operator" | "viewer") =>
  Effect.gen(function*() {
    const email = `${role}-${randomBytes(3).toString("hex")}@example.com`
    yield* givenAdmin(email, role)
    return yield* clientAs(yield* sessionOf(email))
  })

layer(InMemoryConsole)("the console's casino catalog over memory", (it) => {
  it.effect("a sync reports its changes and is listed with the providers; games are paged and searched", () =>
    Effect.gen(function*() {
      const api = yield* as("operator")
      const synced = yield* api.casino.sync()
      assert.isTrue(synced.success)
      const { providers, syncs } = yield* api.casino.providers()
      assert.deepStrictEqual(providers.map((provider) => [provider.name, provider.enabled]), [["PG Soft", true]])
      assert.strictEqual(syncs.length, 1, "the sync is in the trail the page shows")
      assert.match(syncs[0].actor, /\(console\)$/)
      const page = yield* api.casino.games({ query: { per_page: 2 } })
      assert.deepStrictEqual([page.games.length, page.meta], [2, { page: 1, per_page: 2, total: 3 }])
      const found = yield* api.casino.games({ query: { search: "fortune" } })
      assert.deepStrictEqual(found.games.map((game) => game.game_code).sort(), ["fortune-ox", "fortune-tiger"])
    }))

  it.effect("a provider and a game are disabled and enabled again; unknown ones are 404; a viewer changes nothing (403)", () =>
    Effect.gen(function*() {
      const api = yield* as("operator")
      yield* api.casino.sync()
      const provider = (yield* api.casino.providers()).providers[0]
      const off = yield* api.casino.setProvider({ params: { provider: provider.slug, action: "disable" } })
      assert.deepStrictEqual([off.success, off.provider.enabled], [true, false])
      assert.isTrue(
        (yield* api.casino.setProvider({ params: { provider: provider.slug, action: "enable" } })).provider.enabled
      )
      const game = yield* api.casino.setGame({
        params: { provider: provider.slug, game_code: "fortune-ox", action: "disable" }
      })
      assert.deepStrictEqual([game.game.game_code, game.game.enabled], ["fortune-ox", false])
      assert.instanceOf(
        yield* Effect.flip(api.casino.setProvider({ params: { provider: "no-such-provider", action: "enable" } })),
        NotFound
      )
      assert.instanceOf(
        yield* Effect.flip(
          api.casino.setGame({ params: { provider: provider.slug, game_code: "no-such-game", action: "enable" } })
        ),
        NotFound
      )
      const viewer = yield* as("viewer")
      assert.strictEqual((yield* viewer.casino.providers()).providers.length, 1, "a viewer reads")
      const refused = yield* Effect.flip(viewer.casino.sync())
      assert.instanceOf(refused, SessionForbidden)
      assert.strictEqual(refused.message, "Your role (viewer) can read but not change anything.")
    }))

  it.effect("a sync the aggregator cannot answer is 502 saying why, and the catalog is kept", () =>
    Effect.gen(function*() {
      const api = yield* as("operator")
      yield* api.casino.sync()
      aggregator.down = true
      const failed = yield* Effect.flip(api.casino.sync()).pipe(
        Effect.ensuring(Effect.sync(() => aggregator.down = false))
      )
      assert.instanceOf(failed, UpstreamFailed)
      assert.match(failed.message, /^The casino catalog could not be synced: /)
      assert.strictEqual((yield* api.casino.games({ query: {} })).meta.total, 3)
    }))
})
