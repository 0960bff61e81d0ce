import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"
import { DatabaseUrl } from "../../src/platform/Database.ts"
import { databaseUrl, quoteIdentifier } from "./urls.ts"

/** The URL of the current test file's own database. */
export class TestDatabaseUrl extends Context.Service<TestDatabaseUrl, string>()("test/TestDatabaseUrl") {}

const adminStatement = (adminUrl: string, statement: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1 })),
    Effect.orDie
  )

/**
 * A database of the run's own, dropped when the scope closes: migrated
 * (cloned from the run's template) or, with `empty`, without any table.
 */
export const scopedDatabase = (options: { readonly empty?: boolean } = {}) =>
  Effect.gen(function*() {
    const { adminUrl, template, prefix } = inject("testDatabase")
    const name = `${prefix}_${randomBytes(4).toString("hex")}`
    const create = `CREATE DATABASE ${quoteIdentifier(name)}` +
      (options.empty ? "" : ` TEMPLATE ${quoteIdentifier(template)}`)
    yield* Effect.acquireRelease(
      adminStatement(adminUrl, create),
      () => adminStatement(adminUrl, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`)
    )
    return databaseUrl(adminUrl, name)
  })

/** A fresh, migrated database for the test file, dropped when the layer closes. */
export const TestDatabaseUrlLive = Layer.effect(TestDatabaseUrl, scopedDatabase())

/** PgClient and SqlClient on the database TestDatabaseUrl names (and its URL, for the job queue's own pool). */
export const TestDatabaseOnUrl = Layer.unwrap(Effect.gen(function*() {
  const url = Redacted.make(yield* TestDatabaseUrl)
  return Layer.merge(PgClient.layer({ url, maxConnections: 10 }), Layer.succeed(DatabaseUrl, url))
}))

/** PgClient and SqlClient on the test file's own database. */
export const TestDatabase = TestDatabaseOnUrl.pipe(Layer.provideMerge(TestDatabaseUrlLive))
