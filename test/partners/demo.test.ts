import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Console, Effect, Option, Redacted, Result } from "effect"
import { SqlClient } from "effect/sql"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxPartnerWallet.ts"
import { ensureDemoPartner } from "../../src/partners/DemoPartner.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { AppConfig } from "../../src/platform/AppConfig.ts"
import { live } from "../support/live.ts"
import { TestServices } from "../support/TestApp.ts"

const token = "pak_demo_test_0000000000000000000000000000000000"

/** Runs the start-up step and returns what it printed on stderr. */
const ensureDemoPartnerPrinting = Effect.gen(function*() {
  const printed: Array<string> = []
  const console: Console.Console = {
    ...globalThis.console,
    error: (...args: Array<unknown>) => printed.push(args.join(" "))
  }
  yield* ensureDemoPartner.pipe(Effect.provideService(Console.Console, console))
  return printed.join("\n")
})

layer(
  TestServices({
    app: { demoPartnerToken: Option.some(Redacted.make(token)), publicUrl: Option.some("http://demo.example") }
  }),
  live
)("the demo partner with DEMO_PARTNER_TOKEN", (it) => {
  it.effect("holds DEMO_PARTNER_TOKEN and, on the sandbox, pays through the sandbox's own wallet", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* ensureDemoPartnerPrinting, "", "a token the operator chose is not printed")
      const partners = yield* Partners
      const demo = yield* partners.show("demo")
      assert.strictEqual(demo.callbackUrl, `http://demo.example${sandboxPartnerWalletPath}`)
      assert.isTrue(Option.isSome(yield* partners.authenticate(token)))

      // An operator's own choice of callback_url is kept across restarts.
      yield* partners.update("demo", { callbackUrl: "https://operator.example/wallet" }).pipe(Effect.orDie)
      yield* ensureDemoPartner
      assert.strictEqual((yield* partners.show("demo")).callbackUrl, "https://operator.example/wallet")
    }))

  it.effect("a token rotated by an operator stays rotated: DEMO_PARTNER_TOKEN only keys the partner it creates", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const rotated = yield* partners.rotateToken("demo").pipe(Effect.orDie)
      yield* ensureDemoPartner
      assert.isTrue(
        Option.isSome(yield* partners.authenticate(rotated.token)),
        "the operator's new token still opens the API"
      )
      assert.isTrue(Option.isNone(yield* partners.authenticate(token)), "the old one, from the setting, does not")
      // Put back for the other tests, which expect the setting's token.
      yield* partners.rotateToken("demo", "live", token).pipe(Effect.orDie)
    }))

  it.effect("the sandbox wallet URL an earlier start stored (another port) follows this start's address", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        UPDATE partner_environments SET callback_url = ${`http://localhost:8080${sandboxPartnerWalletPath}`}
        FROM partners WHERE id = partner_id AND slug = 'demo' AND environment = 'live'
      `
      yield* ensureDemoPartner
      assert.strictEqual(
        (yield* (yield* Partners).show("demo")).callbackUrl,
        `http://demo.example${sandboxPartnerWalletPath}`
      )
    }))

  it.effect("never re-activates a demo partner an operator deactivated", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      yield* partners.setStatus("demo", "inactive").pipe(Effect.orDie)
      yield* ensureDemoPartner
      assert.strictEqual((yield* partners.show("demo")).status, "inactive")
      const statusOfToken = Effect.map(partners.authenticate(token), Option.map((partner) => partner.status))
      assert.deepStrictEqual(yield* statusOfToken, Option.some("inactive" as const))
      // The operator's own switch still works.
      yield* partners.setStatus("demo", "active").pipe(Effect.orDie)
      assert.deepStrictEqual(yield* statusOfToken, Option.some("active" as const))
    }))
})

layer(
  TestServices({ app: { databaseUrl: Option.some(Redacted.make("postgres://db.example/production")) } }),
  live
)("the demo partner on a database of the operator's (DATABASE_URL)", (it) => {
  it.effect("the first start creates no partner and prints no token", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      assert.strictEqual(yield* partners.count, 0)
      assert.strictEqual(yield* ensureDemoPartnerPrinting, "")
      assert.strictEqual(yield* partners.count, 0)
      assert.isTrue(Option.isNone(yield* Effect.option(partners.show("demo"))))
    }))
})

layer(TestServices(), live)("the demo partner on the embedded default (no DATABASE_URL)", (it) => {
  it.effect("the first start creates an active demo partner and prints its token once", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const printed = yield* ensureDemoPartnerPrinting
      const shown = /live: (pak_live_[A-Za-z0-9_-]{43})/.exec(printed)?.[1]
      const shownTest = /test: (pak_test_[A-Za-z0-9_-]{43})/.exec(printed)?.[1]
      assert.isDefined(shown, printed)
      assert.isDefined(shownTest, printed)
      const demo = yield* partners.authenticate(shown!)
      assert.strictEqual(Option.getOrThrow(demo).environment, "live")
      assert.strictEqual(Option.getOrThrow(yield* partners.authenticate(shownTest!)).environment, "test")
      assert.strictEqual((yield* partners.show("demo")).status, "active")
      // The next start: nothing new, nothing printed.
      assert.strictEqual(yield* ensureDemoPartnerPrinting, "")
      assert.strictEqual(yield* partners.count, 1)
    }))
})

describe("DEMO_PARTNER_TOKEN at start-up", () => {
  const read = (token: string) =>
    Effect.result(AppConfig.config.parse(ConfigProvider.fromEnv({ env: { DEMO_PARTNER_TOKEN: token } })))

  it.effect("a token of a partner token's shape is taken: generated, prefixed or chosen", () =>
    Effect.gen(function*() {
      for (
        const token of [
          `pak_${"Q".repeat(43)}`,
          `pak_live_${"r".repeat(43)}`,
          `pak_test_${"s".repeat(43)}`,
          "my-own-demo-token-2026"
        ]
      ) {
        const config = yield* read(token)
        assert.isTrue(Result.isSuccess(config), token)
        if (Result.isSuccess(config)) {
          assert.strictEqual(Redacted.value(Option.getOrThrow(config.success.demoPartnerToken)), token)
        }
      }
    }))

  it.effect("any other stops the start with an error naming the variable and the shape, never the value", () =>
    Effect.gen(function*() {
      for (const token of ["demo", "has a space in it, so no", "pak_ação_000000000000000000000", "x".repeat(201)]) {
        const config = yield* read(token)
        assert.isTrue(Result.isFailure(config), token)
        if (Result.isFailure(config)) {
          const text = String(config.failure)
          assert.include(text, "DEMO_PARTNER_TOKEN", token)
          assert.include(text, "20 to 200 characters: letters, digits and - . _ ~ + / (= only at the end)", token)
          assert.notInclude(text, token)
        }
      }
    }))
})
