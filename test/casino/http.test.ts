/**
 * The casino group's contract rules, in memory (HttpApiTest over the memory repositories): the
 * envelope, the listings' filters and paging, the launch's refusals and its answer. The SQL behind
 * them (ordering, search, the `_status` views) is catalog.test.ts's; the launch against an
 * aggregator over HTTP is launch.test.ts's and launch-playfiver.test.ts's.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { InternalError, Unauthorized, ValidationFailed } from "../../src/api/Errors.ts"
import type { LaunchRequest } from "../../src/api/Casino.ts"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import type { UpstreamGame, UpstreamProvider } from "../../src/casino/CasinoGateway.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { memoryClient, MemoryPartnerApi, unlaunchableGame } from "../support/MemoryPartnerApi.ts"
import { failsWith } from "../support/PartnerClient.ts"
import { givenPartner } from "../support/TestApp.ts"

const provider = (code: string, enabled = true): UpstreamProvider => ({ code, name: code, enabled, imageUrl: null })
const game = (providerCode: string, code: string, name: string, enabled = true): UpstreamGame => ({
  code,
  name,
  providerCode,
  enabled,
  original: true,
  imageUrl: `https://img.example/${code}.png`
})

const snapshot = {
  providers: [provider("Alpha Games"), provider("Beta Studio"), provider("Closed Co", false)],
  games: [
    game("Alpha Games", "a-1", "Alpha One"),
    game("Alpha Games", "a-2", "Alpha Two"),
    game("Alpha Games", unlaunchableGame, "Alpha Zero"),
    game("Beta Studio", "b-1", "Beta Fortune"),
    game("Beta Studio", "b-2", "Beta Gold", false),
    game("Closed Co", "c-1", "Closed One")
  ]
}

const givenCatalog = Effect.flatMap(Effect.service(CasinoCatalog), (catalog) => catalog.sync("sandbox", snapshot))

const launchBody = (overrides: Partial<LaunchRequest> = {}): LaunchRequest => ({
  external_player_id: "player-1",
  player_name: "Ana Souza",
  player_email: "ana@example.com",
  player_balance: "150.50",
  provider: "alpha-games",
  game_code: "a-1",
  ...overrides
})

layer(MemoryPartnerApi())("casino group, in memory", (it) => {
  it.effect("the envelope: success, the partner's summary, the data", () =>
    Effect.gen(function*() {
      yield* givenCatalog
      const { partner, token } = yield* givenPartner({ name: "Acme Bets", slug: "acme-casino" })
      const response = yield* (yield* memoryClient(token)).casino.providers()
      assert.isTrue(response.success)
      assert.deepStrictEqual(response.partner, {
        id: partner.id,
        name: "Acme Bets",
        slug: "acme-casino",
        status: "active",
        environment: "live"
      })
    }))

  it.effect("an unknown token is refused before any listing", () =>
    Effect.gen(function*() {
      const error = yield* failsWith(Unauthorized)(
        (yield* memoryClient("pak_unknown_token_of_shape_0000")).casino.providers()
      )
      assert.strictEqual(error.message, "Parceiro invalido ou inativo.")
    }))

  describe("GET /providers and GET /games", () => {
    it.effect("/providers lists the enabled providers (on the wire {provider, provider_id, name})", () =>
      Effect.gen(function*() {
        yield* givenCatalog
        const catalog = yield* CasinoCatalog
        const { token } = yield* givenPartner()
        const { data } = yield* (yield* memoryClient(token)).casino.providers()
        const id = (slug: string) => Effect.map(catalog.findProvider(slug), (p) => Option.getOrThrow(p).id)
        assert.deepStrictEqual(data.list, [
          { provider: "alpha-games", provider_id: yield* id("alpha-games"), name: "Alpha Games" },
          { provider: "beta-studio", provider_id: yield* id("beta-studio"), name: "Beta Studio" }
        ])
      }))

    it.effect("/games filters by provider id or slug; an unknown provider is a 422 naming it", () =>
      Effect.gen(function*() {
        yield* givenCatalog
        const { id } = Option.getOrThrow(yield* (yield* CasinoCatalog).findProvider("beta-studio"))
        const { token } = yield* givenPartner()
        const client = yield* memoryClient(token)
        for (const provider of [String(id), "beta-studio", " beta-studio "]) {
          const { data } = yield* client.casino.games({ query: { provider } })
          assert.deepStrictEqual(data.games.map((g) => g.game_code), ["b-1", "b-2"])
          assert.strictEqual(data.meta.total, 2)
        }
        for (const provider of ["nobody", "999999", "pragmatic-play"]) {
          const unknown = yield* failsWith(ValidationFailed)(client.casino.games({ query: { provider } }))
          assert.strictEqual(unknown.message, "The given data was invalid.", provider)
          assert.deepStrictEqual(unknown.errors, { provider: ["The selected provider is invalid."] }, provider)
        }
        // A provider the catalog keeps is known, disabled or not: its games are listed (flagged), never a 422.
        const closed = yield* client.casino.games({ query: { provider: "closed-co" } })
        assert.deepStrictEqual(closed.data.games.map((g) => [g.game_code, g.enabled]), [["c-1", false]])
        // No provider (or only spaces) is no filter.
        const all = yield* client.casino.games({ query: { provider: "  " } })
        assert.strictEqual(all.data.meta.total, 6)
      }))

    it.effect("/games answers the contract's fields, disabled games flagged, and filters on enabled", () =>
      Effect.gen(function*() {
        yield* givenCatalog
        const { token } = yield* givenPartner()
        const client = yield* memoryClient(token)
        const beta = yield* client.casino.games({ query: { provider: "beta-studio" } })
        assert.deepStrictEqual(beta.data.games[1], {
          game_code: "b-2",
          provider: "beta-studio",
          provider_id: beta.data.games[0].provider_id,
          name: "Beta Gold",
          enabled: false,
          image_url: "https://img.example/b-2.png",
          original: true
        })
        const enabled = yield* client.casino.games({ query: { provider: "beta-studio", enabled: "true" } })
        assert.deepStrictEqual(enabled.data.games.map((g) => g.game_code), ["b-1"])
        const disabled = yield* client.casino.games({ query: { enabled: "false" } })
        assert.deepStrictEqual(disabled.data.games.map((g) => g.game_code).sort(), ["b-2", "c-1"])
      }))

    it.effect("/games paging: 50 by default, a per_page above 200 means 200, a page past the end is empty", () =>
      Effect.gen(function*() {
        yield* givenCatalog
        const { token } = yield* givenPartner()
        const client = yield* memoryClient(token)
        const games = (query: { readonly page?: number; readonly per_page?: number }) => client.casino.games({ query })
        assert.deepStrictEqual((yield* games({})).data.meta, { page: 1, per_page: 50, total: 6 })
        assert.deepStrictEqual((yield* games({ per_page: 500 })).data.meta, { page: 1, per_page: 200, total: 6 })
        const second = yield* games({ page: 2, per_page: 4 })
        assert.deepStrictEqual([second.data.meta, second.data.games.length], [{ page: 2, per_page: 4, total: 6 }, 2])
        const beyond = yield* games({ page: 99, per_page: 3 })
        assert.deepStrictEqual(beyond.data, { games: [], meta: { page: 99, per_page: 3, total: 6 } })
      }))
  })

  describe("POST /launch", () => {
    it.effect("answers the launch URL and the partner's player, balance in currency units", () =>
      Effect.gen(function*() {
        yield* givenCatalog
        const { token } = yield* givenPartner()
        const client = yield* memoryClient(token)
        const { data } = yield* client.casino.launch({ payload: launchBody() })
        assert.deepStrictEqual(data, {
          launch: {
            url: `https://play.example/${data.partner_player.internal_user_id}/a-1`,
            rtp: { policy: { mode: "pass" }, requested: null, applied: null }
          },
          partner_player: {
            id: data.partner_player.id,
            external_player_id: "player-1",
            internal_user_id: data.partner_player.internal_user_id,
            balance: 150.5,
            currency: "BRL"
          }
        })
        const again = yield* client.casino.launch({ payload: launchBody({ player_balance: "20.00" }) })
        assert.deepStrictEqual(
          [again.data.partner_player.id, again.data.partner_player.balance],
          [data.partner_player.id, 20]
        )
      }))

    it.effect("422 on the game: unknown code, unknown provider, disabled by the operator or through its provider", () =>
      Effect.gen(function*() {
        yield* givenCatalog
        const catalog = yield* CasinoCatalog
        const { partner, token } = yield* givenPartner()
        const client = yield* memoryClient(token)
        const refusal = (payload: LaunchRequest) =>
          Effect.map(failsWith(ValidationFailed)(client.casino.launch({ payload })), (refused) => refused.errors)
        const disabled = { game_code: ["The selected game is disabled."] }

        assert.deepStrictEqual(yield* refusal(launchBody({ game_code: "b-1" })), {
          game_code: ["The selected game code is invalid for this provider."]
        })
        assert.deepStrictEqual(yield* refusal(launchBody({ provider: "no-such-provider" })), {
          provider: ["The selected provider is invalid."]
        })
        assert.deepStrictEqual(yield* refusal(launchBody({ provider: "beta-studio", game_code: "b-2" })), disabled)
        yield* catalog.setGameEnabled("alpha-games", "a-1", false)
        assert.deepStrictEqual(yield* refusal(launchBody()), disabled)
        yield* catalog.setGameEnabled("alpha-games", "a-1", true)
        yield* catalog.setProviderEnabled("alpha-games", false)
        assert.deepStrictEqual(yield* refusal(launchBody()), disabled)
        yield* catalog.setProviderEnabled("alpha-games", true)
        // Refused before the player is written.
        assert.isTrue(Option.isNone(yield* (yield* PartnerPlayers).find(partner.id, "live", "player-1", "BRL")))
      }))

    it.effect("500 with a plain message and the gateway when the aggregator gives no URL", () =>
      Effect.gen(function*() {
        yield* givenCatalog
        const { token } = yield* givenPartner()
        const client = yield* memoryClient(token)
        const failed = yield* failsWith(InternalError)(
          client.casino.launch({ payload: launchBody({ game_code: unlaunchableGame }) })
        )
        assert.strictEqual(failed.message, "The game could not be launched: the casino aggregator is unavailable.")
        assert.strictEqual(failed.provider, "sandbox")
      }))
  })
})
