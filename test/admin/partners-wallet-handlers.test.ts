import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiMiddleware, HttpApiTest } from "effect/http-api"
import { randomBytes } from "node:crypto"
import { AdminApi } from "../../src/api/admin/AdminApi.ts"
import { Conflict, NotFound, SessionForbidden, ValidationFailed } from "../../src/api/admin/AdminErrors.ts"
import * as AdminAuth from "../../src/admin/http/AdminAuth.ts"
import { AdminAuth as AdminAuthMiddleware, csrfHeader } from "../../src/api/admin/AdminSecurity.ts"
import { AdminPartnersHandlers } from "../../src/admin/http/Partners.ts"
import { AdminWalletHandlers } from "../../src/admin/http/Wallet.ts"
import { CallbackAdmin } from "../../src/changes/CallbackAdmin.ts"
import { PartnerAdmin } from "../../src/changes/PartnerAdmin.ts"
import type { PartnerAnswer } from "../../src/domain/Wallet.ts"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { CallbackUrlPolicy } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { CertificationRepo } from "../../src/wallet/certification/CertificationRepo.ts"
import * as CertificationRepoMemory from "../../src/wallet/certification/CertificationRepoMemory.ts"
import { CallbackOutbox } from "../../src/wallet/outbox/CallbackOutbox.ts"
import { OutboxRepo } from "../../src/wallet/outbox/OutboxRepo.ts"
import { PartnerCallbacks } from "../../src/wallet/outbox/PartnerCallbacks.ts"
import { TestData } from "../../src/wallet/TestData.ts"
import { Wallet } from "../../src/wallet/Wallet.ts"
import { WalletLedger } from "../../src/wallet/WalletLedger.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { type AdminSession, asAdmin, givenAdmin, sessionOf } from "../support/AdminConsole.ts"
import { CallbackTargetsOfRepo } from "../support/RepoPartner.ts"
import { TestConfig } from "../support/TestApp.ts"
import { givenTestBet } from "../support/SpecWallet.ts"

/**
 * The console's contract for partners and the wallet (the envelope, credentials shown once, 404 for an unknown
 * partner, 409 for a taken slug or a withheld live token, 422, a viewer's 403), through the real handlers and
 * middleware over memory repositories: no socket, no PostgreSQL. The partner's wallet takes every stake at once.
 * Clearing test data spans the wallet's tables in one transaction: it stays in the PostgreSQL tests.
 */
const TakingPartner = Layer.succeed(
  PartnerCallbacks,
  PartnerCallbacks.of({
    ask: () => Effect.succeed({ _tag: "Balance", balance: 100_000n } satisfies PartnerAnswer),
    deliver: () => Effect.void,
    send: () => Effect.die("these specs send no test callback")
  })
)
const NoTestData = Layer.succeed(TestData, TestData.of({ clear: () => Effect.die("these specs clear no test data") }))

const InMemoryConsole = Layer.mergeAll(AdminPartnersHandlers, AdminWalletHandlers).pipe(
  Layer.provideMerge(Layer.mergeAll(AdminAuth.layer, RequestValidationLive)),
  Layer.provideMerge(
    Layer.mergeAll(AdminAccounts.layerMemory, PartnerAdmin.layer, CallbackAdmin.layer, Wallet.layer, WalletLedger.layer)
  ),
  Layer.provideMerge(CallbackOutbox.layer),
  Layer.provideMerge(Layer.mergeAll(OutboxRepo.layerMemory, CallbackTargetsOfRepo)),
  Layer.provideMerge(
    Layer.mergeAll(
      WalletRepo.layerMemory,
      Partners.layerNoDeps,
      CertificationRepoMemory.layerMemory,
      AuditRepo.layerMemory,
      TakingPartner,
      NoTestData
    )
  ),
  Layer.provideMerge(Layer.mergeAll(PartnerRepo.layerMemory, CallbackUrlPolicy.layer, PartnerPlayers.layerMemory)),
  Layer.provideMerge(TestConfig()),
  Layer.provideMerge(HttpServer.layerServices)
)

