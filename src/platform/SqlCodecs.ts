import { Duration, Schema, SchemaGetter } from "effect"
import { centsFromNumeric, formatCents } from "../domain/Money.ts"

/**
 * Column codecs shared by the Postgres repositories.
 * `bigint` identity columns arrive as JS bigint; the API speaks integers,
 * and every id we issue stays far below 2^53.
 */
export const IdFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transform((value: bigint) => Number(value)),
    encode: SchemaGetter.transform((value: number) => BigInt(value))
  })
)

/** `numeric` columns arrive as exact decimal strings. */
export const NumberFromNumeric = Schema.FiniteFromString

/** A `numeric(20, 2)` money column, exactly, in cents. */
export const CentsFromNumeric = Schema.String.pipe(
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transform(centsFromNumeric),
    encode: SchemaGetter.transform(formatCents)
  })
)

/** A duration as PostgreSQL reads an interval parameter (`${interval(d)}::interval`). */
export const interval = (duration: Duration.Duration) => `${Duration.toMillis(duration)} milliseconds`
