import { Result, Schema } from "effect"

/**
 * The currencies money moves in. Each code is a currency of its own, with its own minor unit: an amount is a whole
 * number of that unit, and two currencies are never added, compared or converted (mBTC is not BTC: a display unit
 * an aggregator names as a code of its own). Fiat codes are ISO 4217's; crypto codes are enabled per deployment.
 */
export interface Currency {
  readonly code: string
  /** Decimal places of its minor unit: JPY 0, EUR 2, KWD 3, BTC 8, ETH 18. */
  readonly exponent: number
  readonly kind: "fiat" | "crypto"
}

/** A code as written: 2 to 10 letters or digits (ISO's three capitals, or a crypto code such as `mBTC`, `USDT`). */
export const CurrencyCode = Schema.String.check(
  Schema.isPattern(/^[A-Za-z][A-Za-z0-9]{1,9}$/, { message: "must be a currency code such as BRL, EUR or BTC" })
)

const fiatByExponent: Readonly<Record<number, string>> = {
  0: "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF",
  2: "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF " +
    "CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG " +
    "HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR " +
    "MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD " +
    "SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG " +
    "YER ZAR ZMW ZWG",
  3: "BHD IQD JOD KWD LYD OMR TND",
  4: "CLF UYW"
}

/**
 * ISO 4217's active currencies with a minor unit (codes without one, such as XAU or the demo code XXX, are not money
 * a wallet holds).
 */
export const fiatCurrencies: ReadonlyArray<Currency> = Object.entries(fiatByExponent).flatMap(([exponent, codes]) =>
  codes.split(" ").map((code) => ({ code, exponent: Number(exponent), kind: "fiat" as const }))
)

/** The crypto codes a deployment may enable (CRYPTO_CURRENCIES), at their native scale; display units are codes of their own. */
export const cryptoCurrencies: ReadonlyArray<Currency> = [
  ["BTC", 8],
  ["mBTC", 5],
  ["uBTC", 2],
  ["ETH", 18],
  ["LTC", 8],
  ["mLTC", 5],
  ["BCH", 8],
  ["DOGE", 8],
  ["USDT", 6],
  ["USDC", 6],
  ["TRX", 6],
  ["XRP", 6],
  ["TON", 9],
  ["SOL", 9]
].map(([code, exponent]) => ({ code: code as string, exponent: exponent as number, kind: "crypto" as const }))

