/**
 * `npm run bench [-- <scenario> ...]`: load figures for the service against
 * a raw node:http baseline started in the same run on the same machine.
 * Ratios, not absolute numbers, are what compare across machines.
 *
 * The service runs as its own process on a database of the run's own,
 * created on DATABASE_URL's server (or an embedded PostgreSQL in a temporary
 * directory) and dropped at the end.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { PgClient } from "@effect/sql-pg"
import type autocannon from "autocannon"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as os from "node:os"
import { hashToken } from "../src/partners/Partners.ts"
import { catalogScenario } from "./bench/catalog.ts"
import { fleetScenario } from "./bench/fleet.ts"
import { streamScenario } from "./bench/stream.ts"
import { hub88Scenario } from "./bench/hub88.ts"
import { walletScenario } from "./bench/wallet.ts"
import {
  type BenchContext,
  fakeBetsApi,
  fetchText,
  fixedBodyProcess,
  fixedBodyServer,
  type Scenario
} from "./bench/context.ts"
import { baselineRevisions, number, printGoals, recordGoal } from "./bench/goals.ts"
import { compare, printTable } from "./bench/harness.ts"
import { databaseServer, instancesOn } from "./bench/instances.ts"

const benchToken = "pak_bench_000000000000000000000000000000000000000"
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)

const statusScenario: Scenario = (context) =>
  Effect.gen(function*() {
    const path = "/api/partner/v1/status"
    const headers = { authorization: `Bearer ${context.token}` }
    const body = yield* fetchText(context.baseUrl + path, { headers })
    const raw = yield* fixedBodyProcess("scripts/bench/raw-server.ts", body)
    const floor = yield* fixedBodyProcess("scripts/bench/effect-floor-server.ts", body)
    const apiFloor = yield* fixedBodyProcess("scripts/bench/effect-api-floor-server.ts", body)
    // BENCH_BASELINE=<revision>[,<revision>...]: the service as it was there, beside the current one in the same rounds.
    const before = yield* Effect.forEach(baselineRevisions, (revision) =>
      Effect.map(context.startRevision(revision, {}), (instance) => ({ revision, instance })))
    const rows = yield* compare([
      { name: "raw node:http, same body", options: { url: raw.url + path, pid: raw.pid, connections, seconds } },
      { name: "effect router, same body", options: { url: floor.url + path, pid: floor.pid, connections, seconds } },
      {
        name: "effect HttpApi, same body",
        options: { url: apiFloor.url + path, pid: apiFloor.pid, connections, seconds }
      },
      ...before.map(({ instance, revision }) => ({
        name: `service at ${revision}`,
        options: { url: instance.url + path, pid: instance.pid, headers, connections, seconds }
      })),
      { name: "service", options: { url: context.baseUrl + path, pid: context.pid, headers, connections, seconds } }
    ])
    printTable(`GET /status, authenticated (${connections} connections, ${seconds} s per round)`, rows)
    const rawFigures = rows[0].result
    const ratio = (row: (typeof rows)[number]) =>
      row.result.requestsPerSecond / rawFigures.requestsPerSecond
    const service = rows[rows.length - 1]
    recordGoal({
      path: `GET /status, bearer token, limit on (${connections} connections)`,
      baseline: `raw node:http, same body: ${number(rawFigures.requestsPerSecond)} req/s`,
      service: `${number(service.result.requestsPerSecond)} req/s`,
      figure: `${ratio(service).toFixed(2)} of raw (CPU per request: ${
        rawFigures.cpuMicrosPerRequest === undefined || service.result.cpuMicrosPerRequest === undefined
          ? "-"
          : (rawFigures.cpuMicrosPerRequest / service.result.cpuMicrosPerRequest).toFixed(2)
      })`,
      goal: ">= 0.40 of raw",
      met: ratio(service) >= 0.4,
      revisions: before.map(({ revision }, i) => ({ revision, figure: `${ratio(rows[3 + i]).toFixed(2)} of raw` }))
    })
  }).pipe(Effect.scoped)

/** 40 providers x 500 games of generated names, next to the sandbox's own catalog (the benchmark's gateway). */
const seedGames = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`
      INSERT INTO casino_providers (aggregator, slug, upstream_code, name)
      SELECT 'sandbox', 'bench-provider-' || n, 'Bench Provider ' || n, 'Bench Provider ' || n
      FROM generate_series(1, 40) AS n
      ON CONFLICT DO NOTHING
    `
    yield* sql`
      INSERT INTO casino_games (aggregator, provider_id, game_code, name, image_url)
      SELECT p.aggregator, p.id, 'bench-' || p.id || '-' || g,
             (ARRAY['Golden','Lucky','Wild','Mystic','Royal','Crystal','Fire','Frozen','Thunder','Jungle'])[1 + g % 10]
               || ' ' ||
             (ARRAY['Fortune','Treasure','Reels','Gems','Riches','Quest','Dragon','Temple','Safari','Fiesta'])[1 + (g / 10) % 10]
               || ' ' || g,
             'https://img.example/' || g || '.png'
      FROM casino_providers p, generate_series(1, 500) AS g
      WHERE p.slug LIKE 'bench-provider-%'
      ON CONFLICT DO NOTHING
    `
    yield* sql`ANALYZE casino_games`
    const [{ total }] = yield* sql<{ total: number }>`SELECT count(*)::int AS total FROM casino_games`
    return total
  })

