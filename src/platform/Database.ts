import * as NodeServices from "@effect/platform-node/NodeServices"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Context, Effect, FileSystem, Layer, Option, Path, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { AppConfig } from "./AppConfig.ts"
import { CurrencyConfig } from "./CurrencyConfig.ts"
import { EmbeddedPostgres } from "./EmbeddedPostgres.ts"

/** The numbered plain-SQL migrations, `sql/NNNN_name.sql`, next to src/. */
export const migrationsDirectory = fileURLToPath(new URL("../../sql", import.meta.url))

/**
 * Loads `NNNN_name.sql` files for effect's migrator. The driver speaks the
 * extended query protocol, which takes one statement per call, so each file
 * runs as one anonymous PL/pgSQL block: plain DDL runs unchanged inside it,
 * and the migrator's transaction makes the whole file all-or-nothing.
 */
export const sqlFileLoader = (
  directory: string,
  settings: Readonly<Record<string, string>> = {}
): PgMigrator.Loader<FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const files = yield* fs.readDirectory(directory).pipe(
      Effect.mapError((cause) =>
        new PgMigrator.MigrationError({ kind: "Failed", cause, message: `Cannot read migrations in ${directory}` })
      )
    )
    const migrations: Array<PgMigrator.ResolvedMigration> = []
    for (const file of files) {
      const match = /^(\d+)_([\w-]+)\.sql$/.exec(file)
      if (match === null) continue
      const load = fs.readFileString(path.join(directory, file)).pipe(
        Effect.orDie,
        Effect.map((text) =>
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            Effect.andThen(
              // Settings a migration reads with current_setting(), for this migration's transaction only.
              Effect.forEach(Object.entries(settings), ([name, value]) =>
                sql`SELECT set_config(${name}, ${value}, true)`, { discard: true }),
              sql.unsafe(`DO $migration$ BEGIN\n${text}\nEND $migration$`)
            ))
        )
      )
      migrations.push([Number(match[1]), match[2], load])
    }
    return migrations.sort(([a], [b]) =>
      a - b
    )
  })

/** What migrations read of the configuration: the currency rows written before currencies existed were in. */
export const migrationSettings = Effect.map(CurrencyConfig.config, ({ defaultCurrency }) => ({
  "partner_api.default_currency": defaultCurrency.code,
  "partner_api.default_currency_exponent": String(defaultCurrency.exponent)
}))

/** Applies pending migrations; safe to run from several processes at once (the migrator locks its table). */
export const migrate = Effect.flatMap(
  Effect.mapError(
    migrationSettings,
    (cause) => new PgMigrator.MigrationError({ kind: "Failed", cause, message: cause.message })
  ),
  (settings) => PgMigrator.run({ loader: sqlFileLoader(migrationsDirectory, settings) })
).pipe(Effect.provide(NodeServices.layer))

/**
 * Creates or upgrades the job queue's own schema (graphile-worker's
 * `graphile_worker`), which the fleet's schedules run on. It keeps its own
 * migrations; concurrent starts are safe.
 */
export const migrateJobQueue = (url: Redacted.Redacted) =>
  Effect.tryPromise({
    // Imported here, not at the top: loading graphile-worker costs every admin CLI command a fifth of a second.
    try: async () => {
      const [{ Logger, runMigrations }, { Pool }] = await Promise.all([import("graphile-worker"), import("pg")])
      // A pool of ours, ended before this returns: given only a URL, graphile-worker ends the pool it makes without
      // waiting, its error handlers gone, and a connection the server closes meanwhile (the database dropped or
      // stopping) raises an unhandled 'error' that takes the process down. Errors that matter reach the queries.
      const pool = new Pool({ connectionString: Redacted.value(url), max: 1 })
      const ignore = () => {}
      pool.on("error", ignore)
      pool.on("connect", (client) => client.on("error", ignore))
      try {
        // graphile-worker logs through its own logger; its migrations have nothing worth a line.
        await runMigrations({ pgPool: pool, logger: new Logger(() => () => {}) })
      } finally {
        await pool.end()
      }
    },
    catch: (cause) =>
      new PgMigrator.MigrationError({ kind: "Failed", cause, message: "Cannot migrate the job queue schema" })
  })

/** The URL of the database the service uses, for the parts that keep their own connections (the job queue). */
export class DatabaseUrl
  extends Context.Service<DatabaseUrl, Redacted.Redacted>()("partner-api/platform/DatabaseUrl")
{}

/** The newest migration a folder holds: ours are `NNNN_name.sql`, graphile-worker's `NNNNNN.sql`. */
const newestMigration = (directory: string) =>
  Math.max(0, ...readdirSync(directory).map((file) => Number(/^(\d+)[_.]/.exec(file)?.[1] ?? 0)))

/**
 * Whether the database already has every migration of this code and of its graphile-worker. The migrators load
 * every file and graphile-worker itself before finding nothing to do, a fifth of a second of CPU that each admin
 * CLI command paid; any doubt (a table missing, an error) runs them.
 */
const isMigrated = Effect.gen(function*() {
  const newest = {
    app: newestMigration(migrationsDirectory),
    queue: newestMigration(fileURLToPath(new URL("../sql", import.meta.resolve("graphile-worker"))))
  }
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ app: number | null; queue: number | null }>`
    SELECT (SELECT max(migration_id) FROM effect_sql_migrations) AS app,
           (SELECT max(id) FROM graphile_worker.migrations) AS queue`
  return row?.app === newest.app && row.queue === newest.queue
}).pipe(Effect.orElseSucceed(() => false))

/** A pooled client for one database URL, migrated before anything uses it (unless it is up to date already). */
export const ofUrl = (url: Redacted.Redacted) =>
  Layer.effectDiscard(
    Effect.when(Effect.andThen(migrate, migrateJobQueue(url)), Effect.map(isMigrated, (done) => !done))
  )
    .pipe(
      Layer.provideMerge(Layer.succeed(DatabaseUrl, url)),
      Layer.provideMerge(PgClient.layer({
        url,
        maxConnections: 20,
        connectTimeout: "5 seconds",
        applicationName: "partner-api",
        // Short queries only: compiling a plan (tens of ms) costs more than any of them runs.
        startupParameters: { jit: "off" }
      }))
    )

/**
 * The database: `DATABASE_URL` when set, otherwise the embedded cluster
 * under `DATA_DIR`, which this layer starts and, on shutdown, stops after the
 * pool has closed.
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  return Option.match(config.databaseUrl, {
    onSome: ofUrl,
    onNone: () =>
      Layer.unwrap(Effect.gen(function*() {
        const embedded = yield* EmbeddedPostgres
        return ofUrl(embedded.url)
      })).pipe(
        Layer.provide(EmbeddedPostgres.layer(config.dataDir))
      )
  })
}))
