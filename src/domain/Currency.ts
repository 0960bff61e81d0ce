import { Schema } from "effect"

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
export const knownCurrency = (code: string): Currency | undefined =>
  fiatCurrencies.find((currency) => currency.code === code) ??
    cryptoCurrencies.find((currency) => currency.code === code)

/** The currency of a code this service stored (a player's, a transaction's): one it does not know is a defect. */
export const storedCurrency = (code: string): Currency => {
  const currency = knownCurrency(code)
  if (currency === undefined) throw new Error(`Not a currency this service knows: ${code}`)
  return currency
}