const gamesScenario: Scenario = (context) =>
  Effect.gen(function*() {
    const total = yield* seedGames(context.sql)
    const headers = { authorization: `Bearer ${context.token}` }
    const searches = ["fortune", "dragon 12", "LUCKY", "gems 4", "bench-7-", "zzz"]
    const paths = searches.map((term) => `/api/partner/v1/games?search=${encodeURIComponent(term)}&per_page=50`)
    const body = yield* fetchText(context.baseUrl + paths[0], { headers })
    const raw = yield* fixedBodyServer("scripts/bench/raw-server.ts", body)
    const uncached = (yield* context.startService({ CASINO_CATALOG_CACHE_TTL: "0 seconds" })).url
    const requests = paths.map((path) => ({ method: "GET" as const, path }))
    const rows = yield* compare([
      { name: "raw node:http, same body", options: { url: raw, requests, connections, seconds } },
      { name: "service", options: { url: context.baseUrl, headers, requests, connections, seconds } },
      {
        name: "service, cache TTL 0 (coalescing only)",
        options: { url: uncached, headers, requests, connections, seconds }
      }
    ])
    printTable(
      `GET /games?search=... over ${
        total.toLocaleString("en-US")
      } games, ${searches.length} terms in turn (${connections} connections, ${seconds} s per round)`,
      rows
    )
  }).pipe(Effect.scoped)

const launchScenario: Scenario = (context) =>
  Effect.gen(function*() {
    const headers = { authorization: `Bearer ${context.token}`, "content-type": "application/json" }
    const body = (player: string) =>
      JSON.stringify({
        external_player_id: player,
        player_name: "Bench Player",
        player_balance: 100,
        provider: "aurora-gaming",
        game_code: "ag-hidden-fortune"
      })
    const sample = yield* fetchText(`${context.baseUrl}/api/partner/v1/launch`, {
      method: "POST",
      headers,
      body: body("bench-sample")
    })
    const raw = yield* fixedBodyServer("scripts/bench/raw-server.ts", sample)
    // Every request is a different player among 5,000: first launches and returning players mixed.
    const launchRequest = {
      method: "POST" as const,
      path: "/api/partner/v1/launch",
      setupRequest: (request: autocannon.Request) => ({
        ...request,
        body: body(`bench-${Math.floor(Math.random() * 5_000)}`)
      })
    }
    const rows = yield* compare([
      {
        name: "raw node:http, same body",
        options: { url: raw, method: "POST", headers, requests: [launchRequest], connections, seconds }
      },
      { name: "service", options: { url: context.baseUrl, headers, requests: [launchRequest], connections, seconds } }
    ])
    printTable(
      `POST /launch, sandbox aggregator, 5,000 players (${connections} connections, ${seconds} s per round)`,
      rows
    )
  }).pipe(Effect.scoped)

/**
 * Sports odds through a BetsAPI stand-in that counts its calls: a burst of
 * 1,000 requests from 50 partners over 10 events (how many reach the
 * provider), then a sustained read of one cached event.
 */
