/**
 * The browser the console's tests drive, chosen once (Browser.ts) and printed; whether a Redis
 * answers for the fleet tests, printed when none does.
 *
 * One PostgreSQL for the whole run: DATABASE_URL's server when set,
 * otherwise an embedded cluster in a temporary directory. A migrated
 * template database is made once; each test file clones it into a database
 * of its own (TestDatabase). Everything the run created is dropped at the end.
 *
 * One compile cache for the run's node processes (NODE_COMPILE_CACHE, in a
 * temporary directory removed at the end): the workers and every service, CLI
 * and script a test starts strip a module's types and compile it once per run,
 * not once per process, from a fresh clone on.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { TestProject } from "vitest/node"
import * as Database from "../../src/platform/Database.ts"
import { EmbeddedPostgres } from "../../src/platform/EmbeddedPostgres.ts"
import { chooseChromium } from "./Browser.ts"
import { runNode } from "./process.ts"
import { redisAnswers, testRedisUrl } from "./RedisKeys.ts"
import { databaseUrl, quoteIdentifier } from "./urls.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** Whether the machine's Redis answers (TEST_REDIS_URL): the fleet tests are skipped without it. */
    redisAvailable: boolean
    testDatabase: {
      readonly adminUrl: string
      readonly template: string
      readonly prefix: string
    }
  }
}

const serverModule = pathToFileURL(path.resolve(import.meta.dirname, "../../src/server.ts")).href

const adminQuery = (
  adminUrl: string,
  run: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>,
  maxConnections = 1
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* run(sql)
  }).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl), maxConnections })),
    Effect.runPromise
  )

export default async function setup(project: TestProject) {
  const compileCache = process.env.NODE_COMPILE_CACHE === undefined
    ? await fs.mkdtemp(path.join(os.tmpdir(), "partner-api-compile-"))
    : undefined
  // Set before the workers start: they and every process they start inherit it.
  if (compileCache !== undefined) process.env.NODE_COMPILE_CACHE = compileCache
  // The service's modules go into it at once, while the template is migrated: Node writes a process's entries as it
  // exits, and the services a crash test kills (SIGKILL) never do, so each of them compiled everything again.
  const compiled = compileCache === undefined
    ? Promise.resolve()
    : Effect.runPromise(runNode(["--input-type=module", "-e", `await import(${JSON.stringify(serverModule)})`], {}))
  const chromium = await chooseChromium()
  console.log(`Browser tests drive ${chromium.description}.`)
  project.provide("chromium", chromium)
  const redisAvailable = await redisAnswers(testRedisUrl)
  if (!redisAvailable) {
    console.warn(`!!! No Redis answers at ${testRedisUrl} (TEST_REDIS_URL): the fleet tests are SKIPPED !!!`)
  }
  project.provide("redisAvailable", redisAvailable)

  let adminUrl = process.env.DATABASE_URL
  let stopEmbedded = async () => {}
  if (adminUrl === undefined) {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "partner-api-test-"))
    await fs.chmod(dataDir, 0o755) // the cluster may run as the postgres user
    const runtime = ManagedRuntime.make(EmbeddedPostgres.layer(dataDir, { database: "postgres" }).pipe(Layer.orDie))
    const embedded = await runtime.runPromise(Effect.service(EmbeddedPostgres))
    adminUrl = Redacted.value(embedded.adminUrl)
    stopEmbedded = async () => {
      await runtime.dispose()
      await fs.rm(dataDir, { recursive: true, force: true })
    }
  }

  const prefix = `pa_test_${Date.now().toString(36)}_${process.pid}`
  const template = `${prefix}_template`
  await adminQuery(adminUrl, (sql) => sql.unsafe(`CREATE DATABASE ${quoteIdentifier(template)}`))
  const templateUrl = Redacted.make(databaseUrl(adminUrl, template))
  await Effect.runPromise(Database.migrate.pipe(
    Effect.andThen(Database.migrateJobQueue(templateUrl)),
    Effect.provide(PgClient.layer({ url: templateUrl, maxConnections: 1 })),
    Effect.asVoid
  ))
  project.provide("testDatabase", { adminUrl, template, prefix })
  await compiled

  return async () => {
    const url = adminUrl!
    const dropsAtOnce = 6
    // What the workers left: their last clone, never taken, and drops they had not finished. A clone still being
    // made is not listed yet; it holds the template, whose drop waits for it, so the next round finds it.
    const dropRound = (sql: SqlClient.SqlClient) =>
      Effect.flatMap(
        sql<{ datname: string }>`SELECT datname FROM pg_database WHERE starts_with(datname, ${prefix})`,
        (rows) =>
          Effect.as(
            Effect.forEach(
              rows,
              ({ datname }) => sql.unsafe(`DROP DATABASE IF EXISTS ${quoteIdentifier(datname)} WITH (FORCE)`),
              // Each drop waits for a checkpoint; drops at once share one.
              { concurrency: dropsAtOnce }
            ),
            rows.length
          )
      )
    await adminQuery(
      url,
      (sql) => dropRound(sql).pipe(Effect.repeat({ while: (dropped) => dropped > 0, times: 5 })),
      dropsAtOnce
    )
    await stopEmbedded()
    // Node writes a process's new entries as it exits: a worker or service ending now may still be adding some.
    if (compileCache !== undefined) await fs.rm(compileCache, { recursive: true, force: true, maxRetries: 10 })
  }
}
