/**
 * Wallet certification end to end: the whole service over real HTTP and PostgreSQL, certifying the sandbox partner
 * wallet of this very service (it passes every case), a fake partner wallet without faults (passes too) and with each
 * fault switched on (the case that should catch it fails, naming it), through the service, the partner API (test and
 * live tokens) and the admin CLI (exit code, the live token's gate); and runs in JPY and BTC, their amounts scaled to
 * the currency, against wallets that keep each currency apart, mix them, or answer balances finer than the currency
 * has. No run writes a ledger row.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Result } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import type { Certification } from "../../src/domain/Certification.ts"
import { type CaseKey, caseKeys, cases } from "../../src/domain/CertificationCaseTexts.ts"
import { storedCurrency } from "../../src/domain/Currency.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { Conflict, Forbidden, NotFound, ValidationFailed } from "../../src/client/PartnerClient.ts"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { CallbackUrlPolicy } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnersConfig } from "../../src/partners/PartnersConfig.ts"
import { AppConfig } from "../../src/platform/AppConfig.ts"
import { SandboxCallbackUrlsLive } from "../../src/server.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { PartnerBooks, type WalletFault } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { admin } from "../support/AdminCli.ts"
import { eventually, live } from "../support/live.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import {
  AnotherInstance,
  bearer,
  errorBody,
  givenPartner,
  request,
  TestApp,
  testCasinoConfig,
  testConfig,
  testPartnersConfig,
  validationErrors
} from "../support/TestApp.ts"

const books = new PartnerBooks()
/**
 * The time-out of this file's service: far above any answer here, since the 20 copies of one bet queue on the
 * wallet's lock in the test's own process, which a loaded machine slows. The time-out itself is tested at the end,
 * with a service of a 1 s time-out and a wallet far slower than that.
 */
const timeout = Duration.seconds(10)
const timeoutMillis = Duration.toMillis(timeout)

const App = TestApp({ callbacks: { timeout } }).pipe(Layer.provideMerge(FakeUpstream.layer(books.script)))
const ShortTimeOutApp = TestApp({ callbacks: { timeout: Duration.seconds(1) } }).pipe(
  Layer.provideMerge(FakeUpstream.layer(books.script))
)
/** A deployment whose default currency (every partner's, for now) is JPY, with BTC enabled. */
const YenApp = TestApp({ callbacks: { timeout }, currencies: { crypto: ["BTC"], defaultCurrency: "JPY" } }).pipe(
  Layer.provideMerge(FakeUpstream.layer(books.script))
)

let partners = 0

/**
 * A partner whose test callbacks go to `wallet` (the fake, or this service's sandbox partner wallet), with a test
 * player of `balance` minor units of `currency` on both sides (50.00 BRL unless said).
 */
const givenTestWallet = (wallet: "fake" | "sandbox", currency = "BRL", balance = 5_000n) =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const server = yield* HttpServer.HttpServer
    const origin = `http://127.0.0.1:${(server.address as { readonly port: number }).port}`
    const created = yield* givenPartner({
      name: `Certified ${++partners}`,
      testCallbackUrl: wallet === "fake"
        ? `${fake.url}/wallet`
        : `${origin}${sandboxPartnerWalletPath}?environment=test`
    })
    books.secrets.add(created.test.webhookSecret)
    const external = `tester-${created.partner.id}`
    yield* (yield* PartnerPlayers).arrive({
      partnerId: created.partner.id,
      environment: "test",
      externalPlayerId: external,
      currency,
      name: null,
      email: null,
      balance
    })
    books.balances.set(books.walletOf(external, currency), balance)
    return { ...created, external }
  })

const failed = (run: Certification) =>
  run.cases.filter((result) => result.status === "failed").map((result) => result.key)

/** Rows the ledger and the outbox hold for a partner: a run must write none. */
const ledgerRows = (partnerId: number) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ n: number }>`
      SELECT (SELECT count(*) FROM wallet_transactions WHERE partner_id = ${partnerId})::int +
             (SELECT count(*) FROM partner_callbacks WHERE partner_id = ${partnerId})::int +
             (SELECT count(*) FROM wallet_rounds WHERE partner_id = ${partnerId})::int AS n
    `).pipe(Effect.map((rows) => rows[0].n), Effect.orDie)

