/**
 * The wallet certification's second step over real PostgreSQL and real HTTP: a run certifies only the partner's own
 * wallet (the sandbox partner wallet is practice, and the live token's gate says so), the live token is issued only on
 * the host that passed and, in the portal, only by the owner; a run the service could not send is `not_run` and never
 * the partner's failure; a wallet that overdraws and answers what no one can read fails one case and ends where it
 * started.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Schema } from "effect"
import { HttpServer } from "effect/http"
import { CertificationAdmin } from "../../src/changes/CertificationAdmin.ts"
import type { Certification } from "../../src/domain/Certification.ts"
import { caseKeys, cases } from "../../src/domain/CertificationCaseTexts.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { adminRequest, type AdminSession } from "../support/AdminConsole.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { givenCertifiable } from "../support/CertificationWallet.ts"
import { givenPortalUser } from "../support/Portal.ts"
import { TestApp } from "../support/TestApp.ts"

const books = new PartnerBooks()
// The fake knows only the players it was told of: an unknown one is `unknown_player`, as a wallet must say.
books.knownPlayersOnly = true
const App = TestApp({ callbacks: { timeout: Duration.seconds(10) } }).pipe(
  Layer.provideMerge(FakeUpstream.layer(books.script))
)

const certify = (partnerId: number, external: string) =>
  Effect.flatMap(
    Effect.service(Certifications),
    (service) => service.run(partnerId, external, { name: "test", via: "cli" })
  ).pipe(Effect.orDie)

const requireCertification = (slug: string) =>
  Effect.flatMap(
    Effect.service(CertificationAdmin),
    (admin) => admin.setRequired({ name: "ops@example.com", via: "console" }, slug, true)
  ).pipe(Effect.orDie)

const Refusal = Schema.Struct({ message: Schema.String })
/** The portal's live token roll as `session`: its status, and its message when refused. */
const rollLive = (session: AdminSession) =>
  Effect.map(adminRequest("POST", "/portal/api/tokens/live/roll", { session, json: {} }), (answer) => ({
    status: answer.status,
    message: answer.status === 200 ? null : Schema.decodeUnknownSync(Refusal)(answer.body).message
  }))

const failedKeys = (run: Certification) =>
  run.cases.filter((result) => result.status === "failed").map((result) => result.key)

