import { assert, it, layer } from "@effect/vitest"
import { ConfigProvider, Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CasinoGateway } from "../../src/casino/CasinoGateway.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { sandboxCasinoCatalog } from "../../src/integrations/sandbox/SandboxCasinoCatalog.ts"
import { SandboxConfig } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxPartnerWallet.ts"
import { live } from "../support/live.ts"
import { request, TestApp } from "../support/TestApp.ts"

const brl = knownCurrency("BRL")!

const game = sandboxCasinoCatalog().games.find((g) => g.enabled)!

/** Opens a sandbox session and returns its page's path. */
const launchSession = Effect.gen(function*() {
  const launched = yield* (yield* CasinoGateway).launch({
    userCode: 4242,
    gameCode: game.code,
    providerCode: game.providerCode,
    balance: 10n,
    currency: brl,
    original: true,
    lang: "en",
    rtp: undefined,
    playerName: null,
    platform: "desktop",
    country: undefined
  }).pipe(Effect.orDie)
  return new URL(launched.url).pathname
})

/** Makes a session `hours` old, as if it had been opened then. */
const age = (path: string, hours: number) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) =>
      sql`UPDATE sandbox_casino_sessions SET created_at = now() - make_interval(hours => ${hours})
        WHERE id = ${path.split("/").at(-1)!}`
  )

it.effect("a game session lasts 24 hours unless SANDBOX_SESSION_TTL says otherwise", () =>
  Effect.gen(function*() {
    const read = (env: Record<string, string>) =>
      Effect.map(SandboxConfig.config, (config) => config).pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
      )
    assert.isTrue(Duration.equals((yield* read({})).sessionTtl, Duration.hours(24)))
    assert.isTrue(Duration.equals((yield* read({ SANDBOX_SESSION_TTL: "2 hours" })).sessionTtl, Duration.hours(2)))
  }))

layer(TestApp(), live)("sandbox game sessions, by default", (it) => {
  it.effect("a launch URL opens its game for a day, then is a session that does not exist", () =>
    Effect.gen(function*() {
      const path = yield* launchSession
      yield* age(path, 23)
      assert.strictEqual((yield* request("GET", path)).status, 200, "a session of 23 hours is open")
      yield* age(path, 25)
      const page = yield* request("GET", path)
      assert.strictEqual(page.status, 404)
      assert.include(page.body, "does not exist")
      const spin = yield* request("POST", `${path}/spin`, { json: { bet: 1 } })
      assert.deepStrictEqual([spin.status, spin.body], [404, { message: "This game session does not exist." }])
      assert.strictEqual((yield* request("GET", `${path}/callbacks`)).status, 404)
    }))

  it.effect("expired sessions are removed at the next launch; open ones stay", () =>
    Effect.gen(function*() {
      const old = yield* launchSession
      const recent = yield* launchSession
      yield* age(old, 30)
      yield* launchSession
      const sql = yield* SqlClient.SqlClient
      const ids = (yield* sql<{ id: string }>`SELECT id FROM sandbox_casino_sessions`).map((row) => row.id)
      assert.notInclude(ids, old.split("/").at(-1))
      assert.include(ids, recent.split("/").at(-1))
    }))
})

layer(TestApp({ sandbox: { sessionTtl: Duration.minutes(30) } }), live)(
  "sandbox game sessions, SANDBOX_SESSION_TTL=30m",
  (it) => {
    it.effect("a session an hour old is closed", () =>
      Effect.gen(function*() {
        const path = yield* launchSession
        assert.strictEqual((yield* request("GET", path)).status, 200)
        yield* age(path, 1)
        assert.strictEqual((yield* request("GET", path)).status, 404)
      }))
  }
)

layer(TestApp({ casino: { gateways: ["playfiver"] } }), live)("the sandbox's routes with a real aggregator", (it) => {
  it.effect("are mounted all the same: test launches play on the sandbox whatever CASINO_GATEWAY says", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* request("GET", `/sandbox/casino/art/${game.code}.svg`)).status, 200)
      for (
        const [method, path] of [
          ["GET", "/sandbox/casino/play/some-session"],
          ["POST", "/sandbox/casino/play/some-session/spin"],
          ["GET", "/sandbox/casino/play/some-session/callbacks"]
        ] as const
      ) {
        const answer = yield* request(method, path, method === "POST" ? { json: {} } : {})
        assert.strictEqual(answer.status, 404, path)
        assert.notDeepEqual(answer.body, { success: false, message: "Route not found." }, path)
      }
      assert.strictEqual((yield* request("POST", sandboxPartnerWalletPath, { json: {} })).status, 400)
    }))
})

layer(TestApp({ sandbox: { maxSpinsPerSession: 2 } }), live)("sandbox spins", (it) => {
  it.effect("a spin's transaction id tells nothing of its session (the game URL's secret); a session's spins are limited", () =>
    Effect.gen(function*() {
      const path = yield* launchSession
      const session = path.split("/").at(-1)!
      const ids: Array<string> = []
      for (let i = 0; i < 2; i++) {
        const spin = yield* request("POST", `${path}/spin`, { json: { bet: 1 } })
        assert.strictEqual(spin.status, 200)
        ids.push((spin.body as { txn_id: string }).txn_id)
      }
      for (const id of ids) {
        assert.match(id, /^sbx-[A-Za-z0-9_-]{16,}$/)
        assert.notInclude(id, session)
      }
      assert.notStrictEqual(ids[0], ids[1])
      const over = yield* request("POST", `${path}/spin`, { json: { bet: 1 } })
      assert.strictEqual(over.status, 429, "SANDBOX_MAX_SPINS_PER_SESSION spins, then none")
      assert.include((over.body as { message: string }).message, "launch the game again")
    }))
})
