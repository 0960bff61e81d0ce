/**
 * The wallet under load: the aggregator's WinBet calls (every one a new
 * transaction: a signed bet callback to the partner, the bet written pending
 * and settled, and for one in four a win through the outbox) with the
 * partner's wallet answering on this machine. The baseline, run in the same
 * rounds, is the plain program of winbet-floor.ts: the same two durable
 * commits and the same partner call, nothing else (the limit of this design).
 * BENCH_BASELINE revisions run beside them on databases of their own. Then a
 * storm of 50 copies of one transaction, and how long the outbox takes to
 * drain what the run left.
 */
import type autocannon from "autocannon"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { type BenchContext, databaseNameOf, fetchText, type Scenario, scopedDatabase } from "./context.ts"
import { baselineRevisions, number, recordGoal } from "./goals.ts"
import { compare, type Comparison, freePort, printTable, type Target } from "./harness.ts"
import { startNode } from "./processes.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const players = 1_000

/** A partner's wallet on this machine, checking signatures with `secret`. */
const partnerWallet = (secret: string) =>
  Effect.gen(function*() {
    const port = yield* freePort()
    yield* startNode(["scripts/bench/partner-wallet.ts"], { PORT: String(port), SECRET: secret }, /Listening on/)
    return `http://127.0.0.1:${port}`
  })

/** A partner whose wallet is a local process, and its players, on one service's database. */
export const setUp = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const [partner] = yield* sql<{ id: string; webhook_secret: string }>`
      WITH p AS (
        INSERT INTO partners (name, slug) VALUES ('Bench Wallet Partner', 'bench-wallet')
        ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name RETURNING id
      )
      INSERT INTO partner_environments (partner_id, environment) SELECT id, 'live' FROM p
      ON CONFLICT (partner_id, environment) DO UPDATE SET callback_url = NULL
      RETURNING partner_id::text AS id, webhook_secret
    `
    const wallet = yield* partnerWallet(partner.webhook_secret)
    yield* sql`UPDATE partner_environments SET callback_url = ${`${wallet}/wallet`}
               WHERE partner_id = ${Number(partner.id)} AND environment = 'live'`
    // A baseline revision from before currencies keeps balances in units and players without a currency.
    const [{ currencies }] = yield* sql<{ currencies: boolean }>`
      SELECT EXISTS (SELECT 1 FROM information_schema.columns
                     WHERE table_name = 'partner_players' AND column_name = 'currency') AS currencies
    `
    const codes = currencies
      ? yield* sql<{ internal_user_id: string }>`
          INSERT INTO partner_players (partner_id, environment, external_player_id, currency, balance)
          SELECT ${Number(partner.id)}, 'live', 'bench-player-' || n, 'BRL', 100000000
          FROM generate_series(1, ${players}) AS n
          ON CONFLICT (partner_id, environment, external_player_id, currency) DO UPDATE SET balance = EXCLUDED.balance
          RETURNING internal_user_id::text
        `
      : yield* sql<{ internal_user_id: string }>`
          INSERT INTO partner_players (partner_id, environment, external_player_id, balance)
          SELECT ${Number(partner.id)}, 'live', 'bench-player-' || n, 1000000 FROM generate_series(1, ${players}) AS n
          ON CONFLICT (partner_id, environment, external_player_id) DO UPDATE SET balance = EXCLUDED.balance
          RETURNING internal_user_id::text
        `
    const [agent] = yield* sql<{ value: string }>`SELECT value FROM service_secrets WHERE name = 'sandbox_agent_secret'`
    return { wallet, userCodes: codes.map((row) => Number(row.internal_user_id)), agentSecret: agent.value }
  })

/** The plain program of winbet-floor.ts on a database of its own, with a partner wallet of its own. */
export const startFloor = (context: BenchContext) =>
  Effect.gen(function*() {
    const database = yield* scopedDatabase(context, `partner_api_bench_${process.pid}_floor`)
    const secret = "whsec_bench_floor"
    const agentSecret = "bench-floor-agent-secret"
    const wallet = yield* partnerWallet(secret)
    const port = yield* freePort()
    const { handle } = yield* startNode(["scripts/bench/winbet-floor.ts"], {
      PORT: String(port),
      DATABASE_URL: database,
      PARTNER_URL: `${wallet}/wallet`,
      SECRET: secret,
      AGENT_SECRET: agentSecret,
      PLAYERS: String(players)
    }, /Listening on/)
    const userCodes = Array.from({ length: players }, (_, i) => i + 1)
    return { url: `http://127.0.0.1:${port}`, pid: handle.pid, database, wallet, userCodes, agentSecret }
  })

