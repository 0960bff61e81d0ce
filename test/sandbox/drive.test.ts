/**
 * The sandbox a partner drives with its test token (issue 37): on real HTTP and PostgreSQL, a refund, a rollback, a
 * late win and a bet the wallet refuses, each through the ledger and the partner's callbacks (the sandbox partner
 * wallet, the test environment's default), the partner's wallet holding its start plus what the ledger applied; a
 * live token refused; today's test statement closed so far, read, reconciled, closed again and then replaced by the
 * day's own close.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { dayOf, dayStart, nextDay } from "../../src/domain/Statements.ts"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { Statements } from "../../src/wallet/statements/Statements.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { givenPartner, givenSyncedCatalog, request, TestApp } from "../support/TestApp.ts"

const api = "/api/partner/v1"

type Json = Record<string, any>
const bodyOf = (answer: { readonly body: unknown }) => answer.body as Json

/** The sandbox partner wallet of this test's server, as a test environment's default reaches it. */
const sandboxWallet = Effect.map(
  Effect.service(HttpServer.HttpServer),
  (server) =>
    `http://127.0.0.1:${(server.address as { readonly port: number }).port}${sandboxPartnerWalletPath}?environment=test`
)

/** A clock an hour into tomorrow (UTC): the day's own close runs as if today had ended. */
const clockTomorrow = (): Clock.Clock => {
  const shift = dayStart(nextDay(dayOf(Date.now()))).getTime() + 3_600_000 - Date.now()
  return {
    currentTimeMillisUnsafe: () => Date.now() + shift,
    currentTimeMillis: Effect.sync(() => Date.now() + shift),
    currentTimeNanosUnsafe: () => BigInt(Date.now() + shift) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(Date.now() + shift) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => process.hrtime.bigint(),
    monotonicTimeNanos: Effect.sync(() => process.hrtime.bigint()),
    sleep: (duration) => Effect.sleep(duration)
  }
}