/** The currencies one deployment accepts: every fiat currency, and the crypto codes it enabled. */
export class Currencies {
  readonly #byCode: ReadonlyMap<string, Currency>
  constructor(enabledCrypto: ReadonlyArray<string>) {
    const crypto = cryptoCurrencies.filter((currency) => enabledCrypto.includes(currency.code))
    this.#byCode = new Map([...fiatCurrencies, ...crypto].map((currency) => [currency.code, currency]))
  }
  /** The currency a code names, if this deployment accepts it. */
  find(code: string): Currency | undefined {
    return this.#byCode.get(code)
  }
  get all(): ReadonlyArray<Currency> {
    return [...this.#byCode.values()]
  }
}

/** A crypto code this service does not know (a typo in CRYPTO_CURRENCIES), or undefined when all are known. */
export const unknownCrypto = (codes: ReadonlyArray<string>): string | undefined =>
  codes.find((code) => !cryptoCurrencies.some((currency) => currency.code === code))

/** The currency a code names among every currency this service knows, enabled or not (for rows already written). */
export const knownCurrency = (code: string): Currency | undefined => everyCurrency.get(code)

// Looked up on every amount the wallet reads or writes: by key, not by scanning the table.
const everyCurrency: ReadonlyMap<string, Currency> = new Map(
  [...fiatCurrencies, ...cryptoCurrencies].map((currency) => [currency.code, currency])
)

/** The currency of a code this service stored (a player's, a transaction's): one it does not know is a defect. */
export const storedCurrency = (code: string): Currency => {
  const currency = knownCurrency(code)
  if (currency === undefined) throw new Error(`Not a currency this service knows: ${code}`)
  return currency
}

/** How many currencies a partner's restriction may list. */
export const partnerCurrencyLimit = 64

/**
 * A partner's currencies as an operator sets them: its default (null: the deployment's DEFAULT_CURRENCY) and its
 * restriction (null: every currency the deployment enables).
 */
export interface CurrencySettings {
  readonly defaultCurrency: string | null
  readonly currencies: ReadonlyArray<string> | null
}

/** A code as a message quotes it: bounded, so a long or odd input does not flood the answer. */
const quoted = (code: string) => JSON.stringify(code.length > 24 ? `${code.slice(0, 24)}…` : code)

/** `BRL` for `brl`: codes are case-sensitive (mBTC is not MBTC), so a near miss is named rather than guessed. */
const didYouMean = (code: string, currencies: Currencies) => {
  const near = currencies.all.find((currency) => currency.code.toLowerCase() === code.toLowerCase())
  return near === undefined ? "" : ` (did you mean ${near.code}?)`
}

const notAccepted = (code: string, currencies: Currencies) =>
  `is not a currency this deployment accepts${didYouMean(code, currencies)}: use an ISO 4217 code ` +
  "such as BRL or EUR, or a crypto code the deployment enables in CRYPTO_CURRENCIES"

const listed = (codes: ReadonlyArray<string>) => codes.join(", ")

/**
 * A partner's currency settings with `change` applied (a field absent is kept; null clears it), or why they are
 * refused: a code this deployment does not accept, an empty or too long restriction, or a default (the partner's, or
 * the deployment's when it has none) that the restriction leaves out, since a launch naming no currency would be
 * refused. A code listed twice is kept once.
 */
export const changedCurrencySettings = (
  current: CurrencySettings,
  change: {
    readonly defaultCurrency?: string | null | undefined
    readonly currencies?: ReadonlyArray<string> | null | undefined
  },
  currencies: Currencies,
  deploymentDefault: Currency
): Result.Result<CurrencySettings, string> => {
  const defaultCurrency = change.defaultCurrency === undefined ? current.defaultCurrency : change.defaultCurrency
  const restriction = change.currencies === undefined
    ? current.currencies
    : change.currencies === null
    ? null
    : [...new Set(change.currencies)]
  if (change.defaultCurrency !== undefined && change.defaultCurrency !== null) {
    if (currencies.find(change.defaultCurrency) === undefined) {
      return Result.fail(
        `The default currency ${quoted(change.defaultCurrency)} ${notAccepted(change.defaultCurrency, currencies)}.`
      )
    }
  }
  if (change.currencies !== undefined && restriction !== null) {
    if (restriction.length === 0 || restriction.length > partnerCurrencyLimit) {
      return Result.fail(
        `The currencies must be 1 to ${partnerCurrencyLimit} codes (${restriction.length} given); to allow every ` +
          "currency the deployment enables, clear the restriction instead."
      )
    }
    const refused = restriction.find((code) => currencies.find(code) === undefined)
    if (refused !== undefined) {
      return Result.fail(`The currencies name ${quoted(refused)}, which ${notAccepted(refused, currencies)}.`)
    }
  }
  if (restriction !== null) {
    const effective = defaultCurrency ?? deploymentDefault.code
    if (!restriction.includes(effective)) {
      const whose = defaultCurrency === null
        ? `The deployment's default currency ${effective} (the partner has none of its own)`
        : `The default currency ${effective}`
      return Result.fail(
        `${whose} is not among the partner's currencies (${listed(restriction)}): add it to them, or choose a ` +
          "default among them, so that a launch naming no currency is not refused."
      )
    }
  }
  return Result.succeed({ defaultCurrency, currencies: restriction })
}

/**
 * The currency a launch is in: the one the partner's request names, else the partner's default, else the
 * deployment's DEFAULT_CURRENCY. Refused (the message of a 422 naming `currency`) when this deployment does not accept
 * it, when the partner's currencies leave it out, or when the game's aggregator does not serve it (`served`).
 */
export const launchCurrency = (input: {
  readonly requested: string | undefined
  readonly partnerDefault: string | null
  readonly partnerCurrencies: ReadonlyArray<string> | null
  readonly deploymentDefault: Currency
  readonly currencies: Currencies
  readonly served: (code: string) => boolean
}): Result.Result<Currency, string> => {
  const { currencies, partnerCurrencies, requested } = input
  const code = requested ?? input.partnerDefault ?? input.deploymentDefault.code
  // What the refusal says of where the code came from: the request, or a default the partner did not send.
  const named = requested !== undefined
    ? `The currency field names ${quoted(code)}`
    : input.partnerDefault !== null
    ? `The currency field was not sent and the partner's default currency is ${code}`
    : `The currency field was not sent and the deployment's default currency is ${code}`
  const currency = currencies.find(code)
  if (currency === undefined) {
    return Result.fail(
      requested !== undefined
        ? `${named}, which ${notAccepted(code, currencies)}.`
        : `${named}, which this deployment no longer enables: send currency with one it accepts, or ask the ` +
          "operator to change the partner's default currency."
    )
  }
  if (partnerCurrencies !== null && !partnerCurrencies.includes(currency.code)) {
    return Result.fail(
      `${named}, which is not among the partner's currencies (${listed(partnerCurrencies)}): send one of them, or ` +
        `ask the operator to allow ${currency.code}.`
    )
  }
  if (!input.served(currency.code)) {
    return Result.fail(
      `${named}, which this game's aggregator does not serve: send another currency, or launch a game whose ` +
        "aggregator serves it."
    )
  }
  return Result.succeed(currency)
}