const clientAs = (session: AdminSession) =>
  HttpApiTest.groups(AdminApi, ["partners", "wallet"]).pipe(Effect.provide(asAdmin(session)))
const unique = () => randomBytes(3).toString("hex")
const as = (role: "operator" | "viewer") =>
  Effect.gen(function*() {
    const email = `${role}-${unique()}@example.com`
    yield* givenAdmin(email, role)
    return yield* clientAs(yield* sessionOf(email))
  })

layer(InMemoryConsole)("the console's partners and wallet over memory", (it) => {
  it.effect("a partner is created with its credentials shown once; a taken slug is 409; it is listed, searched and shown", () =>
    Effect.gen(function*() {
      const api = yield* as("operator")
      const slug = `acme-${unique()}`
      const created = yield* api.partners.create({ payload: { name: "Acme Bets", slug, commission_percent: 12.5 } })
      assert.deepStrictEqual([created.success, created.partner.slug, created.partner.name], [true, slug, "Acme Bets"])
      assert.match(created.token, /^pak_live_/)
      assert.match(created.test.token, /^pak_test_/)
      assert.match(created.webhook_secret, /^whsec_/)
      const taken = yield* Effect.flip(api.partners.create({ payload: { name: "Another", slug } }))
      assert.instanceOf(taken, Conflict)
      assert.strictEqual(taken.message, `A partner with slug "${slug}" already exists.`)
      const found = yield* api.partners.list({ query: { search: slug.toUpperCase() } })
      assert.deepStrictEqual(
        found.partners.map((partner) => partner.slug),
        [slug],
        "searched by name or slug, in any case"
      )
      assert.strictEqual((yield* api.partners.show({ params: { slug } })).partner.slug, slug)
      const missing = yield* Effect.flip(api.partners.show({ params: { slug: "no-such-partner" } }))
      assert.instanceOf(missing, NotFound)
    }))

  it.effect("a partner is updated, deactivated and activated; an unknown one is 404; each change is audited", () =>
    Effect.gen(function*() {
      const api = yield* as("operator")
      const slug = `beta-${unique()}`
      yield* api.partners.create({ payload: { name: "Beta", slug } })
      assert.strictEqual(
        (yield* api.partners.update({ params: { slug }, payload: { name: "  Beta Bets  " } })).partner.name,
        "Beta Bets"
      )
      assert.strictEqual((yield* api.partners.deactivate({ params: { slug } })).partner.status, "inactive")
      assert.strictEqual((yield* api.partners.activate({ params: { slug } })).partner.status, "active")
      for (
        const call of [
          Effect.asVoid(api.partners.update({ params: { slug: "no-such-partner" }, payload: { name: "x" } })),
          Effect.asVoid(api.partners.activate({ params: { slug: "no-such-partner" } })),
          Effect.asVoid(api.partners.rotateWebhookSecret({ params: { slug: "no-such-partner" }, query: {} }))
        ]
      ) assert.instanceOf(yield* Effect.flip(call), NotFound)
      const trail = yield* Effect.flatMap(
        Effect.service(AuditRepo),
        (audit) => audit.list({ target: `partner:${slug}`, limit: 10 })
      )
      assert.isAtLeast(trail.length, 4)
      assert.isTrue(trail.every((entry) => entry.via === "console"))
    }))

  it.effect("a bad callback URL is 422; a live token withheld by the certification is 409; a viewer changes nothing (403)", () =>
    Effect.gen(function*() {
      const api = yield* as("operator")
      const slug = `gamma-${unique()}`
      const { partner } = yield* api.partners.create({ payload: { name: "Gamma", slug } })
      const bad = yield* Effect.flip(api.partners.update({ params: { slug }, payload: { callback_url: "not a url" } }))
      assert.instanceOf(bad, ValidationFailed)
      yield* Effect.flatMap(Effect.service(CertificationRepo), (repo) => repo.setRequired(partner.id, true))
      assert.instanceOf(
        yield* Effect.flip(api.partners.rotateToken({ params: { slug }, query: { environment: "live" } })),
        Conflict
      )
      const test = yield* api.partners.rotateToken({ params: { slug }, query: { environment: "test" } })
      assert.match(test.token, /^pak_test_/)
      const viewer = yield* as("viewer")
      assert.strictEqual((yield* viewer.partners.show({ params: { slug } })).partner.slug, slug, "a viewer reads")
      const refused = yield* Effect.flip(viewer.partners.deactivate({ params: { slug } }))
      assert.instanceOf(refused, SessionForbidden)
      assert.strictEqual(refused.message, "Your role (viewer) can read but not change anything.")
    }))

  it.effect("a partner's currencies are set and cleared (audited together); a code not accepted or a default left out is 422 naming the field", () =>
    Effect.gen(function*() {
      const api = yield* as("operator")
      const slug = `eps-${unique()}`
      const { partner } = yield* api.partners.create({ payload: { name: "Epsilon", slug } })
      assert.deepStrictEqual([partner.defaultCurrency, partner.currencies], [null, null])
      const set = yield* api.partners.update({
        params: { slug },
        payload: { default_currency: "USDT", currencies: ["USDT", "BRL"] }
      })
      assert.deepStrictEqual([set.partner.defaultCurrency, set.partner.currencies], ["USDT", ["USDT", "BRL"]])

      const unknown = yield* Effect.flip(
        api.partners.update({ params: { slug }, payload: { default_currency: "ETH" } })
      )
      assert.instanceOf(unknown, ValidationFailed)
      assert.deepStrictEqual(Object.keys((unknown as ValidationFailed).errors), ["default_currency"])
      assert.match(unknown.message, /^The default currency "ETH" is not a currency this deployment accepts/)
      const leftOut = yield* Effect.flip(api.partners.update({ params: { slug }, payload: { currencies: ["EUR"] } }))
      assert.deepStrictEqual((leftOut as ValidationFailed).errors, {
        currencies: [
          "The default currency USDT is not among the partner's currencies (EUR): add it to them, or choose a " +
          "default among them, so that a launch naming no currency is not refused."
        ]
      })
      assert.deepStrictEqual((yield* api.partners.show({ params: { slug } })).partner.currencies, ["USDT", "BRL"])

      const cleared = yield* api.partners.update({
        params: { slug },
        payload: { default_currency: null, currencies: null }
      })
      assert.deepStrictEqual([cleared.partner.defaultCurrency, cleared.partner.currencies], [null, null])
      const trail = yield* Effect.flatMap(
        Effect.service(AuditRepo),
        (audit) => audit.list({ target: `partner:${slug}`, limit: 10 })
      )
      assert.deepStrictEqual(
        trail.filter((entry) => entry.action === "partner.set-currencies").map((entry) => entry.after).reverse(),
        [{ default_currency: "USDT", currencies: ["USDT", "BRL"] }, { default_currency: null, currencies: null }],
        "only the changes made; no partner.update beside them"
      )
      assert.isFalse(trail.some((entry) => entry.action === "partner.update"))
    }))

  it.effect("wallet: transactions by partner and environment, each with its partner; a player needs its partner (422); an unknown partner is 404", () =>
    Effect.gen(function*() {
      const api = yield* as("viewer")
      const operator = yield* as("operator")
      const slug = `delta-${unique()}`
      const { partner } = yield* operator.partners.create({ payload: { name: "Delta", slug } })
      yield* givenTestBet(partner.id, `t-${slug}`, { bet: 1_000, win: 0 })
      const found = yield* api.wallet.transactions({ query: { partner: slug } })
      assert.deepStrictEqual(
        found.transactions.map((entry) => [entry.txnId, entry.partner, entry.environment, entry.status]),
        [[`t-${slug}`, slug, "test", "applied"]]
      )
      assert.strictEqual(found.meta.total, 1)
      assert.deepStrictEqual(
        (yield* api.wallet.transactions({ query: { partner: slug, environment: "live" } })).transactions,
        []
      )
      const byId = yield* api.wallet.transactions({ query: { transaction_id: `t-${slug}` } })
      assert.strictEqual(byId.transactions.length, 1)
      const lonely = yield* Effect.flip(api.wallet.transactions({ query: { player: "p-1" } }))
      assert.deepStrictEqual((lonely as ValidationFailed).errors, {
        player: ["Choose the player's partner too: player ids are the partner's own."]
      })
      assert.instanceOf(
        yield* Effect.flip(api.wallet.transactions({ query: { partner: "no-such-partner" } })),
        NotFound
      )
      assert.instanceOf(yield* Effect.flip(api.wallet.callbacks({ query: { partner: "no-such-partner" } })), NotFound)
      assert.instanceOf(yield* Effect.flip(operator.wallet.redeliver({ params: { id: 987_654 } })), NotFound)
      assert.isTrue((yield* api.wallet.pending()).success)
    }))

  it.effect("wallet: ?currency= lists only that currency's entries (a known code without rows: none); a code that is no currency is 422 naming it", () =>
    Effect.gen(function*() {
      const email = `viewer-${unique()}@example.com`
      yield* givenAdmin(email, "viewer")
      const session = yield* sessionOf(email)
      const api = yield* clientAs(session)
      const operator = yield* as("operator")
      const slug = `multi-${unique()}`
      const { partner } = yield* operator.partners.create({ payload: { name: "Multi", slug } })
      yield* givenTestBet(partner.id, `brl-${slug}`, { bet: 1_000, win: 250 }, "BRL")
      yield* givenTestBet(partner.id, `jpy-${slug}`, { bet: 1_250, win: 0 }, "JPY")
      const of = (
        currency: string | undefined,
        more: { readonly player?: string; readonly environment?: "test"; readonly transaction_id?: string } = {}
      ) =>
        Effect.map(
          api.wallet.transactions({ query: { partner: slug, currency, ...more } }),
          (found) => found.transactions.map((entry) => [entry.txnId, entry.currency, entry.bet, entry.win])
        )
      assert.deepStrictEqual(yield* of("JPY"), [[`jpy-${slug}`, "JPY", 1250, 0]])
      assert.deepStrictEqual(yield* of("BRL", { player: "p-1", environment: "test" }), [[
        `brl-${slug}`,
        "BRL",
        10,
        2.5
      ]])
      assert.deepStrictEqual((yield* of(undefined)).length, 2)
      assert.deepStrictEqual(yield* of("BRL", { transaction_id: `jpy-${slug}` }), [])
      assert.deepStrictEqual(yield* of("EUR"), [])
      // Values the typed client would refuse to send: the encoded request is sent to the raw URL.
      for (const code of ["jpy", "YEN", "XYZ"]) {
        const raw = yield* HttpApiTest.groups(AdminApi, ["wallet"]).pipe(Effect.provide(HttpApiMiddleware.layerClient(
          AdminAuthMiddleware,
          ({ next, request }) =>
            next(HttpClientRequest.setHeaders(
              HttpClientRequest.setUrl(request, `/admin/api/wallet/transactions?partner=${slug}&currency=${code}`),
              { cookie: session.cookie, [csrfHeader]: session.csrf }
            ))
        )))
        const refused = yield* Effect.flip(raw.wallet.transactions({ query: {} }))
        assert.instanceOf(refused, ValidationFailed, code)
        assert.deepStrictEqual((refused as ValidationFailed).errors, {
          currency: [
            "The selected currency is invalid. Use a currency code such as BRL, EUR or BTC (codes are case-sensitive: mBTC)."
          ]
        }, code)
      }
    }))
})
