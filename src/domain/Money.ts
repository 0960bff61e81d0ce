import { Schema, SchemaGetter } from "effect"
import type { Currency } from "./Currency.ts"
import { JsonNumber, JsonNumberSchema } from "./ExactJson.ts"

/**
 * Money inside the service is a whole number of its currency's minor unit, a bigint, so sums and differences are
 * exact at any scale (an ETH amount has 18 decimals). It enters and leaves as a plain decimal, text or number, read
 * and written at its currency's exponent, and is stored the same way (numeric(40, 0) in minor units). Nothing is ever
 * rounded or converted: an amount finer than its currency's minor unit is refused.
 */
export type Minor = bigint

/** The largest amount accepted in any currency: 1,000,000,000,000 whole units. */
export const maxWholeUnits = 1_000_000_000_000n

/** A plain, non-negative decimal: digits, then at most 18 places. No sign, exponent, spaces, hex or leading zeros. */
const plainDecimal = /^(0|[1-9]\d{0,12})(?:\.(\d{1,18}))?$/

/** Whether a text is a plain decimal amount (at most 13 whole digits and 18 places). */
export const isPlainDecimal = (text: string): boolean => plainDecimal.test(text)

/**
 * The minor units a plain decimal text says in a currency, exactly; undefined for any other text, an amount above
 * the largest, or one finer than the currency's minor unit (`0.001` EUR, `10.5` JPY). Zeros past the minor unit
 * say nothing (`10.500` EUR is 1050 cents).
 */
export const minorOf = (text: string, currency: Currency): Minor | undefined => {
  const match = plainDecimal.exec(text)
  if (match === null) return undefined
  const fraction = (match[2] ?? "").replace(/0+$/, "")
  if (fraction.length > currency.exponent) return undefined
  const whole = BigInt(match[1]!)
  if (whole > maxWholeUnits || (whole === maxWholeUnits && fraction !== "")) return undefined
  return whole * 10n ** BigInt(currency.exponent) + BigInt(fraction.padEnd(currency.exponent, "0") || "0")
}

/**
 * Whether a plain decimal text has more (significant) places than the currency's minor unit: `0.001` in BRL, `10.5`
 * in JPY. Trailing zeros are no places (`1.50` is BRL's); a text that is not a plain decimal is not finer, only wrong.
 */
export const isFinerThanMinorUnit = (text: string, currency: Currency): boolean => {
  const match = plainDecimal.exec(text)
  return match !== null && (match[2] ?? "").replace(/0+$/, "").length > currency.exponent
}

/** `1250n` in EUR -> `"12.50"`, in JPY `1250n` -> `"1250"`: the exact decimal text at the currency's exponent. */
export const formatMinor = (minor: Minor, currency: Currency): string => {
  const sign = minor < 0n ? "-" : ""
  const digits = (minor < 0n ? -minor : minor).toString().padStart(currency.exponent + 1, "0")
  if (currency.exponent === 0) return sign + digits
  const point = digits.length - currency.exponent
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

/**
 * Whether a currency's amounts travel as JSON numbers: when every amount it allows has at most 15 significant digits,
 * which a double holds and prints back exactly (every currency of up to 3 decimals). Finer ones travel as decimal
 * strings, which no JSON reader rounds.
 */
export const amountsAreNumbers = (currency: Currency): boolean => currency.exponent <= 3

/** An amount on the wire: a JSON number where a number holds it exactly, otherwise its decimal text. */
export const amountOnWire = (minor: Minor, currency: Currency): number | string => {
  const text = formatMinor(minor, currency)
  return amountsAreNumbers(currency) ? Number(text) : text
}

/** What a number or text says as written: the source text of an exactly-parsed number, the shortest form of a double. */
const amountText = (value: string | number | JsonNumber): string =>
  value instanceof JsonNumber ? value.source : typeof value === "number" ? String(value) : value

const amountMessage =
  "must be an amount of at least 0, written plainly (like 12.5 or \"12.50\"), with no more decimals than its currency has"

/**
 * An amount as it arrives, before its currency is known: a JSON number or a decimal string, at least 0, with at most
 * 18 places, kept as the exact text it was written as (the caller reads it at its currency's exponent with
 * `minorOf`). Read through ExactJson, a number is judged by its source text, so `1e2`, `0x10`, `""`, `" 5"` are
 * refused, never rounded. `message` says so in the caller's words.
 */
export const decimalAmount = (message: string = amountMessage) =>
  // Each member carries the message: a value of no member's type is reported by the last one tried.
  Schema.Union([Schema.String, Schema.Finite, JsonNumberSchema].map((member) => member.annotate({ message }))).pipe(
    Schema.decodeTo(
      Schema.String.check(Schema.makeFilter(isPlainDecimal, { message })),
      {
        decode: SchemaGetter.transform(amountText),
        encode: SchemaGetter.transform((text: string) => text)
      }
    )
  ).annotate({ message })

export const DecimalAmount = decimalAmount()

/** A signed decimal text (a refund may take back more than it gives) in minor units, exactly; undefined as minorOf. */
export const signedMinorOf = (text: string, currency: Currency): Minor | undefined => {
  const minor = minorOf(text.startsWith("-") ? text.slice(1) : text, currency)
  return minor === undefined || !text.startsWith("-") ? minor : -minor
}
