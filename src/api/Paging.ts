import { Effect, Schema, SchemaGetter } from "effect"
import type { Page, PageRequest } from "../domain/Paging.ts"

export const pageLimits = { defaultPerPage: 50, maxPerPage: 200, maxPage: 1_000_000 } as const

/**
 * Query text as it arrives. A declaration rather than `Schema.String`, so the
 * JSON Schema of a query value is its check's alone: an integer parameter is
 * documented as `type: integer`, which is what it means on the wire.
 */
const QueryText = Schema.declare((input: unknown): input is string => typeof input === "string", {
  expected: "a string",
  // Already the text a query carries: nothing to encode it to.
  toCodecStringTree: () => undefined
})

const decimalInteger = /^-?\d{1,16}$/

/**
 * An integer from the query string, read strictly: plain decimal digits only
 * (no exponent, hex, fraction, plus sign or spaces), so `1e2`, `0x10` and
 * `abc` are refused rather than guessed at. Then at least `minimum`, and at
 * most `maximum` unless `clampAbove` says a larger value means the maximum.
 */
export const integerQuery = (options: {
  readonly minimum: number
  readonly maximum: number
  readonly clampAbove?: boolean
  readonly description: string
  readonly example: number
}) => {
  const { clampAbove = false, description, example, maximum, minimum } = options
  const range = clampAbove
    ? `The :attribute field must be at least ${minimum}.`
    : `The :attribute field must be between ${minimum} and ${maximum}.`
  return QueryText.check(Schema.makeFilter((raw: string) => decimalInteger.test(raw), {
    message: "The :attribute field must be an integer.",
    description,
    toJsonSchema: () => ({ type: "integer", minimum, ...(clampAbove ? {} : { maximum }), examples: [example] })
  })).pipe(
    Schema.decodeTo(
      Schema.Number.check(
        Schema.makeFilter((value: number) => value >= minimum && (clampAbove || value <= maximum), { message: range })
      ),
      {
        decode: SchemaGetter.transform((raw: string) => clampAbove ? Math.min(Number(raw), maximum) : Number(raw)),
        encode: SchemaGetter.transform((value: number) => String(value))
      }
    )
  )
}

/** `page`: 1 to 1,000,000; a page past the last one answers an empty list. */
export const PageQuery = integerQuery({
  minimum: 1,
  maximum: pageLimits.maxPage,
  description: "Page number, from 1 (default 1). A page past the last answers an empty list.",
  example: 1
})

/** `per_page`: at least 1; above 200 means 200 (the answer's `meta.per_page` says so). */
export const PerPageQuery = integerQuery({
  minimum: 1,
  maximum: pageLimits.maxPerPage,
  clampAbove: true,
  description: "Page size, from 1 (default 50); a value above 200 means 200, as meta.per_page then says.",
  example: 50
})

/** `meta` of every paged list. */
export const PageMeta = Schema.Struct({
  page: Schema.Int.annotate({ description: "The page answered", examples: [1] }),
  per_page: Schema.Int.annotate({ description: "The page size applied", examples: [50] }),
  total: Schema.Int.annotate({ description: "Matches over all pages", examples: [128] })
})

/** The page a query asks for: page 1 and 50 a page unless it says otherwise. */
export const page = (
  query: { readonly page?: number | undefined; readonly per_page?: number | undefined }
): PageRequest => ({
  page: query.page ?? 1,
  perPage: query.per_page ?? pageLimits.defaultPerPage
})

/** A domain value as the wire carries it (an encoding failure is a defect: the codecs are the service's own). */
export const encodeWith = <S extends Schema.Codec<unknown, unknown>>(codec: S) => {
  const encode = Schema.encodeEffect(codec)
  return (value: S["Type"]): Effect.Effect<S["Encoded"]> => Effect.orDie(encode(value))
}

/** A page as every list answers it, `results` encoded by `entry` and `meta`. */
export const listed = <S extends Schema.Codec<unknown, unknown>>(entry: S) => {
  const encode = encodeWith(Schema.Array(entry))
  return (answer: Page<S["Type"]>) =>
    Effect.map(encode(answer.results), (results) => ({
      results,
      meta: { page: answer.page, per_page: answer.perPage, total: answer.total }
    }))
}
