import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Fiber, Layer, Redacted } from "effect"
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

/** A new database of the run's: a clone of the run's migrated template or, with `empty`, without any table. */
const createDatabase = (empty: boolean) =>
  Effect.suspend(() => {
    const { adminUrl, template, prefix } = inject("testDatabase")
    const name = `${prefix}_${randomBytes(4).toString("hex")}`
    const create = `CREATE DATABASE ${quoteIdentifier(name)}` + (empty ? "" : ` TEMPLATE ${quoteIdentifier(template)}`)
    return Effect.as(adminStatement(adminUrl, create), name)
  })

/**
 * The worker's next migrated database, cloned while the file before it runs. A clone costs PostgreSQL about a
 * second (it copies the template's pages through its WAL), which each file waited for at its start. The clone is
 * still the file's own: made for it, used by nothing else, dropped at its end. A worker's last one, never taken, is
 * dropped with the run's other databases by the global set-up.
 */
let nextClone: Fiber.Fiber<string> | undefined

const takeClone = Effect.suspend(() => {
  const taken = nextClone ?? Effect.runFork(createDatabase(false))
  nextClone = Effect.runFork(createDatabase(false))
  return Fiber.join(taken)
})

/**
 * A database of the run's own, dropped when the scope closes: migrated
 * (cloned from the run's template) or, with `empty`, without any table.
 * The drop (a checkpoint of the whole server, which PostgreSQL forces for
 * each dropped database) runs on while the next file starts: nothing waits
 * for it, and what a worker ends before is dropped at the run's end.
 */
export const scopedDatabase = (options: { readonly empty?: boolean } = {}) =>
  Effect.gen(function*() {
    const { adminUrl } = inject("testDatabase")
    const name = yield* Effect.acquireRelease(
      options.empty ? createDatabase(true) : takeClone,
      (name) =>
        Effect.sync(() => {
          Effect.runFork(
            Effect.ignore(adminStatement(adminUrl, `DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`))
          )
        })
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
