/**
 * Hub88's wallet under load: on each connection a bet, then its win (each a new transaction, signed with Hub88's RSA
 * key over the exact body, as Hub88 calls), with the partner's wallet answering on this machine. The floor, in the
 * same rounds, is the plain program of winbet-floor.ts (two durable commits and the partner call per call) plus what
 * Hub88's protocol adds that no design removes: one RSA-SHA256 verify per call, measured apart here. Bodies are
 * signed before the rounds, so the load generator's signing does not take the machine's time from the service.
 */
import type autocannon from "autocannon"
import { Effect } from "effect"
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { mintToken, tokenKeyOf } from "../../src/integrations/hub88/Hub88LaunchTokens.ts"
import { signBody, verifyBody } from "../../src/integrations/hub88/Hub88Signature.ts"
import type { BenchContext, Scenario } from "./context.ts"
import { fetchText } from "./context.ts"
import { number, recordGoal } from "./goals.ts"
import { compare, type Comparison, printTable, type Target } from "./harness.ts"
import { calls, drainedOf, setUp, startFloor } from "./wallet.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
/** Bet-and-win pairs signed before the rounds: enough for every round at the rates this machine reaches. */
const pairs = Number(process.env.BENCH_HUB88_PAIRS ?? 8_000)
const gameCode = "clt_dragonrising"

const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048 })

/** Microseconds one RSA-SHA256 verify of a body of this size takes here (the floor's part of Hub88's protocol). */
const verifyMicros = (body: string, signature: string, publicKey: ReturnType<typeof rsa>["publicKey"]) => {
  const rounds = 2_000
  const started = performance.now()
  for (let i = 0; i < rounds; i++) verifyBody(body, signature, publicKey)
  return ((performance.now() - started) * 1_000) / rounds
}

