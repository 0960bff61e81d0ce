import { assert, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CasinoGateway } from "../../src/casino/CasinoGateway.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { sandboxCasinoCatalog } from "../../src/integrations/sandbox/SandboxCasinoCatalog.ts"
import { live } from "../support/live.ts"
import { request, TestApp } from "../support/TestApp.ts"

const brl = knownCurrency("BRL")!

it("the sandbox catalog is the same on every start: a dozen providers, hundreds of games, a few disabled", () => {
  const first = sandboxCasinoCatalog()
  const second = sandboxCasinoCatalog()
  assert.deepStrictEqual(first, second)
  assert.strictEqual(first.providers.length, 12)
  assert.isAtLeast(first.games.length, 300)
  const disabled = first.games.filter((game) => !game.enabled).length
  assert.isAbove(disabled, 0)
  assert.isBelow(disabled, first.games.length / 10)
  const keys = new Set(first.games.map((game) => `${game.providerCode}/${game.code}`))
  assert.strictEqual(keys.size, first.games.length, "codes are unique per provider")
  for (const game of first.games) assert.match(game.imageUrl!, /^\/sandbox\/casino\/art\/.+\.svg$/)
})

layer(TestApp(), live)("the sandbox aggregator", (it) => {
  it.effect("launches into a session whose page shows the game, the player and the balance", () =>
    Effect.gen(function*() {
      const gateway = yield* CasinoGateway
      assert.deepStrictEqual([gateway.name, gateway.configured], ["sandbox", true])
      const game = sandboxCasinoCatalog().games.find((g) => g.enabled && g.providerCode === "Nordic Spin")!
      const session = yield* gateway.launch({
        userCode: 100777,
        gameCode: game.code,
        providerCode: game.providerCode,
        balance: 123_450n,
        currency: brl,
        original: true,
        lang: "en",
        rtp: undefined,
        playerName: "Joana <Dealer>",
        platform: "desktop",
        country: undefined
      })
      const page = yield* request("GET", new URL(session.url).pathname)
      assert.strictEqual(page.status, 200)
      assert.include(page.body, "1234.50 BRL")
      assert.include(page.body, "Joana &lt;Dealer&gt;", "the player's name is escaped")
      assert.include(page.body, "Nordic Spin")
      assert.include(page.body, game.name)
      assert.include(page.body, "/sandbox/casino/art/")
    }))

  it.effect("refuses a disabled game, as an aggregator would", () =>
    Effect.gen(function*() {
      const disabled = sandboxCasinoCatalog().games.find((g) => !g.enabled)!
      const error = yield* Effect.flip((yield* CasinoGateway).launch({
        userCode: 1,
        gameCode: disabled.code,
        providerCode: disabled.providerCode,
        balance: 1n,
        currency: brl,
        original: true,
        lang: "pt",
        rtp: undefined,
        playerName: null,
        platform: "desktop",
        country: undefined
      }))
      assert.strictEqual(error.reason, "Rejected")
    }))

  it.effect("serves the catalog's art as SVG, and a friendly 404 page for an unknown session", () =>
    Effect.gen(function*() {
      const game = sandboxCasinoCatalog().games[0]
      const art = yield* request("GET", `/sandbox/casino/art/${game.code}.svg`)
      assert.strictEqual(art.status, 200)
      assert.include(art.contentType, "image/svg+xml")
      assert.include(art.body, game.name.split(" ")[0])
      const missing = yield* request("GET", "/sandbox/casino/play/no-such-session")
      assert.strictEqual(missing.status, 404)
      assert.include(missing.contentType, "text/html")
      assert.include(missing.body, "does not exist")
    }))
})
