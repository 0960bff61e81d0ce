/**
 * HUB88_* settings: read at start, and a bad value refused then with a message naming the variable, never quoting a
 * key.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Option, Redacted } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Hub88Config } from "../../src/integrations/hub88/Hub88Config.ts"
import { samePublicKey } from "../../src/integrations/hub88/Hub88Signature.ts"
import { hub88Keys, operatorKeys } from "../support/FakeHub88.ts"

const complete = {
  HUB88_BASE_URL: "https://api.server1.ih.testenv.io/",
  HUB88_OPERATOR_ID: "4242",
  HUB88_PRIVATE_KEY: operatorKeys.privatePem,
  HUB88_PUBLIC_KEY: hub88Keys.publicPem
}

const read = (env: Record<string, string | undefined>) =>
  Hub88Config.config.pipe(
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({
      env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)) as Record<
        string,
        string
      >
    })))
  )

/** The message a start with these settings stops with (the test fails if it starts). */
const refusal = (env: Record<string, string | undefined>) =>
  read(env).pipe(
    Effect.flatMap(() => Effect.die("the settings were accepted")),
    Effect.catch((error) => Effect.succeed(String(error)))
  )

const keyLine = (pem: string) => pem.split("\n")[2]!

describe("Hub88 settings", () => {
  it.effect("read a complete account: URL without its slash, defaults for currencies (DEFAULT_CURRENCY) and TTL", () =>
    Effect.gen(function*() {
      const config = yield* read(complete)
      assert.strictEqual(config.baseUrl, "https://api.server1.ih.testenv.io")
      assert.strictEqual(config.operatorId, 4242)
      assert.isTrue(Option.isNone(config.subPartnerId))
      assert.isTrue(samePublicKey(Redacted.value(config.privateKey), operatorKeys.publicKey))
      assert.isTrue(samePublicKey(config.publicKey, hub88Keys.publicKey))
      assert.deepStrictEqual(config.currencies.map((currency) => currency.code), ["BRL"])
      assert.isTrue(Duration.equals(config.tokenTtl, Duration.hours(24)))
      // The private key shows as redacted wherever it is printed.
      assert.strictEqual(String(config.privateKey), "<redacted:HUB88_PRIVATE_KEY>")
      assert.notInclude(JSON.stringify(config.privateKey), keyLine(operatorKeys.privatePem))
      const jpy = yield* read({ ...complete, DEFAULT_CURRENCY: "JPY" })
      assert.deepStrictEqual(jpy.currencies.map((currency) => currency.code), ["JPY"])
    }))

  it.effect("read a PKCS#1 key with \\n escapes, the keys from files, a sub-partner, currencies and a TTL", () =>
    Effect.gen(function*() {
      const escaped = yield* read({
        ...complete,
        HUB88_PRIVATE_KEY: operatorKeys.privatePkcs1Pem.replace(/\n/g, "\\n"),
        HUB88_SUB_PARTNER_ID: "brand-7",
        HUB88_CURRENCIES: " BRL, JPY,KWD,BRL ",
        HUB88_TOKEN_TTL: "2 hours"
      })
      assert.isTrue(samePublicKey(Redacted.value(escaped.privateKey), operatorKeys.publicKey))
      assert.deepStrictEqual(escaped.subPartnerId, Option.some("brand-7"))
      assert.deepStrictEqual(escaped.currencies.map((currency) => currency.code), ["BRL", "JPY", "KWD"])
      assert.isTrue(Duration.equals(escaped.tokenTtl, Duration.hours(2)))

      const dir = mkdtempSync(join(tmpdir(), "hub88-keys-"))
      writeFileSync(join(dir, "private.pem"), operatorKeys.privatePem)
      writeFileSync(join(dir, "hub88.pub"), hub88Keys.publicPem)
      const fromFiles = yield* read({
        ...complete,
        HUB88_PRIVATE_KEY: undefined,
        HUB88_PUBLIC_KEY: undefined,
        HUB88_PRIVATE_KEY_FILE: join(dir, "private.pem"),
        HUB88_PUBLIC_KEY_FILE: join(dir, "hub88.pub")
      })
      assert.isTrue(samePublicKey(fromFiles.publicKey, hub88Keys.publicKey))
      assert.include(
        yield* refusal({ ...complete, HUB88_PRIVATE_KEY: undefined, HUB88_PRIVATE_KEY_FILE: join(dir, "none.pem") }),
        "HUB88_PRIVATE_KEY_FILE names"
      )
    }))

  it.effect("refuse a missing or bad URL, operator id or key, naming the variable and never quoting a key", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, string | undefined>, string]> = [
        [{ ...complete, HUB88_BASE_URL: undefined }, "HUB88_BASE_URL"],
        [{ ...complete, HUB88_BASE_URL: "ftp://hub88.example" }, "HUB88_BASE_URL must be an http(s) URL"],
        [{ ...complete, HUB88_OPERATOR_ID: undefined }, "HUB88_OPERATOR_ID"],
        [{ ...complete, HUB88_OPERATOR_ID: "abc" }, "HUB88_OPERATOR_ID"],
        [{ ...complete, HUB88_OPERATOR_ID: "0" }, "HUB88_OPERATOR_ID must be a positive integer"],
        [{ ...complete, HUB88_PRIVATE_KEY: undefined }, "HUB88_PRIVATE_KEY (PEM text) or HUB88_PRIVATE_KEY_FILE"],
        [{ ...complete, HUB88_PUBLIC_KEY: undefined }, "HUB88_PUBLIC_KEY (PEM text) or HUB88_PUBLIC_KEY_FILE"],
        [{ ...complete, HUB88_PRIVATE_KEY_FILE: "/etc/hostname" }, "HUB88_PRIVATE_KEY and HUB88_PRIVATE_KEY_FILE"],
        [{ ...complete, HUB88_PRIVATE_KEY: "not a key" }, "HUB88_PRIVATE_KEY is not an unencrypted RSA private key"],
        [{ ...complete, HUB88_PRIVATE_KEY: hub88Keys.publicPem }, "HUB88_PRIVATE_KEY is not an unencrypted RSA"],
        [{ ...complete, HUB88_PUBLIC_KEY: hub88Keys.privatePem }, "HUB88_PUBLIC_KEY is a private key"],
        [{ ...complete, HUB88_PUBLIC_KEY: operatorKeys.publicPem }, "HUB88_PUBLIC_KEY is the operator's own"]
      ]
      for (const [env, expected] of cases) {
        const message = yield* refusal(env)
        assert.include(message, expected)
        for (const pem of [operatorKeys.privatePem, hub88Keys.privatePem]) assert.notInclude(message, keyLine(pem))
      }
    }))

  it.effect("refuse a currency the deployment does not accept, or one with more places than Hub88's five", () =>
    Effect.gen(function*() {
      assert.include(
        yield* refusal({ ...complete, HUB88_CURRENCIES: "BRL,XYZ" }),
        "HUB88_CURRENCIES names XYZ, which is not a currency this deployment accepts"
      )
      assert.include(
        yield* refusal({ ...complete, CRYPTO_CURRENCIES: "BTC", HUB88_CURRENCIES: "BTC" }),
        "HUB88_CURRENCIES names BTC, which has 8 decimal places"
      )
      assert.include(
        yield* refusal({ ...complete, CRYPTO_CURRENCIES: "ETH", DEFAULT_CURRENCY: "ETH" }),
        "HUB88_CURRENCIES (unset: DEFAULT_CURRENCY) names ETH, which has 18 decimal places"
      )
      assert.include(yield* refusal({ ...complete, HUB88_CURRENCIES: " , " }), "HUB88_CURRENCIES names no currency")
      const mbtc = yield* read({ ...complete, CRYPTO_CURRENCIES: "mBTC", HUB88_CURRENCIES: "mBTC" })
      assert.deepStrictEqual(mbtc.currencies.map((currency) => currency.code), ["mBTC"])
    }))

  it.effect("refuse a token TTL that is not a positive duration", () =>
    Effect.gen(function*() {
      assert.include(
        yield* refusal({ ...complete, HUB88_TOKEN_TTL: "0 seconds" }),
        "HUB88_TOKEN_TTL must be a positive duration"
      )
      assert.include(yield* refusal({ ...complete, HUB88_TOKEN_TTL: "soon" }), "HUB88_TOKEN_TTL")
    }))
})
