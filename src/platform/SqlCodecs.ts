import { Duration, Schema, SchemaGetter } from "effect"

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

/** A `numeric(40, 0)` money column (or a sum of one): minor units, exactly, as a bigint. */
export const MinorFromNumeric = Schema.String.pipe(
  Schema.decodeTo(Schema.BigInt, {
    decode: SchemaGetter.transform((text: string) => BigInt(text)),
    encode: SchemaGetter.transform((minor: bigint) => minor.toString())
  })
)

/** A duration as PostgreSQL reads an interval parameter (`${interval(d)}::interval`). */
export const interval = (duration: Duration.Duration) => `${Duration.toMillis(duration)} milliseconds`
