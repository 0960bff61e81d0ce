/**
 * Hub88's wallet under load: on each connection a bet, then its win (each a new transaction, signed with Hub88's RSA
 * key over the exact body, as Hub88 calls), with the partner's wallet answering on this machine. The floor, in the
 * same rounds, is the plain program of winbet-floor.ts (two durable commits and the partner call per call) plus what
 * Hub88's protocol adds that no design removes: one RSA-SHA256 verify per call, measured apart here. Bodies are
 * signed before the rounds, so the load generator's signing does not take the machine's time from the service.
 * The service, and each BENCH_BASELINE revision in the same rounds, run the same calls on a database of its own.
 */
import type autocannon from "autocannon"
import { Effect } from "effect"
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { mintToken, tokenKeyOf } from "../../src/integrations/hub88/Hub88LaunchTokens.ts"
import { signBody, verifyBody } from "../../src/integrations/hub88/Hub88Signature.ts"
import type { SqlClient } from "effect/sql"
import type { Scenario, ServiceInstance } from "./context.ts"
import { databaseNameOf, fetchText } from "./context.ts"
import { baselineRevisions, number, recordGoal } from "./goals.ts"
import { benchRounds, compare, type Comparison, printTable, type Target } from "./harness.ts"
import { calls, drainedOf, setUp, startFloor } from "./wallet.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
/** Above any rate of new Hub88 pairs a service has reached here (735/s; a replay answers faster, and is not measured). */
const fastestPairsPerSecond = 1_200
/**
 * Bet-and-win pairs signed before the rounds, each sent once: every round of both connection counts, its 2 s warm-up
 * included, at the fastest rate. A run that needs more fails (below) rather than send a pair again: a pair sent again
 * is a replay, answered from the ledger without the partner's call, and would be counted as a new transaction.
 */
const pairs = Number(process.env.BENCH_HUB88_PAIRS ?? benchRounds * 2 * (seconds + 2) * fastestPairsPerSecond)
const gameCode = "clt_dragonrising"

const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048 })

/** Microseconds one RSA-SHA256 verify of a body of this size takes here (the floor's part of Hub88's protocol). */
const verifyMicros = (body: string, signature: string, publicKey: ReturnType<typeof rsa>["publicKey"]) => {
  const rounds = 2_000
  const started = performance.now()
  for (let i = 0; i < rounds; i++) verifyBody(body, signature, publicKey)
  return ((performance.now() - started) * 1_000) / rounds
}

type Keys = { readonly operator: ReturnType<typeof rsa>; readonly hub88: ReturnType<typeof rsa> }

/** The settings that make an instance Hub88's, with the operator's key and Hub88's. */
const hub88Settings = (keys: Keys) => ({
  CASINO_GATEWAY: "hub88",
  // Its game list is never asked for here: the wallet calls need none.
  HUB88_BASE_URL: "http://127.0.0.1:9",
  HUB88_OPERATOR_ID: "4242",
  HUB88_PRIVATE_KEY: keys.operator.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  HUB88_PUBLIC_KEY: keys.hub88.publicKey.export({ type: "spki", format: "pem" }).toString(),
  HUB88_CURRENCIES: "BRL"
})

/** Signed bet and win bodies for the players of an instance's database (`tag` keeps each instance's ids apart). */
const signedCalls = (keys: Keys, sql: SqlClient.SqlClient, tag: string) =>
  Effect.gen(function*() {
    const setup = yield* setUp(sql)
    const tokenKey = tokenKeyOf(keys.operator.privateKey)
    const signed = (body: string) => ({ body, signature: signBody(body, keys.hub88.privateKey) })
    return Array.from({ length: pairs }, (_, n) => {
      const user = String(setup.userCodes[n % setup.userCodes.length])
      const token = mintToken(tokenKey, { user, gameCode, currency: "BRL" }, Date.now() + 3_600_000, randomBytes(12))
      const txn = `${txnPrefix}${tag}-${n}`
      const common = { user, token, game_code: gameCode, currency: "BRL", round: `round-${txn}`, is_free: false }
      const bet = JSON.stringify({
        request_uuid: `req-bet-${txn}`,
        ...common,
        amount: 100_000,
        transaction_uuid: `${txn}-bet`,
        round_closed: false
      })
      const win = JSON.stringify({
        request_uuid: `req-win-${txn}`,
        ...common,
        amount: 200_000,
        transaction_uuid: `${txn}-win`,
        reference_transaction_uuid: `${txn}-bet`,
        round_closed: true
      })
      return { bet: signed(bet), win: signed(win) }
    })
  })
