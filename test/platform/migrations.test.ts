import { NodeServices } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as Database from "../../src/platform/Database.ts"
import { scopedDatabase } from "../support/TestDatabase.ts"

const onDatabase = (url: string) => Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 }))

it.effect("every numbered file in sql/ is a migration", () =>
  Effect.gen(function*() {
    const files = (yield* Effect.promise(() => fs.readdir(Database.migrationsDirectory))).filter((f) =>
      f.endsWith(".sql")
    )
    assert.isAbove(files.length, 0)
    for (const file of files) assert.match(file, /^\d{4}_[a-z0-9_]+\.sql$/)
  }))

it.effect("an empty database gets every migration once; running again applies nothing", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    const files = (yield* Effect.promise(() => fs.readdir(Database.migrationsDirectory))).filter((f) =>
      f.endsWith(".sql")
    )
    const first = yield* Database.migrate.pipe(onDatabase(url))
    assert.strictEqual(first.length, files.length)
    const second = yield* Database.migrate.pipe(onDatabase(url))
    assert.deepStrictEqual(second, [])
    const tables = yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`).pipe(onDatabase(url))
    assert.include(
      tables.map((t) =>
        t.name
      ),
      "partners"
    )
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

/** The migrations up to `last`, as a database of an earlier release had them applied. */
const migrateUpTo = (last: number) =>
  PgMigrator.run({
    loader: Effect.map(Database.sqlFileLoader(Database.migrationsDirectory), (all) => all.filter(([id]) => id <= last))
  }).pipe(Effect.provide(NodeServices.layer))

it.effect("a partner of the release before environments keeps its token, URL and secret as its live ones, and gets a test environment", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* migrateUpTo(12).pipe(onDatabase(url))
    const tokenHash = createHash("sha256").update("pak_issued_before_environments_0123456789").digest()
    const before = yield* Effect.flatMap(
      Effect.service(SqlClient.SqlClient),
      (sql) =>
        sql<{ id: string; webhook_secret: string }>`
        INSERT INTO partners (name, slug, callback_url, token_hash)
        VALUES ('Earlier Bets', 'earlier-bets', 'https://earlier.example/wallet', ${tokenHash})
        RETURNING id, webhook_secret`
    ).pipe(onDatabase(url))
    yield* Database.migrate.pipe(onDatabase(url))
    const environments = yield* Effect.flatMap(
      Effect.service(SqlClient.SqlClient),
      (sql) =>
        sql<
          { environment: string; callback_url: string | null; webhook_secret: string; token_hash: Uint8Array | null }
        >`
        SELECT e.environment, e.callback_url, e.webhook_secret, t.token_hash
        FROM partner_environments e
        LEFT JOIN partner_tokens t USING (partner_id, environment)
        WHERE e.partner_id = ${before[0].id} ORDER BY e.environment`
    ).pipe(onDatabase(url))
    assert.deepStrictEqual(environments.map((e) => e.environment), ["live", "test"])
    const [liveRow, testRow] = environments
    assert.strictEqual(liveRow.callback_url, "https://earlier.example/wallet")
    assert.strictEqual(liveRow.webhook_secret, before[0].webhook_secret)
    assert.deepStrictEqual(Buffer.from(liveRow.token_hash ?? []), tokenHash)
    // The test environment: a secret of its own, no URL (the sandbox wallet answers) and no token until one is issued.
    assert.isNull(testRow.callback_url)
    assert.isNull(testRow.token_hash)
    assert.notStrictEqual(testRow.webhook_secret, liveRow.webhook_secret)
  }))
