/**
 * Wallet certification end to end: the whole service over real HTTP and PostgreSQL, certifying the sandbox partner
 * wallet of this very service (it passes every case), a fake partner wallet without faults (passes too) and with each
 * fault switched on (the case that should catch it fails, naming it), through the service, the partner API (test and
 * live tokens) and the admin CLI (exit code, the live token's gate). No run writes a ledger row.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { type CaseKey, caseKeys, cases, type Certification } from "../../src/domain/Certification.ts"
import { sandboxPartnerWalletPath } from "../../src/sandbox/SandboxConfig.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { PartnerBooks, type WalletFault } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { givenPartner, TestApp } from "../support/TestApp.ts"

const books = new PartnerBooks()
/** The time-out of this file's service: a slow wallet costs one of it, once (a run stops without its first balance). */
const timeout = Duration.seconds(2)

const App = TestApp({ callbacks: { timeout } }).pipe(Layer.provideMerge(FakeUpstream.layer(books.script)))

let partners = 0

/**
 * A partner whose test callbacks go to `wallet` (the fake, or this service's sandbox partner wallet), with a test
 * player of 50.00 on both sides.
 */
const givenTestWallet = (wallet: "fake" | "sandbox") =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const server = yield* HttpServer.HttpServer
    const origin = `http://127.0.0.1:${(server.address as { readonly port: number }).port}`
    const created = yield* givenPartner({
      name: `Certified ${++partners}`,
      testCallbackUrl: wallet === "fake" ? `${fake.url}/wallet` : `${origin}${sandboxPartnerWalletPath}?environment=test`
    })
    books.secrets.add(created.test.webhookSecret)
    const external = `tester-${created.partner.id}`
    yield* (yield* PartnerPlayers).arrive({
      partnerId: created.partner.id,
      environment: "test",
      externalPlayerId: external,
      name: null,
      email: null,
      balance: 5_000
    })
    books.balances.set(external, 5_000)
    return { ...created, external }
  })

const failed = (run: Certification) => run.cases.filter((result) => result.status === "failed").map((result) => result.key)

/** Rows the ledger and the outbox hold for a partner: a run must write none. */
const ledgerRows = (partnerId: number) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ n: number }>`
      SELECT (SELECT count(*) FROM wallet_transactions WHERE partner_id = ${partnerId})::int +
             (SELECT count(*) FROM partner_callbacks WHERE partner_id = ${partnerId})::int +
             (SELECT count(*) FROM wallet_rounds WHERE partner_id = ${partnerId})::int AS n
    `).pipe(Effect.map((rows) => rows[0].n), Effect.orDie)

const certify = (partnerId: number, external: string) =>
  Effect.flatMap(Effect.service(Certifications), (service) => service.run(partnerId, external, { name: "test", via: "cli" })).pipe(
    Effect.orDie
  )

layer(App, live)("wallet certification", (it) => {
  it.effect("the sandbox partner wallet passes every case, is left as it was found, and no ledger row is written", () =>
    Effect.gen(function*() {
      const { external, partner } = yield* givenTestWallet("sandbox")
      const run = yield* certify(partner.id, external)
      assert.deepStrictEqual(run.cases.map((result) => result.key), [...caseKeys])
      assert.deepStrictEqual(failed(run), [], JSON.stringify(run.cases.filter((result) => result.status !== "passed")))
      assert.strictEqual(run.status, "passed")
      assert.strictEqual(run.summary, "17 of 17 cases passed.")
      // Each money case says the balance it expected and found; the run ends where it started.
      const bet = run.cases.find((result) => result.key === "bet")!
      assert.deepStrictEqual([bet.balanceBefore, bet.expectedBalance, bet.balanceAfter], [15_000, 14_900, 14_900])
      const conservation = run.cases.find((result) => result.key === "conservation")!
      assert.deepStrictEqual([conservation.expectedBalance, conservation.balanceAfter], [5_000, 5_000])
      const timing = run.cases.find((result) => result.key === "slowness")!.timing!
      assert.strictEqual(timing.timedOut, 0)
      assert.strictEqual(timing.timeoutMillis, 2_000)
      assert.isAbove(timing.calls, 50)
      // Every request is kept as sent: a certification event id, the run's header and the body's certification field.
      const exchanges = run.cases.flatMap((result) => result.exchanges)
      for (const exchange of exchanges) {
        assert.match(exchange.request.headers["x-partner-event-id"], new RegExp(`^evt_${run.id}_\\d{3}$`))
        assert.strictEqual(exchange.request.headers["x-partner-certification"], run.id)
        assert.strictEqual(JSON.parse(exchange.request.body).certification.run, run.id)
      }
      const concurrent = run.cases.find((result) => result.key === "concurrent")!
      assert.strictEqual(concurrent.exchanges.filter((exchange) => exchange.label.startsWith("copy ")).length, 20)
      assert.strictEqual(yield* ledgerRows(partner.id), 0)
      // Stored as it was answered.
      const stored = yield* Effect.flatMap(Effect.service(Certifications), (service) => service.find(run.id, partner.id))
      assert.deepStrictEqual(Option.getOrThrow(stored), run)
    }))

  it.effect("a fake wallet without faults passes every case", () =>
    Effect.gen(function*() {
      books.knownPlayersOnly = true
      const { external, partner } = yield* givenTestWallet("fake")
      const run = yield* certify(partner.id, external)
      assert.deepStrictEqual(failed(run), [], JSON.stringify(run.cases.filter((result) => result.status !== "passed")))
      assert.strictEqual(books.balanceOf(external), 5_000)
    }))

  const faults: ReadonlyArray<readonly [WalletFault, ReadonlyArray<CaseKey>]> = [
    ["double-applies-retry", ["repeat", "concurrent", "conservation"]],
    ["skips-signature-checks", ["bad_signature", "stale_timestamp", "other_body"]],
    ["applies-late-bet", ["rollback_first"]],
    ["rounds-amounts", ["two_decimals"]]
  ]
  for (const [fault, catchers] of faults) {
    it.effect(`a wallet that ${fault} fails the cases that catch it, each naming the fault`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        books.faults.add(fault)
        const { external, partner } = yield* givenTestWallet("fake")
        const run = yield* certify(partner.id, external)
        books.faults.clear()
        assert.deepStrictEqual(failed(run), [...catchers])
        assert.strictEqual(run.status, "failed")
        for (const key of catchers) {
          const reason = run.cases.find((result) => result.key === key)!.reason!
          assert.include(reason, `Fault caught: ${cases[key].catches}.`)
        }
        assert.strictEqual(yield* ledgerRows(partner.id), 0)
      }))
  }

  it.effect("a wallet that answers after the time-out fails on its first call, and the run stops there", () =>
    Effect.gen(function*() {
      const { external, partner } = yield* givenTestWallet("fake")
      books.behaviour = "slow"
      // 4 s against the 3 s time-out, scaled to this service's 2 s one.
      books.delayMillis = 2_700
      const run = yield* certify(partner.id, external).pipe(Effect.ensuring(Effect.sync(() => (books.behaviour = "fine"))))
      assert.deepStrictEqual(failed(run), ["balance", "slowness"])
      assert.strictEqual(run.cases.filter((result) => result.status === "skipped").length, 15)
      const slowness = run.cases.find((result) => result.key === "slowness")!
      assert.include(slowness.reason!, "Fault caught: answers after the time-out.")
      assert.strictEqual(slowness.timing!.timedOut, 1)
    }))
})
