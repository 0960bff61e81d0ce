import { Effect, FileSystem, type Scope } from "effect"
import type { ChildProcessSpawner } from "effect/process"
import type { SqlClient } from "effect/sql"
import { freePort } from "./harness.ts"
import { startNode } from "./processes.ts"

export interface BenchContext {
  readonly baseUrl: string
  /** The service's process, for its CPU time per request. */
  readonly pid: number
  readonly token: string
  /** The bench database, for arranging data the scenario needs. */
  readonly sql: SqlClient.SqlClient
  /** Its URL (a scenario may make databases of its own beside it, on the same server). */
  readonly databaseUrl: string
  /** Starts another instance of the service on the same database, with extra settings. */
  readonly startService: (
    env: Record<string, string>
  ) => Effect.Effect<ServiceInstance, unknown, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope>
  /**
   * Starts this checkout's service on a database of its own (named by `name`), as a revision's instance is: a
   * scenario that measures an instance beside revisions' measures each alone on its database.
   */
  readonly startApart: (
    name: string,
    env: Record<string, string>
  ) => Effect.Effect<
    InstanceApart,
    unknown,
    ChildProcessSpawner.ChildProcessSpawner | Scope.Scope
  >
  /**
   * Starts the service as it was at a git revision (its tree exported to a temporary directory, this
   * checkout's node_modules beside it), on a database of its own: the baseline of a before-and-after row.
   */
  readonly startRevision: (
    revision: string,
    env: Record<string, string>
  ) => Effect.Effect<
    InstanceApart,
    unknown,
    ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem | Scope.Scope
  >
}

/** An instance on a database of its own. */
export interface InstanceApart extends ServiceInstance {
  readonly sql: SqlClient.SqlClient
  readonly databaseUrl: string
  /** Another instance of the same code on the same database, with other settings. */
  readonly startAgain: (
    env: Record<string, string>
  ) => Effect.Effect<ServiceInstance, unknown, ChildProcessSpawner.ChildProcessSpawner | Scope.Scope>
}

export interface ServiceInstance {
  readonly url: string
  readonly pid: number
  /** Every line the instance has written so far (JSON log lines). */
  readonly output: ReadonlyArray<string>
}

export type Scenario = (
  context: BenchContext
) => Effect.Effect<void, unknown, ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem>

/** Starts a fixed-body server (the raw baseline or the effect floor) and returns its URL. */
export const fixedBodyServer = (script: string, body: string) =>
  Effect.map(fixedBodyProcess(script, body), ({ url }) => url)

/** The same, with the server's pid, for its CPU time per request. */
export const fixedBodyProcess = (script: string, body: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const file = yield* fs.makeTempFileScoped({ suffix: ".json" })
    yield* fs.writeFileString(file, body)
    const port = yield* freePort()
    const { handle } = yield* startNode([script], { PORT: String(port), BODY_FILE: file }, /Listening on/)
    return { url: `http://127.0.0.1:${port}`, pid: handle.pid }
  })

/** A database of its own on the bench's server, beside the bench database; dropped at the end. Its URL. */
export const scopedDatabase = (context: BenchContext, name: string) =>
  Effect.gen(function*() {
    yield* Effect.acquireRelease(
      context.sql.unsafe(`CREATE DATABASE ${name}`),
      () => Effect.ignore(context.sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    )
    const url = new URL(context.databaseUrl)
    url.pathname = `/${name}`
    return url.toString()
  })

/** The database a connection URL names, as PostgreSQL's process titles name it. */
export const databaseNameOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1))

export const fetchText = (url: string, init?: RequestInit) =>
  Effect.promise(() => fetch(url, init).then((r) => r.text()))

/** Resident memory of a process, now and at its peak, in MiB (Linux /proc; null elsewhere). */
export const memoryOf = (pid: number) =>
  Effect.promise(async () => {
    try {
      const status = await import("node:fs/promises").then((fs) => fs.readFile(`/proc/${pid}/status`, "utf8"))
      const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) / 1024
      return { rss: field("VmRSS"), peak: field("VmHWM") }
    } catch {
      return null
    }
  })

/** The BetsAPI stand-in (scripts/bench/fake-betsapi.ts) on a port of its own: its URL and how many calls it answered so far. */
export const fakeBetsApi = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const port = yield* freePort()
    yield* startNode(["scripts/bench/fake-betsapi.ts"], { PORT: String(port), ...env }, /Listening on/)
    const url = `http://127.0.0.1:${port}`
    const calls = Effect.promise(() =>
      fetch(`${url}/__calls`).then((r) => r.json() as Promise<{ calls: number }>).then((body) => body.calls)
    )
    return { url, calls }
  })

export type FakeBetsApi = Effect.Success<ReturnType<typeof fakeBetsApi>>
