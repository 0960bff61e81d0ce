import { Effect, Schema } from "effect"
import { SqlSchema, type Statement } from "effect/sql"

/**
 * A statement's rows decoded once by `Result`; a failure (the database, a row of another shape) is a defect: the
 * repositories that use it own their tables, so a row they cannot read is a bug, not an answer.
 */
export const rowsOf = <S extends Schema.Top & { readonly DecodingServices: never }>(Result: S) => {
  const find = SqlSchema.findAll({
    Request: Schema.Any,
    Result,
    execute: (statement: Statement.Statement<unknown>) => statement
  })
  return (statement: Statement.Statement<unknown>) => Effect.orDie(find(statement))
}
