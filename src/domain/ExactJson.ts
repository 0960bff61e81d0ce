import { Schema } from "effect"

/**
 * JSON read without losing what the text said. `JSON.parse` turns every
 * number into a double, so `1790000000000000001` and `1790000000000000002`
 * become one value and `1e2` looks like `100`. Here each number is kept as
 * the exact text it was written as (JSON.parse's source-text access), and the
 * schema that reads a field decides what that text may be: an id keeps its
 * digits, an amount its decimals, anything else is refused.
 */
export class JsonNumber {
  readonly source: string
  constructor(source: string) {
    this.source = source
  }
}

type SourceReviver = (this: unknown, key: string, value: unknown, context: { readonly source?: string }) => unknown
const parseWithSource = JSON.parse as (text: string, reviver: SourceReviver) => unknown

/** Parses JSON text, every number as a JsonNumber holding its source text. Throws a SyntaxError on bad JSON. */
export const parse = (text: string): unknown =>
  parseWithSource(
    text,
    (_key, value, context) => typeof value === "number" ? new JsonNumber(context.source ?? String(value)) : value
  )

/** A JSON number as parsed by `parse`. */
export const JsonNumberSchema = Schema.instanceOf(JsonNumber).annotate({ expected: "a number" })