layer(CallbackWorker.pipe(Layer.provideMerge(TestApp())), live)("a partner drives the sandbox", (it) => {
  it.effect("refund, rollback, late win and a refused bet move the partner's wallet as the ledger applies them", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const created = yield* givenPartner({ name: "Sandbox Driver", testCallbackUrl: yield* sandboxWallet })
      const token = created.test.token
      const headers = { authorization: `Bearer ${token}` }
      const client = yield* partnerClient(token)
      const launched = yield* client.casino.launch({
        payload: {
          external_player_id: "driver",
          player_balance: "20.00",
          provider: "aurora-gaming",
          game_code: "ag-hidden-fortune"
        }
      })
      const gamePath = new URL(launched.data.launch.url).pathname
      const sql = yield* SqlClient.SqlClient
      const partnerId = created.partner.id

      /** The partner's wallet holds its start plus every amount the ledger applied, once its callbacks arrived. */
      const conserved = eventually(
        Effect.all({
          wallet: sql<{ balance: string }>`
            SELECT balance FROM sandbox_partner_wallets WHERE partner_id = ${partnerId} AND external_player_id = 'driver'`,
          ledger: sql<{ total: string | null }>`
            SELECT sum(amount)::text AS total FROM wallet_transactions
            WHERE partner_id = ${partnerId} AND environment = 'test' AND status = 'applied'`,
          waiting: sql<{ n: number }>`
            SELECT count(*)::int AS n FROM partner_callbacks
            WHERE partner_id = ${partnerId} AND status <> 'delivered' AND kind <> 'bet'`
        }),
        ({ ledger, waiting, wallet }) =>
          waiting[0].n === 0 && wallet.length === 1 &&
          BigInt(wallet[0].balance) === 2000n + BigInt(ledger[0].total ?? "0"),
        "the partner's wallet at its start plus the ledger's applied amounts"
      )

      const spin = Effect.gen(function*() {
        const answer = yield* request("POST", `${gamePath}/spin`, { json: { bet: 2 } })
        assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
        assert.strictEqual(bodyOf(answer).msg, "", JSON.stringify(answer.body))
        return bodyOf(answer).round_id as string
      })

      const first = yield* spin
      yield* conserved
      const lateWin = yield* request("POST", `${api}/sandbox/rounds/${first}/late-win`, {
        headers,
        json: { amount: "3.50" }
      })
      assert.strictEqual(lateWin.status, 200, JSON.stringify(lateWin.body))
      assert.deepInclude(bodyOf(lateWin).data.call, {
        kind: "late_win",
        round_id: first,
        external_player_id: "driver",
        currency: "BRL",
        status: "applied",
        refusal: null,
        amount: 3.5
      })
      const rollback = yield* request("POST", `${api}/sandbox/rounds/${first}/rollback`, { headers })
      assert.strictEqual(rollback.status, 200, JSON.stringify(rollback.body))
      assert.deepInclude(bodyOf(rollback).data.call, { kind: "rollback", status: "applied" })
      // Once only: a second rollback of the bet gives nothing back again.
      yield* request("POST", `${api}/sandbox/rounds/${first}/rollback`, { headers })
      yield* conserved

      const second = yield* spin
      const refund = yield* request("POST", `${api}/sandbox/rounds/${second}/refund`, { headers })
      assert.strictEqual(refund.status, 200, JSON.stringify(refund.body))
      assert.deepInclude(bodyOf(refund).data.call, { kind: "refund", status: "applied" })
      // The typed client has the same calls: a second refund of the round moves nothing.
      const again = yield* client.sandbox.refund({ params: { round_id: second } })
      assert.strictEqual(again.data.call.kind, "refund")
      assert.strictEqual(again.data.call.round_id, second)
      // A late win on a refunded round is refused, and moves nothing.
      const tooLate = yield* request("POST", `${api}/sandbox/rounds/${second}/late-win`, {
        headers,
        json: { amount: 1 }
      })
      assert.deepInclude(bodyOf(tooLate).data.call, { status: "refused", refusal: "ROUND_REFUNDED" })
      yield* conserved

      const refused = yield* request("POST", `${api}/sandbox/refused-bet`, {
        headers,
        json: { external_player_id: "driver" }
      })
      assert.strictEqual(refused.status, 200, JSON.stringify(refused.body))
      assert.deepInclude(bodyOf(refused).data.call, { kind: "refused_bet", status: "refused" })
      assert.strictEqual(bodyOf(refused).data.call.refusal, "INSUFFICIENT_USER_FUNDS")
      assert.include(bodyOf(refused).data.call.reason, "Insufficient funds")
      yield* conserved

      // The kinds of callback each call made the partner's wallet receive.
      const kinds = yield* sql<{ kind: string }>`
        SELECT kind FROM partner_callbacks WHERE partner_id = ${partnerId} AND environment = 'test' ORDER BY id`
      assert.includeMembers(kinds.map((row) => row.kind), ["bet", "win", "rollback", "refund"])

      // What cannot be done is said in the contract's terms.
      const unknown = yield* request("POST", `${api}/sandbox/rounds/no-such-round/refund`, { headers })
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(bodyOf(unknown).success, false)
      const tooFine = yield* request("POST", `${api}/sandbox/rounds/${first}/late-win`, {
        headers,
        json: { amount: "0.001" }
      })
      assert.strictEqual(tooFine.status, 422)
      assert.property(bodyOf(tooFine).errors, "amount")
      const stranger = yield* request("POST", `${api}/sandbox/refused-bet`, {
        headers,
        json: { external_player_id: "nobody" }
      })
      assert.strictEqual(stranger.status, 422)
      assert.property(bodyOf(stranger).errors, "external_player_id")

      // A live token is refused, whatever it names.
      const liveHeaders = { authorization: `Bearer ${created.token}` }
      for (const path of [`/sandbox/rounds/${first}/refund`, "/sandbox/statements/today/close"]) {
        const refusedLive = yield* request("POST", `${api}${path}`, { headers: liveHeaders })
        assert.strictEqual(refusedLive.status, 403, path)
        assert.strictEqual(bodyOf(refusedLive).success, false)
      }
    }))

  it.effect("today's test statement closes so far, reconciles, closes again and gives way to the day's own", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const created = yield* givenPartner({ name: "Statement So Far", testCallbackUrl: yield* sandboxWallet })
      const headers = { authorization: `Bearer ${created.test.token}` }
      const client = yield* partnerClient(created.test.token)
      const launched = yield* client.casino.launch({
        payload: {
          external_player_id: "early",
          player_balance: "50.00",
          provider: "aurora-gaming",
          game_code: "ag-hidden-fortune"
        }
      })
      const gamePath = new URL(launched.data.launch.url).pathname
      yield* request("POST", `${gamePath}/spin`, { json: { bet: 1 } })
      const today = dayOf(Date.now())

      // Before: today has no statement.
      const before = yield* request("GET", `${api}/wallet/statements/${today}`, { headers })
      assert.strictEqual(before.status, 404)

      const closed = yield* request("POST", `${api}/sandbox/statements/today/close`, { headers })
      assert.strictEqual(closed.status, 200, JSON.stringify(closed.body))
      const summary = bodyOf(closed).data.statement
      assert.strictEqual(summary.partial, true)
      assert.strictEqual(summary.date, today)
      assert.strictEqual(summary.to, summary.closed_up_to)
      assert.strictEqual(summary.counts.transactions, 1)

      const read = yield* request("GET", `${api}/wallet/statements/${today}`, { headers })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(bodyOf(read).data.statement, summary)
      // The partner's books: the statement's own lines will do.
      const books = [summary, ...bodyOf(read).data.transactions].map((line) => JSON.stringify(line)).join("\n")
      const reconciled = yield* request("POST", `${api}/wallet/statements/${today}/reconciliation`, {
        headers: { ...headers, "content-type": "application/x-ndjson" },
        body: books
      })
      assert.strictEqual(reconciled.status, 200, JSON.stringify(reconciled.body))
      assert.isTrue(bodyOf(reconciled).data.reconciled)

      // Closed again later: it counts what came since.
      yield* request("POST", `${gamePath}/spin`, { json: { bet: 1 } })
      const again = yield* request("POST", `${api}/sandbox/statements/today/close`, { headers })
      assert.strictEqual(bodyOf(again).data.statement.counts.transactions, 2)
      assert.isAbove(Date.parse(bodyOf(again).data.statement.closed_up_to), Date.parse(summary.closed_up_to))

      // The live environment has no statement of today, and never a partial one.
      const liveRead = yield* request("GET", `${api}/wallet/statements/${today}`, {
        headers: { authorization: `Bearer ${created.token}` }
      })
      assert.strictEqual(liveRead.status, 404)

      // The day's own close (run as if the day had ended) replaces it: whole, not partial.
      const statements = yield* Statements
      const written = yield* statements.closeDays.pipe(Effect.provideService(Clock.Clock, clockTomorrow()))
      assert.include(written, today)
      const final = yield* request("GET", `${api}/wallet/statements/${today}`, { headers })
      assert.strictEqual(final.status, 200)
      const finalSummary = bodyOf(final).data.statement
      assert.notProperty(finalSummary, "partial")
      assert.notProperty(finalSummary, "closed_up_to")
      assert.strictEqual(finalSummary.counts.transactions, 2)
      const sql = yield* SqlClient.SqlClient
      const left = yield* sql`SELECT 1 FROM wallet_statement_partials WHERE partner_id = ${created.partner.id}`
      assert.strictEqual(left.length, 0)
      // And it is not closed so far again: the day's own is what is read.
      const after = yield* request("POST", `${api}/sandbox/statements/today/close`, { headers })
      assert.strictEqual(after.status, 200)
    }))
})
