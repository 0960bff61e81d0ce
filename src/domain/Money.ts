import { Schema, SchemaGetter } from "effect"
import { JsonNumber, JsonNumberSchema } from "./ExactJson.ts"

/**
 * Money inside the service is a whole number of cents, so sums and
 * differences are exact (every amount stays far below 2^53 cents). It
 * enters and leaves as a plain decimal text or number with at most two
 * places, and is stored as numeric(20, 2). Nothing is ever rounded: an
 * amount that is not written exactly that way is refused.
 */
export type Cents = number

/** The largest amount accepted anywhere: 1,000,000,000,000.00. */
export const maxCents: Cents = 100_000_000_000_000

/** A plain, non-negative decimal: digits, then at most two places. No sign, exponent, spaces, hex or leading zeros. */
const plainDecimal = /^(0|[1-9]\d{0,12})(?:\.(\d{1,2}))?$/

/** The cents a plain decimal text says, exactly; undefined for any other text or above maxCents. */
export const parseCents = (text: string): Cents | undefined => {
  const match = plainDecimal.exec(text)
  if (match === null) return undefined
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"))
  return cents <= maxCents ? cents : undefined
}

/** `1250` -> `"12.50"`: the exact decimal text, as PostgreSQL numeric takes it. */
export const formatCents = (cents: Cents): string => {
  const sign = cents < 0 ? "-" : ""
  const abs = Math.abs(cents)
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`
}

/** `1250` -> `12.5`: the amount as a JSON number (exact: a double prints any 2-place decimal back as written). */
export const toAmount = (cents: Cents): number => cents / 100

/**
 * A signed numeric column as PostgreSQL returns it (`"-12.50"`), in cents.
 * Only for values this service stored, so anything else is a defect.
 */
export const centsFromNumeric = (text: string): Cents => {
  const negative = text.startsWith("-")
  const cents = parseCents(negative ? text.slice(1) : text)
  if (cents === undefined) throw new Error(`Not a stored amount: ${text}`)
  return negative ? -cents : cents
}

/** What a number or text says as written: the source text of an exactly-parsed number, the shortest form of a double. */
const amountText = (value: string | number | JsonNumber): string =>
  value instanceof JsonNumber ? value.source : typeof value === "number" ? String(value) : value

const amountMessage =
  "must be an amount of at least 0 with at most 2 decimal places, written plainly (like 12.5 or \"12.50\")"

/**
 * An amount as it arrives: a JSON number or a decimal string ("12.50"), at
 * least 0, at most two decimal places, decoded to cents. Read through
 * ExactJson, a number is judged by the text it was written as, so `1e2`,
 * `0x10`, `""`, `" 5"` and `10.005` are refused, never rounded. (A number
 * JSON.parse already read is judged by its shortest form: 1e21 is refused,
 * 150.5 accepted.) `message` says so in the caller's words.
 */
export const amountCents = (message: string = amountMessage) =>
  // Each member carries the message: a value of no member's type is reported by the last one tried.
  Schema.Union([Schema.String, Schema.Finite, JsonNumberSchema].map((member) => member.annotate({ message }))).pipe(
    Schema.decodeTo(
      Schema.String.check(Schema.makeFilter((text: string) => parseCents(text) !== undefined, { message })),
      {
        decode: SchemaGetter.transform(amountText),
        encode: SchemaGetter.transform((text: string) => text)
      }
    ),
    Schema.decodeTo(Schema.Int, {
      decode: SchemaGetter.transform((text: string) => parseCents(text)!),
      encode: SchemaGetter.transform(formatCents)
    })
  ).annotate({ message })

export const AmountCents = amountCents()
