/**
 * The wallet under load: the aggregator's WinBet calls (every one a new
 * transaction: a signed bet callback to the partner, a ledger entry, and for
 * one in four a win through the outbox) with the partner's wallet answering
 * on this machine, against a raw node:http server answering the same body.
 * The service as it was before the write-ahead ledger (BENCH_WALLET_BASELINE,
 * a git revision) runs beside it on a database of its own, so before and
 * after are measured in the same minutes. Then a storm of 50 copies of one
 * transaction, and how long the outbox takes to drain what the run left.
 */
import type autocannon from "autocannon"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { fetchText, fixedBodyServer, type Scenario } from "./context.ts"
import { compare, freePort, printTable } from "./harness.ts"
import { startNode } from "./processes.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
/** The last revision before the wallet became a write-ahead state machine. */
const baseline = process.env.BENCH_WALLET_BASELINE ?? "e984339"
const players = 1_000

/** A partner whose wallet is a local process, and its players, on one service's database. */
const setUp = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    // The baseline revision keeps a partner's callback URL and secret on `partners`; later ones per environment.
    const [{ environments }] = yield* sql<{ environments: boolean }>`
      SELECT to_regclass('partner_environments') IS NOT NULL AS environments
    `
    const [partner] = environments
      ? yield* sql<{ id: string; webhook_secret: string }>`
        WITH p AS (
          INSERT INTO partners (name, slug) VALUES ('Bench Wallet Partner', 'bench-wallet')
          ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name RETURNING id
        )
        INSERT INTO partner_environments (partner_id, environment) SELECT id, 'live' FROM p
        ON CONFLICT (partner_id, environment) DO UPDATE SET callback_url = NULL
        RETURNING partner_id::text AS id, webhook_secret
      `
      : yield* sql<{ id: string; webhook_secret: string }>`
        INSERT INTO partners (name, slug, token_hash) VALUES ('Bench Wallet Partner', 'bench-wallet', sha256('bench-wallet'))
        ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name
        RETURNING id::text, webhook_secret
      `
    const port = yield* freePort()
    yield* startNode(["scripts/bench/partner-wallet.ts"], { PORT: String(port), SECRET: partner.webhook_secret }, /Listening on/)
    const wallet = `http://127.0.0.1:${port}`
    yield* environments
      ? sql`UPDATE partner_environments SET callback_url = ${`${wallet}/wallet`} WHERE partner_id = ${Number(partner.id)} AND environment = 'live'`
      : sql`UPDATE partners SET callback_url = ${`${wallet}/wallet`} WHERE id = ${Number(partner.id)}`
    const codes = yield* sql<{ internal_user_id: string }>`
      INSERT INTO partner_players (partner_id, external_player_id, balance)
      SELECT ${Number(partner.id)}, 'bench-player-' || n, 1000000 FROM generate_series(1, ${players}) AS n
      ON CONFLICT (partner_id, external_player_id) DO UPDATE SET balance = EXCLUDED.balance
      RETURNING internal_user_id::text
    `
    const [agent] = yield* sql<{ value: string }>`SELECT value FROM service_secrets WHERE name = 'sandbox_agent_secret'`
    return { wallet, userCodes: codes.map((row) => Number(row.internal_user_id)), agentSecret: agent.value }
  })

/** WinBet bodies for one service: a new transaction each, one in four with a win. */
const calls = (setup: { readonly userCodes: ReadonlyArray<number>; readonly agentSecret: string }, prefix: string) => {
  let counter = 0
  const call = (txnId: string, userCode: number, win: number) =>
    JSON.stringify({
      type: "WinBet",
      user_code: userCode,
      agent_code: "sandbox",
      agent_secret: setup.agentSecret,
      game_type: "slot",
      game_original: true,
      slot: {
        bet: 1,
        win,
        type: "BASE",
        txn_id: txnId,
        round_id: txnId,
        txn_type: "debit_credit",
        game_code: "ag-hidden-fortune",
        provider_code: "aurora-gaming"
      }
    })
  const next = () => {
    const n = ++counter
    return call(`bench-${prefix}-${process.pid}-${n}`, setup.userCodes[n % setup.userCodes.length], n % 4 === 0 ? 2 : 0)
  }
  return {
    call,
    next,
    request: {
      method: "POST" as const,
      path: "/aggregator/wallet",
      setupRequest: (request: autocannon.Request) => ({ ...request, body: next() })
    }
  }
}

