/**
 * `npm run bench [-- <scenario> ...]`: load figures for the service against
 * a raw node:http baseline started in the same run on the same machine.
 * Ratios, not absolute numbers, are what compare across machines.
 *
 * The service runs as its own process on DATABASE_URL when set, otherwise on
 * an embedded PostgreSQL in a temporary directory.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { compare, freePort, printTable, startNode } from "./bench/harness.ts"

const benchToken = "pak_bench_000000000000000000000000000000000000000"
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)

export interface BenchContext {
  readonly baseUrl: string
  readonly token: string
}

/** Starts a fixed-body server (the raw baseline or the effect floor) and returns its URL. */
const fixedBodyServer = (script: string, body: string) =>
  Effect.gen(function*() {
    const port = yield* freePort()
    yield* startNode([script], { PORT: String(port), BODY: body }, /Listening on/)
    return `http://127.0.0.1:${port}`
  })

const statusScenario = (context: BenchContext) =>
  Effect.gen(function*() {
    const path = "/api/partner/v1/status"
    const headers = { authorization: `Bearer ${context.token}` }
    const body = yield* Effect.promise(() => fetch(context.baseUrl + path, { headers }).then((r) => r.text()))
    const raw = yield* fixedBodyServer("scripts/bench/raw-server.ts", body)
    const floor = yield* fixedBodyServer("scripts/bench/effect-floor-server.ts", body)
    const rows = yield* compare([
      { name: "raw node:http, same body", options: { url: raw + path, connections, seconds } },
      { name: "effect router, same body", options: { url: floor + path, connections, seconds } },
      { name: "service", options: { url: context.baseUrl + path, headers, connections, seconds } }
    ])
    printTable(`GET /status, authenticated (${connections} connections, ${seconds} s per round)`, rows)
  }).pipe(Effect.scoped)

const scenarios: Record<string, (context: BenchContext) => Effect.Effect<void, unknown>> = {
  status: statusScenario
}

const main = Effect.gen(function*() {
  const wanted = process.argv.slice(2)
  const selected = wanted.length === 0 ? Object.keys(scenarios) : wanted
  for (const name of selected) {
    if (!(name in scenarios)) return yield* Effect.die(`Unknown scenario "${name}". Known: ${Object.keys(scenarios).join(", ")}`)
  }

  const port = yield* freePort()
  const env: Record<string, string | undefined> = {
    PORT: String(port),
    HOST: "127.0.0.1",
    DEMO_PARTNER_TOKEN: benchToken,
    LOG_LEVEL: "Info"
  }
  if (process.env.DATABASE_URL === undefined) {
    env.DATA_DIR = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const dir = await fs.mkdtemp(path.join(os.tmpdir(), "partner-api-bench-"))
        await fs.chmod(dir, 0o755)
        return dir
      }),
      (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
    )
  }
  yield* startNode(["src/main.ts"], env, /Listening on/)
  console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "unknown"}), database: ${
    process.env.DATABASE_URL === undefined ? "embedded" : "DATABASE_URL"
  }`)
  const context: BenchContext = { baseUrl: `http://127.0.0.1:${port}`, token: benchToken }
  for (const name of selected) yield* scenarios[name](context)
}).pipe(Effect.scoped)

NodeRuntime.runMain(main)