const oddsScenario: Scenario = (context) =>
  Effect.gen(function*() {
    const { calls: callsSoFar, url: fake } = yield* fakeBetsApi()
    const oddsEnv = {
      SPORTS_PROVIDER: "betsapi",
      BETSAPI_BASE_URL: fake,
      BETSAPI_TOKEN: "bench-token",
      // Fifty partners' first requests all come from this one address: none of them is a guesser.
      AUTH_FAILURE_LIMIT: "1000000"
    }
    const { pid, url: service } = yield* context.startService(oddsEnv)

    const tokens = Array.from(
      { length: 50 },
      (_, i) => `pak_bench_odds_${String(i).padStart(2, "0")}_${"x".repeat(28)}`
    )
    for (const [i, token] of tokens.entries()) {
      yield* context.sql`
        WITH p AS (
          INSERT INTO partners (name, slug) VALUES (${`Bench Partner ${i}`}, ${`bench-odds-${i}`})
          ON CONFLICT (slug) DO NOTHING RETURNING id
        ),
        e AS (INSERT INTO partner_environments (partner_id, environment) SELECT id, 'live' FROM p RETURNING partner_id)
        INSERT INTO partner_tokens (partner_id, environment, token_hash) SELECT partner_id, 'live', ${
        hashToken(token)
      } FROM e
      `
    }
    const callsBefore = yield* callsSoFar
    const started = performance.now()
    const statuses = yield* Effect.promise(() =>
      Promise.all(
        Array.from({ length: 1_000 }, (_, i) =>
          fetch(`${service}/api/partner/v1/sports/events/${5000 + (i % 10)}/odds`, {
            headers: { authorization: `Bearer ${tokens[i % tokens.length]}` }
          }).then((r) => r.status))
      )
    )
    const burstMs = performance.now() - started
    const upstreamCalls = (yield* callsSoFar) - callsBefore
    console.log([
      "",
      "GET /sports/events/{id}/odds, a burst of 1,000 requests from 50 partners over 10 events (BetsAPI stand-in)",
      `  answered 200: ${statuses.filter((s) => s === 200).length} of 1,000 in ${
        Math.round(burstMs)
      } ms; upstream calls: ${upstreamCalls}`
    ].join("\n"))

    const path = "/api/partner/v1/sports/events/5000/odds"
    const headers = { authorization: `Bearer ${tokens[0]}` }
    const body = yield* fetchText(service + path, { headers })
    const raw = yield* fixedBodyProcess("scripts/bench/raw-server.ts", body)
    const before = yield* Effect.forEach(baselineRevisions, (revision) =>
      Effect.gen(function*() {
        const instance = yield* context.startRevision(revision, oddsEnv)
        yield* instance.sql`
          WITH p AS (INSERT INTO partners (name, slug) VALUES ('Bench Partner 0', 'bench-odds-0') RETURNING id),
          e AS (INSERT INTO partner_environments (partner_id, environment) SELECT id, 'live' FROM p RETURNING partner_id)
          INSERT INTO partner_tokens (partner_id, environment, token_hash) SELECT partner_id, 'live', ${
          hashToken(tokens[0])
        } FROM e
        `
        yield* fetchText(instance.url + path, { headers })
        return { revision, instance }
      }))
    const beforeSustained = yield* callsSoFar
    const rows = yield* compare([
      { name: "raw node:http, same body", options: { url: raw.url + path, pid: raw.pid, connections, seconds } },
      ...before.map(({ instance, revision }) => ({
        name: `service at ${revision}, cached odds`,
        options: { url: instance.url + path, pid: instance.pid, headers, connections, seconds }
      })),
      { name: "service, cached odds", options: { url: service + path, pid, headers, connections, seconds } }
    ])
    printTable(`GET /sports/events/{id}/odds, cached (${connections} connections, ${seconds} s per round)`, rows)
    const ratio = (row: (typeof rows)[number]) => row.result.requestsPerSecond / rows[0].result.requestsPerSecond
    const cachedOdds = rows[rows.length - 1]
    recordGoal({
      path: `GET /sports/events/{id}/odds, cached (${connections} connections)`,
      baseline: `raw node:http, same body: ${number(rows[0].result.requestsPerSecond)} req/s`,
      service: `${number(cachedOdds.result.requestsPerSecond)} req/s`,
      figure: `${ratio(cachedOdds).toFixed(2)} of raw`,
      goal: ">= 0.35 of raw",
      met: ratio(cachedOdds) >= 0.35,
      revisions: before.map(({ revision }, i) => ({ revision, figure: `${ratio(rows[1 + i]).toFixed(2)} of raw` }))
    })
    const after = yield* callsSoFar
    console.log(`  upstream calls during the sustained read: ${after - beforeSustained} (the 60 s cache lifetime)`)
  }).pipe(Effect.scoped)

const scenarios: Record<string, Scenario> = {
  status: statusScenario,
  games: gamesScenario,
  launch: launchScenario,
  odds: oddsScenario,
  catalog: catalogScenario,
  wallet: walletScenario,
  hub88: hub88Scenario,
  fleet: fleetScenario,
  stream: streamScenario
}

const main = Effect.gen(function*() {
  const wanted = process.argv.slice(2)
  const selected = wanted.length === 0 ? Object.keys(scenarios) : wanted
  for (const name of selected) {
    if (!(name in scenarios)) {
      return yield* Effect.die(`Unknown scenario "${name}". Known: ${Object.keys(scenarios).join(", ")}`)
    }
  }

  const server = yield* databaseServer
  const { instanceApart, scopedDatabase, serviceOn, startRevision } = instancesOn(server, benchToken)
  const databaseUrl = yield* scopedDatabase(`partner_api_bench_${process.pid}`)
  const startService = (env: Record<string, string>) => serviceOn(databaseUrl, env)
  const { url: baseUrl, pid } = yield* startService({})
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "unknown"}), database: ${
      process.env.DATABASE_URL === undefined ? "embedded" : "DATABASE_URL's server"
    }`
  )

  const sql = Context.get(
    yield* Layer.build(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 2 })),
    SqlClient.SqlClient
  )
  const context: BenchContext = {
    baseUrl,
    pid,
    token: benchToken,
    sql,
    databaseUrl,
    startService,
    startApart: instanceApart,
    startRevision
  }
  for (const name of selected) yield* scenarios[name](context)
  printGoals()
  console.log("(This machine is shared: figures move between runs; ratios within one run are what compare.)")
}).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

NodeRuntime.runMain(main)