layer(App, live)("wallet certification, second step", (it) => {
  it.effect("a passing run against the sandbox partner wallet is practice: under the setting the portal's owner gets a 409, not a live token", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const server = yield* HttpServer.HttpServer
      const port = (server.address as { readonly port: number }).port
      // The sandbox partner wallet of this very service, under an address of its own choosing (another host name).
      const sandbox = `http://127.0.0.1:${port}${sandboxPartnerWalletPath}?environment=test&as=mine`
      const { external, partner } = yield* givenCertifiable(books, "Gated", {
        testCallbackUrl: sandbox,
        callbackUrl: `${fake.url}/wallet`
      })
      yield* requireCertification(partner.slug)
      const run = yield* certify(partner.id, external)
      assert.deepStrictEqual([run.status, run.partnerWallet], ["passed", false], JSON.stringify(failedKeys(run)))
      const owner = yield* givenPortalUser(partner, `owner-${partner.id}@gated.example`)
      const refused = yield* rollLive(owner.session)
      assert.strictEqual(refused.status, 409)
      assert.include(
        refused.message!,
        `The live token of ${partner.slug} is issued only after a passed wallet certification of its own test ` +
          "wallet, and it has none yet (a run against the sandbox partner wallet"
      )

      // No test callback URL at all: the run goes to the sandbox partner wallet the test environment falls back to.
      const bare = yield* givenCertifiable(books, "Gated", { testCallbackUrl: null })
      const fallback = yield* certify(bare.partner.id, bare.external)
      assert.isFalse(fallback.partnerWallet, "the fallback is never the partner's wallet")
    }))

  it.effect("the live token: a developer is refused under the setting; the owner gets it once the own wallet passed on the live URL's host", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const port = new URL(fake.url).port
      const { external, partner } = yield* givenCertifiable(books, "Gated", {
        testCallbackUrl: `${fake.url}/wallet`,
        callbackUrl: `http://localhost:${port}/wallet`
      })
      yield* requireCertification(partner.slug)
      const owner = yield* givenPortalUser(partner, `owner-${partner.id}@gated.example`)
      const developer = yield* givenPortalUser(partner, `dev-${partner.id}@gated.example`, "developer")

      const passed = yield* certify(partner.id, external)
      assert.deepStrictEqual(
        [passed.status, passed.partnerWallet],
        ["passed", true],
        JSON.stringify(failedKeys(passed))
      )
      const byDeveloper = yield* rollLive(developer.session)
      assert.strictEqual(byDeveloper.status, 409)
      assert.include(byDeveloper.message!, "only its owner (or an operator) may issue it")
      const onAnotherHost = yield* rollLive(owner.session)
      assert.strictEqual(onAnotherHost.status, 409)
      assert.include(
        onAnotherHost.message!,
        "its wallet passed on 127.0.0.1, and its live callback URL is on localhost"
      )

      yield* Effect.orDie((yield* Partners).update(partner.slug, { callbackUrl: `${fake.url}/live-wallet` }))
      assert.deepStrictEqual(yield* rollLive(owner.session), { status: 200, message: null })

      // A run the service cannot send (its host does not resolve) is no verdict: the pass still stands.
      yield* Effect.orDie((yield* Partners).update(partner.slug, { testCallbackUrl: "http://wallet.gated.invalid/cb" }))
      const notRun = yield* certify(partner.id, external)
      assert.strictEqual(notRun.status, "not_run")
      assert.match(
        notRun.summary!,
        /^Not run: the service could not send the run's callbacks \(The partner could not be reached: wallet\.gated\.invalid does not resolve/
      )
      assert.include(notRun.summary!, "This says nothing of the wallet")
      assert.isTrue(notRun.cases.every((result) => result.status === "skipped"), "no case is the wallet's failure")
      assert.strictEqual(notRun.cases.length, caseKeys.length)
      assert.notInclude(notRun.cases.map((result) => result.reason).join(" "), "Fault caught")
      assert.deepStrictEqual(yield* rollLive(owner.session), { status: 200, message: null }, "not_run blocks nothing")
    }))

  it.effect("a wallet that takes a stake it must refuse and answers a negative balance fails one case, and ends where it started", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const { external, partner } = yield* givenCertifiable(books, "Gated", { testCallbackUrl: `${fake.url}/wallet` })
      books.faults.add("overdraws")
      const run = yield* certify(partner.id, external).pipe(Effect.ensuring(Effect.sync(() => books.faults.clear())))
      assert.deepStrictEqual(failedKeys(run), ["insufficient_funds"])
      const refused = run.cases.find((result) => result.key === "insufficient_funds")!
      assert.include(refused.reason!, "The bet was answered no usable answer: The partner's answer is not")
      assert.include(refused.reason!, `Fault caught: ${cases.insufficient_funds.catches}.`)
      assert.include(
        refused.exchanges.map((exchange) => exchange.label).join("\n"),
        "rollback of the bet, whose answer does not prove it was refused, as the service sends one"
      )
      assert.deepStrictEqual(
        [refused.balanceBefore, refused.balanceAfter],
        [15_000n, 15_000n],
        "the stake given back by the rollback: 50.00 and the run's float"
      )
      assert.strictEqual(books.balanceOf(external), 5_000n, "the wallet ends where it started")
      assert.strictEqual(
        run.summary,
        `${caseKeys.length - 1} of ${caseKeys.length} cases passed; failed: Insufficient funds.`
      )
    }))
})
