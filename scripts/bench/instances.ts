/**
 * The bench's services and their databases: a PostgreSQL server (DATABASE_URL's, or an embedded cluster), databases
 * of the run's own on it (dropped at the end), and the service started on one, from this checkout or from a git
 * revision's tree.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, FileSystem, Layer, Redacted } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { SqlClient } from "effect/sql"
import { EmbeddedPostgres } from "../../src/platform/EmbeddedPostgres.ts"
import { freePort, startNode } from "./processes.ts"

/** A PostgreSQL server URL: DATABASE_URL's, or an embedded cluster living as long as the scope. */
export const databaseServer = Effect.gen(function*() {
  if (process.env.DATABASE_URL !== undefined) return process.env.DATABASE_URL
  const files = yield* FileSystem.FileSystem
  const dataDir = yield* files.makeTempDirectoryScoped({ prefix: "partner-api-bench-" })
  // The cluster's own user (postgres, when run as root) must reach it.
  yield* files.chmod(dataDir, 0o755)
  // Room for the fleet's three instances and the stream's readers beside the service kept running: about 30
  // connections each (its pool and the job queue's), past PostgreSQL's default of 100.
  const context = yield* Layer.build(EmbeddedPostgres.layer(dataDir, { database: "postgres", maxConnections: 300 }))
  return Redacted.value(Context.get(context, EmbeddedPostgres).adminUrl)
})

const withDatabase = (url: string) => (name: string) => {
  const target = new URL(url)
  target.pathname = `/${name}`
  return target.toString()
}

const adminStatement = (url: string, statement: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
  )

/** Databases of the run's own on `server`, and the service (its demo partner's token `token`) started on them. */
export const instancesOn = (server: string, token: string) => {
  /** A database of the run's own on the server, dropped at the end. */
  const scopedDatabase = (name: string) =>
    Effect.as(
      Effect.acquireRelease(
        adminStatement(server, `CREATE DATABASE ${name}`),
        () => Effect.ignore(adminStatement(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
      ),
      withDatabase(server)(name)
    )

  // Background catalog refreshes are pushed out of the run, so what a scenario seeds stays as seeded.
  // Partner wallets of the bench listen on this machine's loopback.
  const serviceOn = (database: string, env: Record<string, string>, cwd?: string) =>
    Effect.gen(function*() {
      const port = yield* freePort()
      const { handle, output } = yield* startNode(
        ["src/main.ts"],
        {
          PORT: String(port),
          HOST: "127.0.0.1",
          DATABASE_URL: database,
          DEMO_PARTNER_TOKEN: token,
          LOG_LEVEL: "Info",
          CATALOG_REFRESH_INTERVAL: "24 hours",
          CATALOG_LIVE_REFRESH_INTERVAL: "24 hours",
          PARTNER_CALLBACK_ALLOW_PRIVATE: "true",
          // One partner sends everything: its allowance is checked on every request, never spent.
          PARTNER_RATE_LIMIT: "1000000000",
          // BENCH_CPU_PROF=<dir>: a CPU profile of the service under test, written when it stops.
          ...(process.env.BENCH_CPU_PROF !== undefined && cwd === undefined
            ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` }
            : {}),
          ...env
        },
        /Listening on/,
        "60 seconds",
        cwd
      )
      return { url: `http://127.0.0.1:${port}`, pid: handle.pid, output }
    })
  /** An instance from `cwd` (this checkout when undefined) on a database of its own, `partner_api_bench_<pid>_<name>`. */
  const instanceApart = (name: string, env: Record<string, string>, cwd?: string) =>
    Effect.gen(function*() {
      const database = yield* scopedDatabase(
        `partner_api_bench_${process.pid}_${name.replace(/[^A-Za-z0-9]/g, "_").toLowerCase()}`
      )
      const instance = yield* serviceOn(database, env, cwd)
      const sql = Context.get(
        yield* Layer.build(PgClient.layer({ url: Redacted.make(database), maxConnections: 2 })),
        SqlClient.SqlClient
      )
      return {
        ...instance,
        sql,
        databaseUrl: database,
        startAgain: (more: Record<string, string>) => serviceOn(database, more, cwd)
      }
    })
  const startRevision = (revision: string, env: Record<string, string>) =>
    Effect.gen(function*() {
      const files = yield* FileSystem.FileSystem
      const tree = yield* files.makeTempDirectoryScoped({ prefix: "partner-api-baseline-" })
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const exported = yield* spawner.spawn(
        ChildProcess.make("sh", ["-c", `git archive ${revision} | tar -x -C ${tree}`])
      )
      if ((yield* exported.exitCode) !== 0) return yield* Effect.die(`git archive ${revision} failed`)
      yield* files.symlink(`${process.cwd()}/node_modules`, `${tree}/node_modules`)
      return yield* instanceApart(revision, env, tree)
    })
  return { instanceApart, scopedDatabase, serviceOn, startRevision }
}