/** WinBet bodies for one target: a new transaction each, one in four with a win. */
export const calls = (
  setup: { readonly userCodes: ReadonlyArray<number>; readonly agentSecret: string },
  prefix: string
) => {
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

export const undelivered = (sql: SqlClient.SqlClient) =>
  sql<{ n: number }>`SELECT count(*)::int AS n FROM partner_callbacks WHERE status <> 'delivered' AND kind <> 'bet'`
    .pipe(
      Effect.map(([row]) => row.n)
    )

/**
 * Waits until every target's outbox is delivered, so the next target does not pay for the last one's deliveries. A
 * target whose outbox stops draining (a delivery queue that stalled) is named and no longer waited for, rather than
 * hanging the run: within `patience` of its last progress.
 */
export const drainedOf = (targets: ReadonlyArray<{ readonly name: string; readonly sql: SqlClient.SqlClient }>) => {
  const patience = 60_000
  const stalled = new Set<string>()
  return Effect.gen(function*() {
    const progress = new Map<string, { left: number; at: number }>()
    while (true) {
      const waiting = targets.filter((target) => !stalled.has(target.name))
      const left = yield* Effect.forEach(waiting, (target) => undelivered(target.sql))
      if (left.every((n) => n === 0)) return
      for (const [i, target] of waiting.entries()) {
        const last = progress.get(target.name)
        if (last === undefined || left[i] < last.left) {
          progress.set(target.name, { left: left[i], at: performance.now() })
        } else if (left[i] > 0 && performance.now() - last.at > patience) {
          stalled.add(target.name)
          console.log(`  ${target.name}: ${left[i]} notifications stopped draining; no longer waited for`)
        }
      }
      yield* Effect.sleep("100 millis")
    }
  })
}

export const walletScenario: Scenario = (context) =>
  Effect.gen(function*() {
    const headers = { "content-type": "application/json" }
    const after = yield* setUp(context.sql)
    const floor = yield* startFloor(context)
    const revisions = yield* Effect.forEach(baselineRevisions, (revision) =>
      Effect.gen(function*() {
        const instance = yield* context.startRevision(revision, {})
        const setup = yield* setUp(instance.sql)
        return { revision, instance, setup, calls: calls(setup, `rev-${revision}`) }
      }))
    const afterCalls = calls(after, "after")
    const floorCalls = calls(floor, "floor")
    // Every target answers once before the rounds start (and must answer OK).
    for (
      const [url, body] of [
        [context.baseUrl, afterCalls.next()],
        [floor.url, floorCalls.next()],
        ...revisions.map((r) => [r.instance.url, r.calls.next()])
      ]
    ) {
      const answer = yield* fetchText(`${url}/aggregator/wallet`, { method: "POST", headers, body })
      if (!answer.includes(`"msg":""`)) return yield* Effect.die(`A WinBet at ${url} answered ${answer}`)
    }
    // Each run leaves wins in its outbox; they are delivered before the next run starts, or the next
    // target would pay for the previous one's deliveries.
    const drained = drainedOf([
      { name: "the service", sql: context.sql },
      ...revisions.map((r) => ({ name: `the service at ${r.revision}`, sql: r.instance.sql }))
    ])
    const target = (
      name: string,
      served: { readonly url: string; readonly pid: number; readonly databaseUrl: string },
      request: autocannon.Request,
      at: number
    ): Target => ({
      name,
      options: {
        url: served.url,
        pid: served.pid,
        database: databaseNameOf(served.databaseUrl),
        headers,
        requests: [request],
        connections: at,
        seconds
      },
      settle: drained
    })
    const at = (n: number): Array<Target> => [
      target(`plain node:http + pg, ${n} conn.`, { ...floor, databaseUrl: floor.database }, floorCalls.request, n),
      target(`service, ${n} conn.`, { ...context, url: context.baseUrl }, afterCalls.request, n),
      ...revisions.map((r) => target(`service at ${r.revision}, ${n} conn.`, r.instance, r.calls.request, n))
    ]
    const rows = yield* compare([...at(connections), ...at(10)])
    const half = rows.length / 2
    printTable(
      `POST /aggregator/wallet: WinBet, a new transaction each, ${
        players.toLocaleString("en-US")
      } players, the partner's wallet local (${connections} connections, ${seconds} s per round)`,
      rows.slice(0, half)
    )
    printTable(`The same at 10 connections`, rows.slice(half))
    recordWalletGoals(rows.slice(0, half), rows.slice(half), revisions.map((r) => r.revision))

    // What the run left in the outbox, and how long it takes to drain.
    const started = performance.now()
    const left = yield* undelivered(context.sql)
    while ((yield* undelivered(context.sql)) > 0 && performance.now() - started < 120_000) {
      yield* Effect.sleep("100 millis")
    }
    const [{ delivered, transactions }] = yield* context.sql<{ delivered: number; transactions: number }>`
      SELECT (SELECT count(*)::int FROM partner_callbacks WHERE kind = 'win' AND status = 'delivered') AS delivered,
             (SELECT count(*)::int FROM wallet_transactions) AS transactions
    `
    console.log(
      `  ledger: ${transactions.toLocaleString("en-US")} transactions; wins delivered: ${
        delivered.toLocaleString("en-US")
      }; ` +
        `left pending when the load stopped: ${left.toLocaleString("en-US")}, drained in ${
          Math.round(performance.now() - started)
        } ms`
    )

    // 50 copies of one transaction at once: one bet reaches the partner, one answer for all.
    const url = `${context.baseUrl}/aggregator/wallet`
    const storm = afterCalls.call(`bench-storm-${process.pid}`, after.userCodes[0], 2)
    const answers = yield* Effect.promise(() =>
      Promise.all(
        Array.from({ length: 50 }, () => fetch(url, { method: "POST", headers, body: storm }).then((r) => r.text()))
      )
    )
    const stats = yield* Effect.promise(() =>
      fetch(`${after.wallet}/__stats`).then((r) =>
        r.json() as Promise<{ received: number; rejected: number; maxCopies: number }>
      )
    )
    console.log(
      `  50 copies of one transaction at once: ${new Set(answers).size} distinct answer(s); ` +
        `the most copies of any event the partner received: ${stats.maxCopies}; signatures rejected: ${stats.rejected}`
    )

    // BENCH_INDEX_STATS=1: how often the run read each index of the wallet's tables (pg_stat_user_indexes).
    if (process.env.BENCH_INDEX_STATS !== undefined) {
      const used = yield* context.sql<{ index: string; scans: number }>`
        SELECT indexrelname AS index, idx_scan::int AS scans FROM pg_stat_user_indexes
        WHERE relname IN ('wallet_transactions', 'wallet_rounds', 'partner_callbacks', 'partner_players')
        ORDER BY relname, indexrelname
      `
      console.log(`  index scans: ${used.map((row) => `${row.index} ${row.scans}`).join(", ")}`)
    }
  }).pipe(Effect.scoped)

/** Rows: the floor first, then the service, then each revision. */
const recordWalletGoals = (
  at50: ReadonlyArray<Comparison>,
  at10: ReadonlyArray<Comparison>,
  revisions: ReadonlyArray<string>
) => {
  const [floor50, service50, ...revisions50] = at50
  const [floor10, service10, ...revisions10] = at10
  const ratio = (row: Comparison) => row.result.requestsPerSecond / floor50.result.requestsPerSecond
  const perSecond = (row: Comparison) => `${number(row.result.requestsPerSecond)}/s`
  recordGoal({
    path: `WinBet, partner wallet local, ${connections} connections`,
    baseline: `plain node:http + pg: ${perSecond(floor50)}`,
    service: perSecond(service50),
    figure: `${ratio(service50).toFixed(2)} of it`,
    goal: ">= 0.60 of it, >= 1,000/s",
    met: ratio(service50) >= 0.6 && service50.result.requestsPerSecond >= 1_000,
    revisions: revisions50.map((row, i) => ({
      revision: revisions[i],
      figure: `${ratio(row).toFixed(2)}, ${perSecond(row)}`
    }))
  })
  recordGoal({
    path: "WinBet, 10 connections",
    baseline: `plain node:http + pg: p99 ${number(floor10.result.p99)} ms, ${perSecond(floor10)}`,
    service: `p99 ${number(service10.result.p99)} ms, ${perSecond(service10)}`,
    figure: `p99 ${number(service10.result.p99)} ms`,
    goal: "p99 <= 25 ms",
    met: service10.result.p99 <= 25,
    revisions: revisions10.map((row, i) => ({ revision: revisions[i], figure: `p99 ${number(row.result.p99)} ms` }))
  })
}
