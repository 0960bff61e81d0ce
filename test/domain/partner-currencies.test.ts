/**
 * A partner's currencies without a database: which currency a launch is in (the request's, else the partner's
 * default, else the deployment's), each refusal's message, and the rule an operator's change of the settings meets.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { changedCurrencySettings, Currencies, type Currency, launchCurrency } from "../../src/domain/Currency.ts"

const currencies = new Currencies(["BTC", "mBTC"])
const brl = currencies.find("BRL") as Currency
const everything = () => true
const launch = (input: Partial<Parameters<typeof launchCurrency>[0]>) =>
  launchCurrency({
    requested: undefined,
    partnerDefault: null,
    partnerCurrencies: null,
    deploymentDefault: brl,
    currencies,
    served: everything,
    ...input
  })
const code = (result: Result.Result<Currency, string>) => Result.getOrThrow(result).code
const refusal = <A>(result: Result.Result<A, string>) => {
  if (Result.isSuccess(result)) throw new Error(`not refused: ${JSON.stringify(result.success)}`)
  return result.failure
}

describe("the currency of a launch", () => {
  it("is the one requested, else the partner's default, else the deployment's", () => {
    assert.strictEqual(code(launch({ requested: "EUR", partnerDefault: "USD" })), "EUR")
    assert.strictEqual(code(launch({ partnerDefault: "USD" })), "USD")
    assert.strictEqual(code(launch({})), "BRL")
    assert.strictEqual(code(launch({ requested: "mBTC", partnerCurrencies: ["BRL", "mBTC"] })), "mBTC")
    assert.strictEqual(launch({ requested: "JPY" }).pipe(Result.getOrThrow).exponent, 0)
  })

  it("refuses a code the deployment does not accept, naming a near miss", () => {
    assert.strictEqual(
      refusal(launch({ requested: "ETH" })),
      "The currency field names \"ETH\", which is not a currency this deployment accepts: use an ISO 4217 code " +
        "such as BRL or EUR, or a crypto code the deployment enables in CRYPTO_CURRENCIES."
    )
    assert.include(refusal(launch({ requested: "brl" })), "(did you mean BRL?)")
    assert.include(refusal(launch({ requested: "MBTC" })), "(did you mean mBTC?)")
    assert.include(refusal(launch({ requested: "x".repeat(500) })), `"${"x".repeat(24)}…"`)
  })

  it("refuses a partner's default the deployment no longer enables, saying what to do", () => {
    assert.strictEqual(
      refusal(launch({ partnerDefault: "ETH" })),
      "The currency field was not sent and the partner's default currency is ETH, which this deployment no longer " +
        "enables: send currency with one it accepts, or ask the operator to change the partner's default currency."
    )
  })

  it("refuses a currency outside the partner's, whether requested or defaulted", () => {
    assert.strictEqual(
      refusal(launch({ requested: "EUR", partnerCurrencies: ["BRL", "USD"] })),
      "The currency field names \"EUR\", which is not among the partner's currencies (BRL, USD): send one of them, " +
        "or ask the operator to allow EUR."
    )
    assert.include(
      refusal(launch({ partnerCurrencies: ["USD"] })),
      "The currency field was not sent and the deployment's default currency is BRL, which is not among"
    )
  })

  it("refuses a currency the game's aggregator does not serve", () => {
    assert.strictEqual(
      refusal(launch({ requested: "BTC", served: (code) => code === "BRL" })),
      "The currency field names \"BTC\", which this game's aggregator does not serve: send another currency, or " +
        "launch a game whose aggregator serves it."
    )
    assert.strictEqual(code(launch({ requested: "BRL", served: (code) => code === "BRL" })), "BRL")
  })
})

describe("a change of a partner's currencies", () => {
  const none = { defaultCurrency: null, currencies: null }
  const change = (
    current: Parameters<typeof changedCurrencySettings>[0],
    patch: Parameters<typeof changedCurrencySettings>[1]
  ) => changedCurrencySettings(current, patch, currencies, brl)

  it("sets and clears the default and the restriction, keeping what it is not given", () => {
    assert.deepStrictEqual(Result.getOrThrow(change(none, { defaultCurrency: "USD" })), {
      defaultCurrency: "USD",
      currencies: null
    })
    assert.deepStrictEqual(
      Result.getOrThrow(change({ defaultCurrency: "USD", currencies: null }, { currencies: ["USD", "BTC", "USD"] })),
      { defaultCurrency: "USD", currencies: ["USD", "BTC"] },
      "a code listed twice is kept once"
    )
    assert.deepStrictEqual(
      Result.getOrThrow(
        change({ defaultCurrency: "USD", currencies: ["USD"] }, { defaultCurrency: null, currencies: null })
      ),
      none
    )
  })

  it("refuses codes the deployment does not accept", () => {
    assert.include(refusal(change(none, { defaultCurrency: "ETH" })), "The default currency \"ETH\" is not a currency")
    assert.include(refusal(change(none, { currencies: ["BRL", "XYZ"] })), "The currencies name \"XYZ\", which is not")
  })

  it("refuses an empty or too long restriction", () => {
    assert.strictEqual(
      refusal(change(none, { currencies: [] })),
      "The currencies must be 1 to 64 codes (0 given); to allow every currency the deployment enables, clear the " +
        "restriction instead."
    )
    const many = currencies.all.slice(0, 65).map((currency) => currency.code)
    assert.include(refusal(change(none, { currencies: many })), "(65 given)")
  })

  it("refuses a restriction that leaves out the default, the partner's or the deployment's", () => {
    assert.strictEqual(
      refusal(change({ defaultCurrency: "USD", currencies: null }, { currencies: ["EUR"] })),
      "The default currency USD is not among the partner's currencies (EUR): add it to them, or choose a default " +
        "among them, so that a launch naming no currency is not refused."
    )
    assert.include(
      refusal(change(none, { currencies: ["EUR"] })),
      "The deployment's default currency BRL (the partner has none of its own) is not among"
    )
    assert.include(
      refusal(change({ defaultCurrency: "EUR", currencies: ["EUR"] }, { defaultCurrency: "USD" })),
      "The default currency USD is not among the partner's currencies (EUR)"
    )
    assert.deepStrictEqual(
      Result.getOrThrow(change(none, { defaultCurrency: "EUR", currencies: ["EUR"] })),
      { defaultCurrency: "EUR", currencies: ["EUR"] }
    )
  })
})
