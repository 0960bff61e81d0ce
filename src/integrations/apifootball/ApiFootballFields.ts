import { Schema, SchemaGetter } from "effect"

/**
 * The lenient fields API-Football's answers are read with: public clients type the same field as a number in one
 * sample and as its text in another, so both are taken; anything else is refused.
 */

/** An id or a label: a text, or a number kept as its text (`4` is "4"). */
export const Text = Schema.Union([Schema.String, Schema.Number]).pipe(
  Schema.decodeTo(Schema.String, {
    decode: SchemaGetter.transform((value: string | number) => String(value)),
    encode: SchemaGetter.transform((value: string) => value)
  })
)

/** A whole number, or its text (`"4"`); a text that is not one ("", "4a") is refused. */
export const Integer = Schema.Union([Schema.Number, Schema.String.check(Schema.isPattern(/^\s*-?\d+\s*$/))]).pipe(
  Schema.decodeTo(Schema.Number, {
    decode: SchemaGetter.transform((value: string | number) => typeof value === "number" ? value : Number(value)),
    encode: SchemaGetter.transform((value: number) => value)
  })
).check(Schema.isInt())

/** A field that may be missing or null. */
export const Maybe = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))
