/**
 * The currency table and exact amounts at every scale, without a database: what each code's minor unit is, what
 * a decimal text is in minor units, and how an amount is written back (as a JSON number only where a double holds
 * every amount of its currency).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { Currencies, type Currency, knownCurrency } from "../../src/domain/Currency.ts"
import { amountOnWire, formatMinor, minorOf } from "../../src/domain/Money.ts"
import { CurrencyConfig } from "../../src/platform/CurrencyConfig.ts"

const currency = (code: string): Currency => {
  const found = knownCurrency(code)
  if (found === undefined) throw new Error(`no currency ${code}`)
  return found
}

describe("the currency table", () => {
  it("knows each ISO code's exponent and each crypto code as a currency of its own", () => {
    assert.deepStrictEqual(
      ["JPY", "EUR", "BRL", "KWD", "CLF", "BTC", "mBTC", "uBTC", "ETH", "USDT"].map((code) => currency(code).exponent),
      [0, 2, 2, 3, 4, 8, 5, 2, 18, 6]
    )
    assert.strictEqual(knownCurrency("XXX"), undefined, "the demo code is no money a wallet holds")
    assert.strictEqual(knownCurrency("btc"), undefined, "codes are case-sensitive: mBTC is not MBTC")
  })

  it("accepts crypto codes only where the deployment enables them", () => {
    const currencies = new Currencies(["BTC"])
    assert.strictEqual(currencies.find("BTC")?.exponent, 8)
    assert.strictEqual(currencies.find("ETH"), undefined)
    assert.strictEqual(currencies.find("EUR")?.exponent, 2)
  })

  it.effect("reads CRYPTO_CURRENCIES and DEFAULT_CURRENCY, refusing codes it does not know", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Effect.map(CurrencyConfig.config, (config) => config).pipe(
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))),
          Effect.map(({ currencies, defaultCurrency }) => [defaultCurrency.code, currencies.find("ETH") !== undefined]),
          Effect.catch((error) => Effect.succeed(String(error)))
        )
      assert.deepStrictEqual(yield* read({}), ["BRL", false])
      assert.deepStrictEqual(yield* read({ CRYPTO_CURRENCIES: "BTC, ETH", DEFAULT_CURRENCY: "ETH" }), ["ETH", true])
      assert.include(yield* read({ CRYPTO_CURRENCIES: "BTC,DOGGO" }), "DOGGO")
      assert.include(yield* read({ DEFAULT_CURRENCY: "BTC" }), "DEFAULT_CURRENCY BTC")
    }))
})

describe("amounts in minor units", () => {
  it("reads a decimal at its currency's scale, exactly, and refuses one finer than its minor unit", () => {
    assert.strictEqual(minorOf("12.5", currency("EUR")), 1250n)
    assert.strictEqual(minorOf("12.500", currency("EUR")), 1250n, "zeros past the minor unit say nothing")
    assert.strictEqual(minorOf("0.001", currency("EUR")), undefined)
    assert.strictEqual(minorOf("1250", currency("JPY")), 1250n)
    assert.strictEqual(minorOf("10.5", currency("JPY")), undefined)
    assert.strictEqual(minorOf("1.234", currency("KWD")), 1234n)
    assert.strictEqual(minorOf("0.00000001", currency("BTC")), 1n)
    assert.strictEqual(minorOf("21000000", currency("BTC")), 2_100_000_000_000_000n)
    assert.strictEqual(minorOf("1.000000000000000001", currency("ETH")), 1_000_000_000_000_000_001n)
    for (const text of ["1e2", "-1", " 5", "01", "", "0x10", "1000000000000.01"]) {
      assert.strictEqual(minorOf(text, currency("EUR")), undefined, text)
    }
    assert.strictEqual(minorOf("1000000000000", currency("EUR")), 100_000_000_000_000n, "the largest amount")
  })

  it("writes an amount back as it was read, at scales 0, 2, 3, 8 and 18", () => {
    for (
      const [code, text] of [["JPY", "1250"], ["EUR", "12.50"], ["KWD", "0.005"], ["BTC", "0.00000001"], [
        "BTC",
        "21000000.00000000"
      ], ["ETH", "1.000000000000000001"]]
    ) {
      assert.strictEqual(formatMinor(minorOf(text!, currency(code!))!, currency(code!)), text)
    }
    assert.strictEqual(formatMinor(-550n, currency("EUR")), "-5.50")
  })

  it("travels as a JSON number up to three decimals and as decimal text beyond", () => {
    assert.strictEqual(amountOnWire(1250n, currency("EUR")), 12.5)
    assert.strictEqual(amountOnWire(1250n, currency("JPY")), 1250)
    assert.strictEqual(String(amountOnWire(999_999_999_999_999n, currency("KWD"))), "999999999999.999")
    assert.strictEqual(amountOnWire(1n, currency("BTC")), "0.00000001")
    assert.strictEqual(amountOnWire(2_100_000_000_000_000n, currency("BTC")), "21000000.00000000")
  })
})
