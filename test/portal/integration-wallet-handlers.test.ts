import { RateLimiter } from "effect/persistence"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { randomBytes } from "node:crypto"
import { Conflict, NotFound, SessionForbidden, ValidationFailed } from "../../src/api/identity/Errors.ts"
import { PortalApi } from "../../src/api/portal/PortalApi.ts"
import { CallbackAdmin } from "../../src/changes/CallbackAdmin.ts"
import { PartnerAdmin } from "../../src/changes/PartnerAdmin.ts"
import type { PartnerRole } from "../../src/domain/PartnerUser.ts"
import type { PartnerAnswer } from "../../src/domain/Wallet.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { PartnerUsers } from "../../src/identity/PartnerUsers.ts"
import { CallbackUrlPolicy } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { PortalWalletHandlers } from "../../src/portal/http/Data.ts"
import { PortalTokensHandlers, PortalWebhooksHandlers } from "../../src/portal/http/Integration.ts"
import * as PortalAuth from "../../src/portal/http/PortalAuth.ts"
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
import type { AdminSession } from "../support/AdminConsole.ts"
import { asPortalUser, givenPortalUser } from "../support/Portal.ts"
import { CallbackTargetsOfRepo } from "../support/RepoPartner.ts"
import { givenPartner, TestConfig } from "../support/TestApp.ts"
import { givenTestBet } from "../support/SpecWallet.ts"

/**
 * The portal's contract for a partner's tokens, webhooks and wallet (the envelope, the role matrix's 403s, 409 for a
 * live token the certification withholds, 404 and 422), through the real handlers and middleware over memory
 * repositories: no socket, no PostgreSQL. The partner's wallet answers at once (every stake taken from 1000.00, a
 * test callback answered 200). The real HTTP and the SQL are in portal.test.ts and portal-api.test.ts.
 */
const AnsweringPartner = Layer.succeed(
  PartnerCallbacks,
  PartnerCallbacks.of({
    ask: () => Effect.succeed({ _tag: "Balance", balance: 100_000n } satisfies PartnerAnswer),
    deliver: () => Effect.void,
    send: (_target, _eventId, _body, headersAt) =>
      Effect.succeed({
        sentAt: new Date(0),
        headers: headersAt(new Date(0)),
        millis: 7,
        answer: { status: 200, text: "{\"ok\":true}" },
        failure: null
      })
  })
)

/** Clearing test data is not reached by these groups (it is the console's, tested over PostgreSQL). */
const NoTestData = Layer.succeed(TestData, TestData.of({ clear: () => Effect.die("these specs clear no test data") }))

const InMemoryPortal = Layer.mergeAll(PortalTokensHandlers, PortalWebhooksHandlers, PortalWalletHandlers).pipe(
  Layer.provideMerge(Layer.mergeAll(PortalAuth.layer, RequestValidationLive)),
  // The portal's per-session allowance, in memory.
  Layer.provideMerge(RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))),
  Layer.provideMerge(
    Layer.mergeAll(PartnerUsers.layerMemory, PartnerAdmin.layer, CallbackAdmin.layer, Wallet.layer, WalletLedger.layer)
  ),
  Layer.provideMerge(CallbackOutbox.layer),
  Layer.provideMerge(Layer.mergeAll(OutboxRepo.layerMemory, CallbackTargetsOfRepo)),
  Layer.provideMerge(Layer.mergeAll(
    WalletRepo.layerMemory,
    Partners.layerNoDeps,
    CertificationRepoMemory.layerMemory,
    AuditRepo.layerMemory,
    AnsweringPartner,
    NoTestData
  )),
  Layer.provideMerge(Layer.mergeAll(PartnerRepo.layerMemory, CallbackUrlPolicy.layer, PartnerPlayers.layerMemory)),
  Layer.provideMerge(TestConfig()),
  Layer.provideMerge(HttpServer.layerServices)
)

const clientAs = (session: AdminSession) =>
  HttpApiTest.groups(PortalApi, ["tokens", "webhooks", "wallet"]).pipe(Effect.provide(asPortalUser(session)))