const txnPrefix = `bench-hub88-${process.pid}-`

/** A Hub88 instance to measure: where it answers, its bodies, and its database (whose ledger says what it took). */
interface Measured {
  readonly name: string
  readonly instance: ServiceInstance
  readonly sql: SqlClient.SqlClient
  readonly databaseUrl: string
  /** The bet each instance answers before the rounds (its pair is not among `calls`). */
  readonly first: Signed
  readonly calls: ReturnType<typeof hub88Calls>
}

/** An instance's signed pairs: the first answered before the rounds, the rest its rounds' calls. */
const measuredCalls = (bodies: ReadonlyArray<{ readonly bet: Signed; readonly win: Signed }>) => ({
  first: bodies[0].bet,
  calls: hub88Calls(bodies.slice(1))
})

type Signed = { readonly body: string; readonly signature: string }

/**
 * An instance's calls for all its rounds: on each connection a bet, then that bet's win, the pairs taken in turn from
 * the signed bodies, each once across every round and connection count. `taken` says how many pairs were asked for:
 * past the bodies' number they would be sent again (replays), which the scenario refuses to count.
 */
const hub88Calls = (bodies: ReadonlyArray<{ readonly bet: Signed; readonly win: Signed }>) => {
  let next = 0
  /** The connection's own context (autocannon keeps one per connection): which pair its last bet was. */
  type Pairing = { pair?: number }
  const request = (path: string, pick: (context: Pairing) => Signed): autocannon.Request => ({
    method: "POST",
    path,
    setupRequest: (request: autocannon.Request, context: object) => {
      const { body, signature } = pick(context as Pairing)
      return { ...request, body, headers: { ...request.headers, "x-hub88-signature": signature } }
    }
  })
  return {
    requests: [
      request("/aggregator/hub88/transaction/bet", (context) => {
        context.pair = next++ % bodies.length
        return bodies[context.pair].bet
      }),
      request("/aggregator/hub88/transaction/win", (context) => bodies[context.pair ?? 0].win)
    ],
    taken: () => next
  }
}

