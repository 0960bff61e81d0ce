/**
 * Wallet certification end to end: the whole service over real HTTP and PostgreSQL, certifying the sandbox partner
 * wallet of this very service (it passes every case) and a fake partner wallet without faults (passes too), through
 * the service, the partner API (test and live tokens) and the admin CLI (exit code, the live token's gate). No run
 * writes a ledger row. A fake wallet with each fault switched on: certification-faults.test.ts; runs in other
 * currencies: certification-currencies.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Result } from "effect"
import { SqlClient } from "effect/sql"
import { caseKeys, cases } from "../../src/domain/CertificationCaseTexts.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { Conflict, Forbidden, NotFound, ValidationFailed } from "../../src/client/PartnerClient.ts"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { CallbackUrlPolicy } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnersConfig } from "../../src/partners/PartnersConfig.ts"
import { AppConfig } from "../../src/platform/AppConfig.ts"
import { SandboxCallbackUrlsLive } from "../../src/server.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { certify, failedCases, failedReasons, givenTestWallet, ledgerRows } from "../support/CertificationWallet.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
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

layer(App, live)("wallet certification", (it) => {
  it.effect("the sandbox partner wallet passes every case, is left as it was found, and no ledger row is written", () =>
    Effect.gen(function*() {
      const { external, partner } = yield* givenTestWallet(books, "sandbox")
      const run = yield* certify(partner.id, external)
      assert.deepStrictEqual(run.cases.map((result) => result.key), [...caseKeys])
      assert.deepStrictEqual(
        failedCases(run),
        [],
        failedReasons(run).join("; ")
      )
      assert.strictEqual(run.status, "passed")
      assert.strictEqual(run.summary, `${caseKeys.length} of ${caseKeys.length} cases passed.`)
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
      const { external, partner } = yield* givenTestWallet(books, "fake")
      const run = yield* certify(partner.id, external)
      assert.deepStrictEqual(
        failedCases(run),
        [],
        failedReasons(run).join("; ")
      )
      assert.strictEqual(books.balanceOf(external), 5_000n)
    }))

  it.effect("the partner API: the test token starts a run and reads it case by case; a live token, a stranger and a player that is not a test player are refused", () =>
    Effect.gen(function*() {
      const { external, partner, test, token } = yield* givenTestWallet(books, "sandbox")
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
        caseKeys.length
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
      const sandbox = yield* givenTestWallet(books, "sandbox")
      const passed = yield* admin("partners", "certify", sandbox.partner.slug, "--player", sandbox.external)
      assert.strictEqual(passed.exitCode, 0, passed.stderr)
      assert.strictEqual(JSON.parse(passed.stdout).status, "passed")
      assert.strictEqual(JSON.parse(passed.stdout).started_via, "cli")
      assert.strictEqual(passed.stderr.split("\n").filter((line) => line.startsWith("passed ")).length, caseKeys.length)

      books.knownPlayersOnly = true
      books.faults.add("skips-signature-checks")
      const faulty = yield* givenTestWallet(books, "fake")
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
        `The live token of ${partner.slug} is issued only after a passed wallet certification of its own test ` +
          "wallet, and its latest run against it failed"
      )
      const test = yield* admin("partners", "rotate-token", partner.slug, "--env", "test")
      assert.strictEqual(test.exitCode, 0, "the test token is never withheld")
      assert.strictEqual((yield* admin("partners", "certify", partner.slug, "--player", faulty.external)).exitCode, 0)
      // Passed on 127.0.0.1 (the fake wallet's host): the live callback URL must be there too.
      const fake = yield* FakeUpstream
      const port = new URL(fake.url).port
      yield* admin("partners", "set", partner.slug, "--callback-url", `http://localhost:${port}/wallet`)
      const elsewhere = yield* admin("partners", "rotate-token", partner.slug)
      assert.strictEqual(elsewhere.exitCode, 1)
      assert.include(
        elsewhere.stderr,
        "its wallet passed on 127.0.0.1, and its live callback URL is on localhost. Set the live callback URL on " +
          "127.0.0.1, or certify the wallet on localhost."
      )
      yield* admin("partners", "set", partner.slug, "--callback-url", `${fake.url}/wallet`)
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
        Layer.provide(Layer.succeed(CasinoConfig, testCasinoConfig({ gateways: ["playfiver"] }))),
        Layer.provide(Layer.succeed(AppConfig, testConfig({ publicUrl: Option.some("http://10.0.0.5:8080") }))),
        Layer.provide(Layer.succeed(PartnersConfig, testPartnersConfig({ callbackAllowPrivate: false })))
      )
    )))

  it.effect("a run is closed as interrupted when its instance stops; one whose instance died gives the partner its turn back", () =>
    Effect.gen(function*() {
      const { external, partner } = yield* givenTestWallet(books, "fake")
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
        failedReasons(next).join("; ")
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
      const { external, test } = yield* givenTestWallet(books, "fake")
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
      assert.strictEqual(run.cases.filter((result) => result.status === "skipped").length, caseKeys.length - 2)
      const slowness = run.cases.find((result) => result.key === "slowness")!
      assert.include(slowness.reason!, "Fault caught: answers after the time-out.")
      assert.deepInclude(slowness.timing!, { calls: 1, timed_out: 1, timeout_ms: 1_000 })
      assert.strictEqual(run.cases[0].exchanges[0].error, "The partner did not answer within 1s.")
    }))
})