/** A run to its end, in the partner's default currency or the one named. */
const certify = (partnerId: number, external: string, currency?: string) =>
  Effect.flatMap(
    Effect.service(Certifications),
    (service) =>
      service.run(
        partnerId,
        external,
        { name: "test", via: "cli" },
        undefined,
        currency === undefined ? undefined : storedCurrency(currency)
      )
  ).pipe(
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
      assert.strictEqual(run.summary, "18 of 18 cases passed.")
      assert.strictEqual(run.currency, "BRL")
      // Each money case says the balance it expected and found; the run ends where it started.
      const bet = run.cases.find((result) => result.key === "bet")!
      assert.deepStrictEqual([bet.balanceBefore, bet.expectedBalance, bet.balanceAfter], [15_000n, 14_900n, 14_900n])
      const conservation = run.cases.find((result) => result.key === "conservation")!
      assert.deepStrictEqual([conservation.expectedBalance, conservation.balanceAfter], [5_000n, 5_000n])
      const timing = run.cases.find((result) => result.key === "slowness")!.timing!
      assert.strictEqual(timing.timedOut, 0)
      assert.strictEqual(timing.timeoutMillis, timeoutMillis)
      assert.isAbove(timing.calls, 50)
      // Every request is kept as sent: a certification event id, the run's header and the body's certification field.
      const exchanges = run.cases.flatMap((result) => result.exchanges)
      for (const exchange of exchanges) {
        assert.match(exchange.request.headers["x-partner-event-id"], new RegExp(`^evt_${run.id}_\\d{3}$`))
        assert.strictEqual(exchange.request.headers["x-partner-certification"], run.id)
        assert.strictEqual(JSON.parse(exchange.request.body).certification.run, run.id)
      }
      // Every callback carries its currency: the run's, but for the other currency's bet and its give-back.
      const otherCurrency = run.cases.find((result) => result.key === "other_currency")!.exchanges
      for (const exchange of exchanges) {
        const body = JSON.parse(exchange.request.body)
        const expected = otherCurrency.includes(exchange) && body.kind !== "balance" ? "EUR" : "BRL"
        assert.strictEqual(body.currency, expected, exchange.label)
      }
      const concurrent = run.cases.find((result) => result.key === "concurrent")!
      assert.strictEqual(concurrent.exchanges.filter((exchange) => exchange.label.startsWith("copy ")).length, 20)
      assert.strictEqual(yield* ledgerRows(partner.id), 0)
      // Stored as it was answered.
      const stored = yield* Effect.flatMap(
        Effect.service(Certifications),
        (service) => service.find(run.id, partner.id)
      )
      assert.deepStrictEqual(Option.getOrThrow(stored), run)
    }))

  it.effect("a fake wallet without faults passes every case", () =>
    Effect.gen(function*() {
      books.knownPlayersOnly = true
      const { external, partner } = yield* givenTestWallet("fake")
      const run = yield* certify(partner.id, external)
      assert.deepStrictEqual(failed(run), [], JSON.stringify(run.cases.filter((result) => result.status !== "passed")))
      assert.strictEqual(books.balanceOf(external), 5_000n)
    }))

  const faults: ReadonlyArray<readonly [WalletFault, ReadonlyArray<CaseKey>]> = [
    ["double-applies-retry", ["repeat", "concurrent", "conservation"]],
    ["skips-signature-checks", ["bad_signature", "stale_timestamp", "other_body"]],
    ["applies-late-bet", ["rollback_first"]],
    ["rounds-amounts", ["two_decimals"]],
    ["mixes-currencies", ["other_currency"]]
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

  it.effect("the partner API: the test token starts a run and reads it case by case; a live token, a stranger and a player that is not a test player are refused", () =>
    Effect.gen(function*() {
      const { external, partner, test, token } = yield* givenTestWallet("sandbox")
      const client = yield* partnerClient(test.token)
      const started =
        (yield* client.certifications.start({ payload: { external_player_id: external } })).data.certification
      assert.match(started.id, /^cert_[0-9a-f]{16}$/)
      assert.deepStrictEqual([
        started.status,
        started.started_via,
        started.started_by,
        started.cases,
        started.cases_total
      ], [
        "running",
        "api",
        `partner ${partner.slug} (test token)`,
        [],
        18
      ])
      assert.strictEqual(started.currency, "BRL")
      const read = client.certifications.show({ params: { certification_id: started.id }, query: {} })
      const done = (yield* eventually(read, (answer) =>
        answer.data.certification.status !== "running", "the run's end")).data.certification
      assert.strictEqual(done.status, "passed")
      assert.deepStrictEqual(
        done.cases.map((result) => [result.key, result.title, result.status]),
        caseKeys.map((key) => [key, cases[key].title, "passed"])
      )
      const bet = done.cases.find((result) =>
        result.key === "bet"
      )!
      assert.deepStrictEqual([bet.balance_before, bet.expected_balance, bet.balance_after], [150, 149, 149])
      assert.strictEqual(bet.exchanges[0].response?.body, "{\"balance\":149}")
      assert.strictEqual(bet.exchanges[0].reading, "balance 149.00 BRL")
      assert.strictEqual(bet.exchanges[0].label, `bet 1.00 BRL (round ${started.id}_bet)`)
      assert.strictEqual(
        bet.checks,
        "A bet of 1.00 BRL is answered with the balance after it, 1.00 BRL less, and the balance asked afterwards agrees."
      )
      assert.strictEqual(done.cases.find((result) => result.key === "slowness")!.timing?.timeout_ms, timeoutMillis)

      // A live token neither starts nor reads one: 403 with the reason.
      const liveClient = yield* partnerClient(token)
      const refused = yield* failsWith(Forbidden)(
        liveClient.certifications.start({ payload: { external_player_id: external } })
      )
      assert.include(refused.message, "call it with your test token")
      yield* failsWith(Forbidden)(
        liveClient.certifications.show({ params: { certification_id: started.id }, query: {} })
      )
      const onTheWire = yield* request("POST", "/api/partner/v1/wallet/certifications", {
        headers: bearer(token),
        json: { external_player_id: external }
      })
      assert.deepStrictEqual([onTheWire.status, errorBody(onTheWire).message], [403, refused.message])
      // Another partner's run is not found; a player that is not a test player, or none, is a 422 on the field.
      const stranger = yield* givenPartner({ name: "Stranger" })
      yield* failsWith(NotFound)(
        (yield* partnerClient(stranger.test.token)).certifications.show({
          params: { certification_id: started.id },
          query: {}
        })
      )
      const unknown = yield* failsWith(ValidationFailed)(
        client.certifications.start({ payload: { external_player_id: "nobody" } })
      )
      assert.match(unknown.errors.external_player_id[0], /"nobody" is not one of this partner's test players in BRL/)
      const missing = yield* request("POST", "/api/partner/v1/wallet/certifications", {
        headers: bearer(test.token),
        json: {}
      })
      assert.deepStrictEqual([missing.status, validationErrors(missing)], [422, {
        external_player_id: ["The external player id field is required."]
      }])
      assert.strictEqual(yield* ledgerRows(partner.id), 0)
    }))

  it.effect("the CLI certifies: exit 0 only when every case passes; a required certification withholds the live token until one passes", () =>
    Effect.gen(function*() {
      const sandbox = yield* givenTestWallet("sandbox")
      const passed = yield* admin("partners", "certify", sandbox.partner.slug, "--player", sandbox.external)
      assert.strictEqual(passed.exitCode, 0, passed.stderr)
      assert.strictEqual(JSON.parse(passed.stdout).status, "passed")
      assert.strictEqual(JSON.parse(passed.stdout).started_via, "cli")
      assert.strictEqual(passed.stderr.split("\n").filter((line) => line.startsWith("passed ")).length, 18)

      books.knownPlayersOnly = true
      books.faults.add("skips-signature-checks")
      const faulty = yield* givenTestWallet("fake")
      const failedRun = yield* admin("partners", "certify", faulty.partner.slug, "--player", faulty.external).pipe(
        Effect.ensuring(Effect.sync(() => books.faults.clear()))
      )
      assert.strictEqual(failedRun.exitCode, 1)
      assert.strictEqual(JSON.parse(failedRun.stdout).status, "failed")
      assert.include(failedRun.stderr, "FAILED  A bad signature: The bet was accepted")
      assert.include(failedRun.stderr, "The wallet certification of")
      const unknown = yield* admin("partners", "certify", faulty.partner.slug, "--player", "nobody")
      assert.strictEqual(unknown.exitCode, 1)
      assert.include(unknown.stderr, "is not one of this partner's test players")

      // Required: no passed run yet, so the live token is withdrawn at once and none is issued until one passes.
      const { partner, token } = faulty
      const required = yield* admin("partners", "set", partner.slug, "--require-certification", "on")
      assert.strictEqual(required.exitCode, 0, required.stderr)
      assert.deepStrictEqual(
        [JSON.parse(required.stdout).certification_required, JSON.parse(required.stdout).live_token_withdrawn],
        [true, true]
      )
      const status = (liveToken: string) =>
        Effect.map(request("GET", "/api/partner/v1/status", { headers: bearer(liveToken) }), (answer) => answer.status)
      yield* eventually(status(token), (code) => code === 401, "the withdrawn live token refused")
      const withheld = yield* admin("partners", "rotate-token", partner.slug)
      assert.strictEqual(withheld.exitCode, 1)
      assert.include(
        withheld.stderr,
        `The live token of ${partner.slug} is issued only after a passed wallet certification, and its latest run failed`
      )
      const test = yield* admin("partners", "rotate-token", partner.slug, "--env", "test")
      assert.strictEqual(test.exitCode, 0, "the test token is never withheld")
      assert.strictEqual((yield* admin("partners", "certify", partner.slug, "--player", faulty.external)).exitCode, 0)
      const issued = yield* admin("partners", "rotate-token", partner.slug)
      assert.strictEqual(issued.exitCode, 0, issued.stderr)
      yield* eventually(status(JSON.parse(issued.stdout).token), (code) => code === 200, "the new live token admitted")

      const listed = JSON.parse((yield* admin("partners", "certifications", partner.slug)).stdout)
      assert.strictEqual(listed.certification_required, true)
      assert.deepStrictEqual(listed.runs.map((run: { status: string }) => run.status), ["passed", "failed"])
      const audit = JSON.parse((yield* admin("audit", "list", "--target", `partner:${partner.slug}`)).stdout)
      assert.deepInclude(audit.map((entry: { action: string; after: unknown }) => [entry.action, entry.after]), [
        "partner.set-certification-requirement",
        { certification_required: true, live_token_withdrawn: true }
      ])
    }))

  it.effect("a test environment without a callback URL reaches the sandbox partner wallet where private URLs are refused", () =>
    Effect.gen(function*() {
      const policy = yield* CallbackUrlPolicy
      const own = "http://10.0.0.5:8080"
      assert.isTrue(
        Result.isSuccess(
          yield* Effect.result(policy.checkBeforeSend(`${own}${sandboxPartnerWalletPath}?environment=test`))
        )
      )
      assert.isTrue(Result.isFailure(yield* Effect.result(policy.checkBeforeSend(`${own}/elsewhere`))))
    }).pipe(Effect.provide(
      Layer.fresh(CallbackUrlPolicy.layer).pipe(
        Layer.provide(Layer.fresh(SandboxCallbackUrlsLive)),
        // Whatever the casino gateway: test environments always have the sandbox partner wallet.
        Layer.provide(Layer.succeed(CasinoConfig, testCasinoConfig({ gateway: "playfiver" }))),
        Layer.provide(Layer.succeed(AppConfig, testConfig({ publicUrl: Option.some("http://10.0.0.5:8080") }))),
        Layer.provide(Layer.succeed(PartnersConfig, testPartnersConfig({ callbackAllowPrivate: false })))
      )
    )))

  it.effect("a run is closed as interrupted when its instance stops; one whose instance died gives the partner its turn back", () =>
    Effect.gen(function*() {
      const { external, partner } = yield* givenTestWallet("fake")
      const here = yield* Certifications
      books.behaviour = "slow"
      books.delayMillis = 4_000
      // Another instance starts a run in its background, and stops while the wallet has not answered.
      const started = yield* Effect.scoped(Effect.gen(function*() {
        const other = Context.get(yield* Layer.build(AnotherInstance({ callbacks: { timeout } })), Certifications)
        return yield* Effect.orDie(other.start(partner.id, external, { name: "test", via: "console" }))
      })).pipe(Effect.ensuring(Effect.sync(() => (books.behaviour = "fine"))))
      const stopped = Option.getOrThrow(yield* here.find(started.id))
      assert.deepStrictEqual([stopped.status, stopped.cases.length], ["interrupted", 0])
      assert.match(stopped.summary!, /^The run was interrupted before it finished \(the service was stopping\)/)

      // An instance that died leaves its run running: once untouched for longer than a run could take, it reads as
      // interrupted, and the partner's next run closes it.
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        INSERT INTO wallet_certifications (public_id, partner_id, external_player_id, currency, callback_url, started_by, started_via, timeout_ms, updated_at)
        VALUES ('cert_00000000000000ff', ${partner.id}, ${external}, 'BRL', 'http://gone', 'test', 'cli', 3000, now() - interval '1 hour')
      `
      assert.strictEqual(Option.getOrThrow(yield* here.find("cert_00000000000000ff")).status, "interrupted")
      const next = yield* here.run(partner.id, external, { name: "test", via: "cli" }).pipe(Effect.orDie)
      assert.strictEqual(
        next.status,
        "passed",
        JSON.stringify(next.cases.filter((result) => result.status !== "passed"))
      )
      const [closed] = yield* sql<{ status: string; finished_at: Date | null }>`
        SELECT status, finished_at FROM wallet_certifications WHERE public_id = 'cert_00000000000000ff'`
      assert.strictEqual(closed.status, "interrupted")
      assert.isNotNull(closed.finished_at)
    }))
})

layer(ShortTimeOutApp, live)("wallet certification against a 1 s time-out", (it) => {
  it.effect("a wallet that answers after the time-out fails on its first call and the run stops; a second run meanwhile is a 409", () =>
    Effect.gen(function*() {
      const { external, test } = yield* givenTestWallet("fake")
      // Answers in 4 s, against the 1 s time-out.
      books.behaviour = "slow"
      books.delayMillis = 4_000
      const client = yield* partnerClient(test.token)
      const first =
        (yield* client.certifications.start({ payload: { external_player_id: external } })).data.certification
      const second = yield* failsWith(Conflict)(
        client.certifications.start({ payload: { external_player_id: external } })
      )
      assert.include(second.message, first.id)
      const read = client.certifications.show({ params: { certification_id: first.id }, query: {} })
      const run = (yield* eventually(read, (answer) =>
        answer.data.certification.status !== "running", "the slow run's end").pipe(
          Effect.ensuring(Effect.sync(() => (books.behaviour = "fine")))
        )).data.certification
      assert.strictEqual(run.status, "failed")
      assert.deepStrictEqual(run.cases.filter((result) => result.status === "failed").map((result) => result.key), [
        "balance",
        "slowness"
      ])
      assert.strictEqual(run.cases.filter((result) => result.status === "skipped").length, 16)
      const slowness = run.cases.find((result) => result.key === "slowness")!
      assert.include(slowness.reason!, "Fault caught: answers after the time-out.")
      assert.deepInclude(slowness.timing!, { calls: 1, timed_out: 1, timeout_ms: 1_000 })
      assert.strictEqual(run.cases[0].exchanges[0].error, "The partner did not answer within 1s.")
    }))
})

layer(YenApp, live)("wallet certification in the test player's currency", (it) => {
  const caseOf = (run: Certification, key: CaseKey) => run.cases.find((result) => result.key === key)!
  /** The bodies a case sent, as the wallet read them. */
  const bodiesOf = (run: Certification, key: CaseKey) =>
    caseOf(run, key).exchanges.map((exchange) => JSON.parse(exchange.request.body))

  it.effect("in JPY, the partner's default, the sandbox partner wallet passes every case, its amounts in whole yen", () =>
    Effect.gen(function*() {
      books.faults.clear()
      const { external, partner, test } = yield* givenTestWallet("sandbox", "JPY", 5_000n)
      const client = yield* partnerClient(test.token)
      const started =
        (yield* client.certifications.start({ payload: { external_player_id: external } })).data.certification
      assert.strictEqual(started.currency, "JPY")
      const done = (yield* eventually(
        client.certifications.show({ params: { certification_id: started.id }, query: {} }),
        (answer) => answer.data.certification.status !== "running",
        "the run's end"
      )).data.certification
      assert.strictEqual(
        done.status,
        "passed",
        JSON.stringify(done.cases.filter((result) => result.status !== "passed"))
      )
      assert.strictEqual(done.currency, "JPY")
      // A bet of 1.00 is 1 yen; the float of 100.00 is 100 yen; balances are whole yen with the code.
      const bet = done.cases.find((result) => result.key === "bet")!
      assert.deepStrictEqual([bet.balance_before, bet.expected_balance, bet.balance_after], [5_100, 5_099, 5_099])
      assert.strictEqual(bet.exchanges[0].label, `bet 1 JPY (round ${started.id}_bet)`)
      assert.strictEqual(bet.exchanges[0].reading, "balance 5099 JPY")
      assert.strictEqual(bet.exchanges[0].response?.body, "{\"balance\":5099}")
      assert.include(bet.checks, "A bet of 1 JPY")
      const run = Option.getOrThrow(yield* (yield* Certifications).find(started.id, partner.id))
      assert.deepInclude(bodiesOf(run, "bet")[0], { kind: "bet", amount: 1, currency: "JPY" })
      assert.deepInclude(bodiesOf(run, "win")[0], { kind: "win", amount: 100, currency: "JPY" })
      // To the minor unit: 12 yen and 34 yen, a win of 7, refunded 39.
      const fine = bodiesOf(run, "two_decimals")
      assert.deepStrictEqual(
        fine.filter((body) => body.kind !== "balance").map((body) => [body.kind, body.amount, body.currency]),
        [["bet", 46, "JPY"], ["win", 7, "JPY"], ["refund", 39, "JPY"]]
      )
      // The other currency's bet is in EUR, for a player the sandbox wallet holds no EUR of.
      const other = caseOf(run, "other_currency")
      assert.deepInclude(JSON.parse(other.exchanges[0].request.body), { kind: "bet", amount: 1, currency: "EUR" })
      assert.strictEqual(other.exchanges[0].reading, "refused: unknown player")
      assert.deepStrictEqual([caseOf(run, "conservation").expectedBalance, caseOf(run, "conservation").balanceAfter], [
        5_000n,
        5_000n
      ])
      // A player with no JPY row is not a test player of a JPY run, whatever other currency it holds.
      yield* (yield* PartnerPlayers).arrive({
        partnerId: partner.id,
        environment: "test",
        externalPlayerId: "reais-only",
        currency: "BRL",
        name: null,
        email: null,
        balance: 5_000n
      })
      const refused = yield* failsWith(ValidationFailed)(
        client.certifications.start({ payload: { external_player_id: "reais-only" } })
      )
      assert.match(
        refused.errors.external_player_id[0],
        /"reais-only" is not one of this partner's test players in JPY/
      )
      assert.strictEqual(yield* ledgerRows(partner.id), 0)
    }))

  it.effect("in BTC, named by the caller, the sandbox partner wallet passes every case, amounts in satoshis and on the wire as decimal strings", () =>
    Effect.gen(function*() {
      books.faults.clear()
      // 0.5 BTC, and 50 yen of the same player, which a BTC run never touches.
      const { external, partner, test } = yield* givenTestWallet("sandbox", "BTC", 50_000_000n)
      yield* (yield* PartnerPlayers).arrive({
        partnerId: partner.id,
        environment: "test",
        externalPlayerId: external,
        currency: "JPY",
        name: null,
        email: null,
        balance: 50n
      })
      const run = yield* certify(partner.id, external, "BTC")
      assert.deepStrictEqual(failed(run), [], JSON.stringify(run.cases.filter((result) => result.status !== "passed")))
      assert.strictEqual(run.status, "passed")
      assert.strictEqual(run.currency, "BTC")
      const bet = caseOf(run, "bet")
      assert.deepStrictEqual([bet.balanceBefore, bet.expectedBalance, bet.balanceAfter], [
        10_050_000_000n,
        9_950_000_000n,
        9_950_000_000n
      ])
      assert.strictEqual(bet.exchanges[0].reading, "balance 99.50000000 BTC")
      assert.deepInclude(bodiesOf(run, "bet")[0], { kind: "bet", amount: "1.00000000", currency: "BTC" })
      const fine = bodiesOf(run, "two_decimals")
      assert.deepStrictEqual(
        fine.filter((body) => body.kind !== "balance").map((body) => [body.kind, body.amount]),
        [["bet", "12.00000034"], ["win", "0.00000007"], ["refund", "12.00000027"]]
      )
      const otherBody = caseOf(run, "other_body").exchanges[0].label
      assert.strictEqual(otherBody, "bet 1.00000000 BTC carrying the signature of the same bet of 10.00000001 BTC")
      assert.deepStrictEqual(caseOf(run, "conservation").balanceAfter, 50_000_000n)
      // The report writes BTC balances as decimal strings, which no JSON reader rounds.
      const client = yield* partnerClient(test.token)
      const report =
        (yield* client.certifications.show({ params: { certification_id: run.id }, query: {} })).data.certification
      const wireBet = report.cases.find((result) => result.key === "bet")!
      assert.deepStrictEqual([wireBet.balance_before, wireBet.expected_balance, wireBet.balance_after], [
        "100.50000000",
        "99.50000000",
        "99.50000000"
      ])
      // The same player's yen were never asked for nor moved.
      const yen = yield* (yield* PartnerPlayers).find(partner.id, "test", external, "JPY")
      assert.strictEqual(Option.getOrThrow(yen).balance, 50n)
      assert.isTrue(
        run.cases.flatMap((result) => result.exchanges).every((exchange) =>
          JSON.parse(exchange.request.body).currency !== "JPY"
        )
      )
    }))

  for (const currency of ["JPY", "BTC"] as const) {
    const start = currency === "JPY" ? 5_000n : 50_000_000n

    it.effect(`in ${currency}, a fake wallet that keeps each currency apart passes every case`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        const { external, partner } = yield* givenTestWallet("fake", currency, start)
        const run = yield* certify(partner.id, external, currency)
        assert.deepStrictEqual(
          failed(run),
          [],
          JSON.stringify(run.cases.filter((result) => result.status !== "passed"))
        )
        assert.strictEqual(books.balanceOf(books.walletOf(external, currency)), start)
      }))

    it.effect(`in ${currency}, a wallet that mixes currencies fails Another currency, and only it`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        books.faults.add("mixes-currencies")
        const { external, partner } = yield* givenTestWallet("fake", currency, start)
        const run = yield* certify(partner.id, external, currency).pipe(
          Effect.ensuring(Effect.sync(() => books.faults.clear()))
        )
        assert.deepStrictEqual(failed(run), ["other_currency"])
        const reason = caseOf(run, "other_currency").reason!
        // 1.00 EUR taken from the run's balance, read in the run's currency: 100 minor units of it.
        const took = currency === "JPY" ? "-100 JPY" : "-0.00000100 BTC"
        assert.include(reason, `In ${currency} after the bet of 1.00 EUR the balance is`)
        assert.include(reason, `(${took})`)
        assert.include(reason, `Fault caught: ${cases.other_currency.catches}.`)
      }))

    it.effect(`in ${currency}, a wallet that answers a balance finer than ${currency} has fails Balance, saying so, and the run stops`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        books.faults.add("answers-finer-balance")
        const { external, partner } = yield* givenTestWallet("fake", currency, start)
        const run = yield* certify(partner.id, external, currency).pipe(
          Effect.ensuring(Effect.sync(() => books.faults.clear()))
        )
        assert.deepStrictEqual(failed(run), ["balance"])
        assert.strictEqual(run.status, "failed")
        const exponent = currency === "JPY" ? 0 : 8
        const stated = currency === "JPY" ? "5000.5" : "0.500000005"
        assert.include(
          caseOf(run, "balance").reason!,
          `The balance was answered: no usable answer: The partner's balance ${stated} has more decimals than ` +
            `${currency} has (${exponent}).`
        )
        assert.strictEqual(run.cases.filter((result) => result.status === "skipped").length, 16)
        assert.strictEqual(books.balanceOf(books.walletOf(external, currency)), start)
      }))
  }
})