/** The service with Hub88 as its aggregator, on the bench's database, and signed bet and win bodies for its players. */
const startHub88 = (context: BenchContext) =>
  Effect.gen(function*() {
    const operator = rsa()
    const hub88 = rsa()
    const instance = yield* context.startService({
      CASINO_GATEWAY: "hub88",
      // Its game list is never asked for here: the wallet calls need none.
      HUB88_BASE_URL: "http://127.0.0.1:9",
      HUB88_OPERATOR_ID: "4242",
      HUB88_PRIVATE_KEY: operator.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      HUB88_PUBLIC_KEY: hub88.publicKey.export({ type: "spki", format: "pem" }).toString(),
      HUB88_CURRENCIES: "BRL"
    })
    const setup = yield* setUp(context.sql)
    const tokenKey = tokenKeyOf(operator.privateKey)
    const signed = (body: string) => ({ body, signature: signBody(body, hub88.privateKey) })
    const bodies = Array.from({ length: pairs }, (_, n) => {
      const user = String(setup.userCodes[n % setup.userCodes.length])
      const token = mintToken(tokenKey, { user, gameCode, currency: "BRL" }, Date.now() + 3_600_000, randomBytes(12))
      const txn = `bench-hub88-${process.pid}-${n}`
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
    return { instance, bodies, verify: verifyMicros(bodies[0].bet.body, bodies[0].bet.signature, hub88.publicKey) }
  })

type Signed = { readonly body: string; readonly signature: string }

/** Each connection's bet, then that bet's win: the pair taken in turn from the signed bodies. */
const hub88Requests = (bodies: ReadonlyArray<{ readonly bet: Signed; readonly win: Signed }>) => {
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
  return [
    request("/aggregator/hub88/transaction/bet", (context) => {
      context.pair = next++ % bodies.length
      return bodies[context.pair].bet
    }),
    request("/aggregator/hub88/transaction/win", (context) => bodies[context.pair ?? 0].win)
  ]
}

export const hub88Scenario: Scenario = (context) =>
  Effect.gen(function*() {
    const headers = { "content-type": "application/json" }
    const { bodies, instance, verify } = yield* startHub88(context)
    const floor = yield* startFloor(context)
    const floorCalls = calls(floor, "hub88-floor")
    // Both answer once before the rounds start (and must answer OK).
    const first = yield* fetchText(`${instance.url}/aggregator/hub88/transaction/bet`, {
      method: "POST",
      headers: { ...headers, "x-hub88-signature": bodies[0].bet.signature },
      body: bodies[0].bet.body
    })
    if (!first.includes(`"RS_OK"`)) return yield* Effect.die(`A Hub88 bet answered ${first}`)
    const drained = drainedOf([{ name: "the service", sql: context.sql }])
    const at = (n: number): Array<Target> => [
      {
        name: `plain node:http + pg, ${n} conn.`,
        options: { url: floor.url, pid: floor.pid, headers, requests: [floorCalls.request], connections: n, seconds },
        settle: drained
      },
      {
        name: `service, Hub88 bet then win, ${n} conn.`,
        options: {
          url: instance.url,
          pid: instance.pid,
          headers,
          requests: hub88Requests(bodies.slice(1)),
          connections: n,
          seconds
        },
        settle: drained
      }
    ]
    const rows = yield* compare([...at(connections), ...at(10)])
    printTable(
      `Hub88's wallet: a bet then its win per connection, each a new transaction, RSA-signed (${connections} connections, ${seconds} s per round)`,
      rows.slice(0, 2)
    )
    printTable("The same at 10 connections", rows.slice(2))
    console.log(`  one RSA-SHA256 verify (2048-bit key, a bet's body) takes ${verify.toFixed(0)} µs here`)
    // Every call answered 200 whatever its status: the ledger says whether the bets and wins were taken.
    const sent = rows.reduce((sum, row) => sum + row.result.total, 0) - rows[0].result.total - rows[2].result.total
    const [{ written }] = yield* context.sql<{ written: number }>`
      SELECT count(*)::int AS written FROM wallet_transactions WHERE txn_id LIKE ${`bench-hub88-${process.pid}-%`}
    `
    console.log(
      `  ledger: ${number(written)} Hub88 transactions written for ${number(sent)} calls measured (and the warm-ups)`
    )
    recordHub88Goals(rows.slice(0, 2), rows.slice(2), verify)
  }).pipe(Effect.scoped)

const recordHub88Goals = (at50: ReadonlyArray<Comparison>, at10: ReadonlyArray<Comparison>, verify: number) => {
  const [floor50, service50] = at50
  const [floor10, service10] = at10
  const perSecond = (row: Comparison) => `${number(row.result.requestsPerSecond)}/s`
  // The floor of a Hub88 call: the plain program's, plus the verify its protocol needs (at full load, the plain
  // program's rate with that much more CPU per call).
  const floorCpu = floor50.result.cpuMicrosPerRequest
  const floorRate = floorCpu === undefined
    ? floor50.result.requestsPerSecond
    : floor50.result.requestsPerSecond * (floorCpu / (floorCpu + verify))
  const ratio = service50.result.requestsPerSecond / floorRate
  recordGoal({
    path: `Hub88 bet and win, partner wallet local, ${connections} connections`,
    baseline: `plain node:http + pg with one RSA verify: ${number(floorRate)}/s (${perSecond(floor50)} without)`,
    service: perSecond(service50),
    figure: `${ratio.toFixed(2)} of it`,
    goal: ">= 0.60 of it, >= 1,000/s",
    met: ratio >= 0.6 && service50.result.requestsPerSecond >= 1_000,
    revisions: []
  })
  recordGoal({
    path: "Hub88 bet and win, 10 connections",
    baseline: `plain node:http + pg: p99 ${number(floor10.result.p99)} ms (+${verify.toFixed(0)} µs verify)`,
    service: `p99 ${number(service10.result.p99)} ms, ${perSecond(service10)}`,
    figure: `p99 ${number(service10.result.p99)} ms`,
    goal: "p99 <= 25 ms",
    met: service10.result.p99 <= 25,
    revisions: []
  })
}
