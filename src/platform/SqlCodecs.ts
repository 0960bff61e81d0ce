import { Schema, SchemaGetter } from "effect"

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
