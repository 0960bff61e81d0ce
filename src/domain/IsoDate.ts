import { Schema, SchemaTransformation } from "effect"

/** A date written as its ISO 8601 string (on the wire, in a JSON document kept as text). */
export const IsoDate = Schema.String.pipe(Schema.decodeTo(Schema.Date, SchemaTransformation.dateFromString))