const unique = () => randomBytes(3).toString("hex")
/** A partner of its own and a portal client as its user of `role`. */
const given = (role: PartnerRole) =>
  Effect.gen(function*() {
    const { partner } = yield* givenPartner({ name: `Partner ${unique()}` })
    const user = yield* givenPortalUser(partner, `${role}-${unique()}@example.com`, role)
    return { partner, api: yield* clientAs(user.session) }
  })

layer(InMemoryPortal)("the portal's tokens, webhooks and wallet over memory", (it) => {
  it.effect("tokens: listed per environment; a developer rolls one with an overlap and ends it; a viewer cannot (403)", () =>
    Effect.gen(function*() {
      const { api, partner } = yield* given("developer")
      const listed = yield* api.tokens.list()
      assert.deepStrictEqual(listed.environments.map((each) => [each.environment, each.tokens.length]), [["live", 1], [
        "test",
        1
      ]])
      assert.match(listed.environments[1].tokens[0].prefix ?? "", /^pak_test_/)
      const rolled = yield* api.tokens.roll({ params: { environment: "test" }, payload: { keep_old_hours: 2 } })
      assert.deepStrictEqual([rolled.success, rolled.environment, rolled.tokens.length], [true, "test", 2])
      assert.isNotNull(rolled.oldValidUntil, "the old token stays valid for the overlap")
      const ended = yield* api.tokens.endOverlap({ params: { environment: "test" } })
      assert.strictEqual(ended.tokens.length, 1)
      assert.strictEqual(
        (yield* api.tokens.roll({ params: { environment: "test" }, payload: {} })).oldValidUntil,
        null,
        "no overlap: it stops now"
      )
      const viewer = yield* clientAs(
        (yield* givenPortalUser(partner, `viewer-${unique()}@example.com`, "viewer")).session
      )
      assert.strictEqual((yield* viewer.tokens.list()).environments.length, 2, "a viewer reads")
      const refused = yield* Effect.flip(viewer.tokens.roll({ params: { environment: "test" }, payload: {} }))
      assert.instanceOf(refused, SessionForbidden)
      assert.strictEqual(refused.message, "Your role (viewer) cannot make this change: it needs a developer.")
    }))

  it.effect("tokens: an overlap is bounded by the contract; a live token the certification withholds is 409", () =>
    Effect.gen(function*() {
      const { api, partner } = yield* given("owner")
      // The contract's own bound: the typed client refuses to send it (the server's 422 for it is read over HTTP in portal-api.test.ts).
      const long = yield* Effect.flip(
        api.tokens.roll({ params: { environment: "test" }, payload: { keep_old_hours: 1_000 } })
      )
      assert.instanceOf(long, Schema.SchemaError)
      assert.strictEqual(
        long.message,
        "The :attribute field must be a whole number of hours from 1 to 168.\n  at [\"keep_old_hours\"]"
      )
      yield* Effect.flatMap(Effect.service(CertificationRepo), (repo) => repo.setRequired(partner.id, true))
      const withheld = yield* Effect.flip(api.tokens.roll({ params: { environment: "live" }, payload: {} }))
      assert.instanceOf(withheld, Conflict)
      assert.match(withheld.message, /certification/i)
      assert.strictEqual(
        (yield* api.tokens.roll({ params: { environment: "test" }, payload: {} })).environment,
        "test",
        "the test token is not withheld"
      )
    }))

  it.effect("webhooks: the URL is set per environment (a bad one is 422), a test send answers what came back, the secret rolls with an overlap", () =>
    Effect.gen(function*() {
      const { api, partner } = yield* given("developer")
      const listed = yield* api.webhooks.list()
      assert.deepStrictEqual(listed.environments.map((each) => [each.environment, each.callbackUrl]), [
        ["live", null],
        ["test", null]
      ])
      const set = yield* api.webhooks.setUrl({
        params: { environment: "test" },
        payload: { callback_url: "https://wallet.example/test-hook" }
      })
      assert.deepStrictEqual(set.webhook, {
        environment: "test",
        callbackUrl: "https://wallet.example/test-hook",
        previousSecretUntil: null
      })
      assert.strictEqual((yield* api.webhooks.list()).environments[0].callbackUrl, null, "live is apart")
      const bad = yield* Effect.flip(
        api.webhooks.setUrl({ params: { environment: "live" }, payload: { callback_url: "not a url" } })
      )
      assert.instanceOf(bad, ValidationFailed)
      assert.deepStrictEqual(Object.keys((bad as ValidationFailed).errors), ["callback_url"])
      const trial = yield* api.webhooks.test({ params: { environment: "test" } })
      assert.deepStrictEqual([trial.success, trial.answer, trial.milliseconds], [true, {
        status: 200,
        body: "{\"ok\":true}"
      }, 7])
      const rotated = yield* api.webhooks.rotateSecret({
        params: { environment: "test" },
        payload: { keep_old_hours: 24 }
      })
      assert.match(rotated.webhook_secret, /^whsec_[0-9a-f]{64}$/)
      assert.isNotNull(rotated.webhook.previousSecretUntil)
      const trail = yield* Effect.flatMap(
        Effect.service(AuditRepo),
        (audit) => audit.list({ target: `partner:${partner.slug}`, limit: 20 })
      )
      assert.include(trail.map((entry) => entry.action), "partner.test-callback")
      assert.isTrue(
        trail.every((entry) => entry.via === "portal" || entry.via === "cli"),
        "the partner's own changes, as its user"
      )
    }))

  it.effect("webhooks: the delivery log is the partner's own; an unknown delivery is 404; a viewer changes nothing (403)", () =>
    Effect.gen(function*() {
      const { api, partner } = yield* given("owner")
      assert.deepStrictEqual(yield* api.webhooks.deliveries({ params: { environment: "live" }, query: {} }), {
        success: true,
        callbacks: []
      })
      const missing = yield* Effect.flip(api.webhooks.redeliver({ params: { id: 987_654 } }))
      assert.instanceOf(missing, NotFound)
      const viewer = yield* clientAs(
        (yield* givenPortalUser(partner, `viewer-${unique()}@example.com`, "viewer")).session
      )
      for (
        const change of [
          Effect.asVoid(viewer.webhooks.setUrl({ params: { environment: "test" }, payload: { callback_url: null } })),
          Effect.asVoid(viewer.webhooks.test({ params: { environment: "test" } })),
          Effect.asVoid(viewer.webhooks.rotateSecret({ params: { environment: "test" }, payload: {} }))
        ]
      ) {
        const refused = yield* Effect.flip(change)
        assert.instanceOf(refused, SessionForbidden)
        assert.strictEqual(refused.message, "Your role (viewer) cannot make this change: it needs a developer.")
      }
    }))

  it.effect("wallet: the environment's transactions and rounds of the session's partner only; an unknown round is 404", () =>
    Effect.gen(function*() {
      const mine = yield* given("viewer")
      const theirs = yield* given("viewer")
      yield* givenTestBet(mine.partner.id, "t-1", { bet: 1_000, win: 450 })
      const test = yield* mine.api.wallet.transactions({ params: { environment: "test" }, query: {} })
      assert.deepStrictEqual([test.success, test.transactions.map((entry) => [entry.transaction_id, entry.status])], [
        true,
        [["t-1", "applied"]]
      ])
      assert.strictEqual(test.meta.total, 1)
      assert.deepStrictEqual(
        (yield* mine.api.wallet.transactions({ params: { environment: "live" }, query: {} })).transactions,
        [],
        "live is apart"
      )
      assert.deepStrictEqual(
        (yield* theirs.api.wallet.transactions({ params: { environment: "test" }, query: {} })).transactions,
        [],
        "another partner's are not"
      )
      const round = yield* mine.api.wallet.round({ params: { environment: "test", round_id: "r-1" }, query: {} })
      assert.deepStrictEqual(round.rounds.map((entry) => entry.round_id), ["r-1"])
      assert.instanceOf(
        yield* Effect.flip(theirs.api.wallet.round({ params: { environment: "test", round_id: "r-1" }, query: {} })),
        NotFound
      )
    }))
})
