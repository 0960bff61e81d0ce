import { PgClient } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as fs from "node:fs/promises"
import * as Database from "../../src/platform/Database.ts"
import { scopedDatabase } from "../support/TestDatabase.ts"

const onDatabase = (url: string) => Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 }))

it.effect("every numbered file in sql/ is a migration", () =>
  Effect.gen(function*() {
    const files = (yield* Effect.promise(() => fs.readdir(Database.migrationsDirectory))).filter((f) => f.endsWith(".sql"))
    assert.isAbove(files.length, 0)
    for (const file of files) assert.match(file, /^\d{4}_[a-z0-9_]+\.sql$/)
  }))

it.effect("an empty database gets every migration once; running again applies nothing", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    const files = (yield* Effect.promise(() => fs.readdir(Database.migrationsDirectory))).filter((f) => f.endsWith(".sql"))
    const first = yield* Database.migrate.pipe(onDatabase(url))
    assert.strictEqual(first.length, files.length)
    const second = yield* Database.migrate.pipe(onDatabase(url))
    assert.deepStrictEqual(second, [])
    const tables = yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`).pipe(onDatabase(url))
    assert.include(tables.map((t) => t.name), "partners")
  }))

it.effect("two services migrating one database at once apply each migration once", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    const [a, b] = yield* Effect.all(
      [Database.migrate.pipe(onDatabase(url)), Database.migrate.pipe(onDatabase(url))],
      { concurrency: 2 }
    )
    const applied = yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`).pipe(onDatabase(url))
    assert.strictEqual(applied[0].n, a.length + b.length)
    assert.isTrue(a.length === 0 || b.length === 0)
  }))