export const hub88Scenario: Scenario = (context) =>
  Effect.gen(function*() {
    const headers = { "content-type": "application/json" }
    const keys: Keys = { operator: rsa(), hub88: rsa() }
    // On a database of its own, as each revision's: no other instance's work is counted with it or slows it.
    const instance = yield* context.startApart("hub88", hub88Settings(keys))
    const measured: Array<Measured> = [{
      name: "service",
      instance,
      sql: instance.sql,
      databaseUrl: instance.databaseUrl,
      ...measuredCalls(yield* signedCalls(keys, instance.sql, "service"))
    }]
    for (const revision of baselineRevisions) {
      const at = yield* context.startRevision(revision, hub88Settings(keys))
      measured.push({
        name: `service at ${revision}`,
        instance: at,
        sql: at.sql,
        databaseUrl: at.databaseUrl,
        ...measuredCalls(yield* signedCalls(keys, at.sql, revision))
      })
    }
    const verify = verifyMicros(
      measured[0].first.body,
      measured[0].first.signature,
      keys.hub88.publicKey
    )
    const floor = yield* startFloor(context)
    const floorCalls = calls(floor, "hub88-floor")
    // Each answers once before the rounds start (and must answer OK).
    for (const { first: bet, instance } of measured) {
      const first = yield* fetchText(`${instance.url}/aggregator/hub88/transaction/bet`, {
        method: "POST",
        headers: { ...headers, "x-hub88-signature": bet.signature },
        body: bet.body
      })
      if (!first.includes(`"RS_OK"`)) return yield* Effect.die(`A Hub88 bet answered ${first}`)
    }
    const drained = drainedOf(measured.map(({ name, sql }) => ({ name: `the ${name}`, sql })))
    const at = (n: number): Array<Target> => [
      {
        name: `plain node:http + pg, ${n} conn.`,
        options: {
          url: floor.url,
          pid: floor.pid,
          database: databaseNameOf(floor.database),
          headers,
          requests: [floorCalls.request],
          connections: n,
          seconds
        },
        settle: drained
      },
      ...measured.map(({ calls, databaseUrl, instance, name }): Target => ({
        name: `${name}, Hub88 bet then win, ${n} conn.`,
        options: {
          url: instance.url,
          pid: instance.pid,
          database: databaseNameOf(databaseUrl),
          headers,
          requests: calls.requests,
          connections: n,
          seconds
        },
        settle: drained
      }))
    ]
    const rows = yield* compare([...at(connections), ...at(10)])
    for (const { calls, name } of measured) {
      const signed = pairs - 1
      if (calls.taken() > signed) {
        return yield* Effect.die(
          `The ${name} took ${number(calls.taken())} Hub88 pairs where ${number(signed)} were signed: the rest were ` +
            `replays, not new transactions. Run again with BENCH_HUB88_PAIRS above ${number(calls.taken() + 1)}.`
        )
      }
    }
    const half = rows.length / 2
    printTable(
      `Hub88's wallet: a bet then its win per connection, each a new transaction, RSA-signed (${connections} connections, ${seconds} s per round)`,
      rows.slice(0, half)
    )
    printTable("The same at 10 connections", rows.slice(half))
    console.log(`  one RSA-SHA256 verify (2048-bit key, a bet's body) takes ${verify.toFixed(0)} µs here`)
    // Every call answered 200 whatever its status: each ledger says whether the bets and wins were taken.
    for (const { name, sql } of measured) {
      const [{ written }] = yield* sql<{ written: number }>`
        SELECT count(*)::int AS written FROM wallet_transactions WHERE txn_id LIKE ${`${txnPrefix}%`}
      `
      console.log(`  ledger of the ${name}: ${number(written)} Hub88 transactions written (the warm-up's among them)`)
    }
    console.log(
      `  pairs sent, each once: ${measured.map(({ calls, name }) => `${name} ${number(calls.taken())}`).join(", ")}` +
        ` (${number(pairs)} signed each)`
    )
    recordHub88Goals(rows.slice(0, half), rows.slice(half), verify, baselineRevisions)
  }).pipe(Effect.scoped)

const recordHub88Goals = (
  at50: ReadonlyArray<Comparison>,
  at10: ReadonlyArray<Comparison>,
  verify: number,
  revisions: ReadonlyArray<string>
) => {
  const [floor50, service50, ...revisions50] = at50
  const [floor10, service10, ...revisions10] = at10
  const perSecond = (row: Comparison) => `${number(row.result.requestsPerSecond)}/s`
  // The floor of a Hub88 call: the plain program's, plus the verify its protocol needs (at full load, the plain
  // program's rate with that much more CPU per call).
  const floorCpu = floor50.result.cpuMicrosPerRequest
  const floorRate = floorCpu === undefined
    ? floor50.result.requestsPerSecond
    : floor50.result.requestsPerSecond * (floorCpu / (floorCpu + verify))
  const ratioOf = (row: Comparison) => row.result.requestsPerSecond / floorRate
  const ratio = ratioOf(service50)
  recordGoal({
    path: `Hub88 bet and win, partner wallet local, ${connections} connections`,
    baseline: `plain node:http + pg with one RSA verify: ${number(floorRate)}/s (${perSecond(floor50)} without)`,
    service: perSecond(service50),
    figure: `${ratio.toFixed(2)} of it`,
    goal: ">= 0.60 of it, >= 1,000/s",
    met: ratio >= 0.6 && service50.result.requestsPerSecond >= 1_000,
    revisions: revisions50.map((row, i) => ({
      revision: revisions[i],
      figure: `${ratioOf(row).toFixed(2)}, ${perSecond(row)}`
    }))
  })
  recordGoal({
    path: "Hub88 bet and win, 10 connections",
    baseline: `plain node:http + pg: p99 ${number(floor10.result.p99)} ms (+${verify.toFixed(0)} µs verify)`,
    service: `p99 ${number(service10.result.p99)} ms, ${perSecond(service10)}`,
    figure: `p99 ${number(service10.result.p99)} ms`,
    goal: "p99 <= 25 ms",
    met: service10.result.p99 <= 25,
    revisions: revisions10.map((row, i) => ({ revision: revisions[i], figure: `p99 ${number(row.result.p99)} ms` }))
  })
}
