import { Schema, SchemaGetter } from "effect"

/**
 * Money inside the service is a whole number of cents, so sums and
 * differences are exact; it crosses the wire as a decimal number (1.5) and
 * is stored as numeric(20, 2).
 */
export type Cents = number

export const toCents = (amount: number): Cents => Math.round(amount * 100)
export const fromCents = (cents: Cents): number => cents / 100

/** A finite amount with at most two decimal places, not negative. */
const isMoney = (value: number) =>
  value >= 0 && value <= 1e12 && Math.abs(value * 100 - Math.round(value * 100)) < 1e-6

/**
 * An amount as upstreams and partners send it: a JSON number or a decimal
 * string ("12.50"), at least 0, at most two decimal places; decoded to cents.
 */
export const MoneyCents = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(
  Schema.check(Schema.makeFilter(isMoney, { message: "must be an amount of at least 0 with at most 2 decimal places" })),
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transform(toCents),
    encode: SchemaGetter.transform(fromCents)
  })
)