export const walletScenario: Scenario = (context) =>
  Effect.gen(function*() {
    const after = yield* setUp(context.sql)
    const before = yield* context.startRevision(baseline, {})
    const beforeSetup = yield* setUp(before.sql)
    const afterCalls = calls(after, "after")
    const beforeCalls = calls(beforeSetup, "before")
    const headers = { "content-type": "application/json" }
    const url = `${context.baseUrl}/aggregator/wallet`
    const sample = yield* fetchText(url, { method: "POST", headers, body: afterCalls.next() })
    yield* fetchText(`${before.url}/aggregator/wallet`, { method: "POST", headers, body: beforeCalls.next() })
    const raw = yield* fixedBodyServer("scripts/bench/raw-server.ts", sample)
    // Each run leaves wins in its outbox; they are delivered before the next run starts, or the next
    // target would pay for the previous one's deliveries.
    const undelivered = (sql: SqlClient.SqlClient) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM partner_callbacks WHERE status <> 'delivered' AND kind <> 'bet'`.pipe(
        Effect.map(([row]) => row.n)
      )
    const drained = Effect.gen(function*() {
      while ((yield* undelivered(context.sql)) + (yield* undelivered(before.sql)) > 0) yield* Effect.sleep("100 millis")
    })
    const target = (name: string, service: string, request: autocannon.Request, at: number) => ({
      name,
      options: { url: service, headers, requests: [request], connections: at, seconds },
      settle: drained
    })
    const rows = yield* compare([
      { name: "raw node:http, same body", options: { url: raw, method: "POST", headers, requests: [afterCalls.request], connections, seconds } },
      target(`before (${baseline}), ${connections} conn.`, before.url, beforeCalls.request, connections),
      target(`after, ${connections} conn.`, context.baseUrl, afterCalls.request, connections),
      target(`before (${baseline}), 10 conn.`, before.url, beforeCalls.request, 10),
      target("after, 10 conn.", context.baseUrl, afterCalls.request, 10)
    ])
    printTable(
      `POST /aggregator/wallet: WinBet, a new transaction each, ${players.toLocaleString("en-US")} players, the partner's wallet local (${seconds} s per round)`,
      rows
    )
    const ratio = (a: number, b: number) => (rows[a].result.requestsPerSecond / rows[b].result.requestsPerSecond).toFixed(2)
    console.log(`  after / before: ${ratio(2, 1)} at ${connections} connections, ${ratio(4, 3)} at 10`)

    // What the run left in the outbox, and how long it takes to drain.
    const pending = context.sql<{ n: number }>`SELECT count(*)::int AS n FROM partner_callbacks WHERE status <> 'delivered' AND kind <> 'bet'`
    const started = performance.now()
    const left = (yield* pending)[0].n
    while ((yield* pending)[0].n > 0 && performance.now() - started < 120_000) yield* Effect.sleep("100 millis")
    const [{ delivered, transactions }] = yield* context.sql<{ delivered: number; transactions: number }>`
      SELECT (SELECT count(*)::int FROM partner_callbacks WHERE kind = 'win' AND status = 'delivered') AS delivered,
             (SELECT count(*)::int FROM wallet_transactions) AS transactions
    `
    console.log(`  ledger: ${transactions.toLocaleString("en-US")} transactions; wins delivered: ${delivered.toLocaleString("en-US")}; ` +
      `left pending when the load stopped: ${left.toLocaleString("en-US")}, drained in ${Math.round(performance.now() - started)} ms`)

    // 50 copies of one transaction at once: one bet reaches the partner, one answer for all.
    const storm = afterCalls.call(`bench-storm-${process.pid}`, after.userCodes[0], 2)
    const answers = yield* Effect.promise(() =>
      Promise.all(Array.from({ length: 50 }, () => fetch(url, { method: "POST", headers, body: storm }).then((r) => r.text())))
    )
    const stats = yield* Effect.promise(() =>
      fetch(`${after.wallet}/__stats`).then((r) => r.json() as Promise<{ received: number; rejected: number; maxCopies: number }>)
    )
    console.log(
      `  50 copies of one transaction at once: ${new Set(answers).size} distinct answer(s); ` +
        `the most copies of any event the partner received: ${stats.maxCopies}; signatures rejected: ${stats.rejected}`
    )
  }).pipe(Effect.scoped)
