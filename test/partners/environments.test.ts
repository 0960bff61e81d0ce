/**
 * A partner's two environments at the door: each token admits the partner in its own environment (the
 * envelope says which), a token without a prefix is live, SERVICE_ENVIRONMENT=staging refuses live tokens
 * with the contract's exact 401 and takes test ones, the environments' rate-limit buckets are apart, and
 * each environment's callbacks have their own URL and secret. In memory (HttpApiTest), then on PostgreSQL.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TooManyRequests, Unauthorized } from "../../src/api/Errors.ts"
import { signingSecrets } from "../../src/domain/Partner.ts"
import { CallbackTargets } from "../../src/partners/CallbackTargets.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { memoryClient, MemoryPartnerApi } from "../support/MemoryPartnerApi.ts"
import { bearer, givenPartner, request, TestApp } from "../support/TestApp.ts"
import { live } from "../support/live.ts"

layer(MemoryPartnerApi())("environments in production (the default)", (it) => {
  it.effect("the live and the test token each admit the partner in its environment", () =>
    Effect.gen(function*() {
      const { partner, test, token } = yield* givenPartner({ name: "Two Keys", slug: "two-keys" })
      assert.match(token, /^pak_live_/)
      assert.match(test.token, /^pak_test_/)
      const liveAnswer = yield* (yield* memoryClient(token)).account.status()
      assert.strictEqual(liveAnswer.partner.environment, "live")
      assert.strictEqual(liveAnswer.data.partner.environment, "live")
      const testAnswer = yield* (yield* memoryClient(test.token)).account.status()
      assert.deepStrictEqual(testAnswer.partner, {
        id: partner.id,
        name: "Two Keys",
        slug: "two-keys",
        status: "active",
        environment: "test"
      })
      assert.strictEqual(testAnswer.data.partner.environment, "test")
    }))

  it.effect("a token issued without a prefix (before environments, or chosen as DEMO_PARTNER_TOKEN) is live", () =>
    Effect.gen(function*() {
      const chosen = `pak_${"k".repeat(43)}`
      yield* givenPartner({ slug: "old-style", token: chosen })
      assert.strictEqual((yield* (yield* memoryClient(chosen)).account.status()).partner.environment, "live")
    }))

  it.effect("rotating one environment's token leaves the other's working", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const { test, token } = yield* givenPartner({ slug: "rotating" })
      const rotated = yield* partners.rotateToken("rotating", "test")
      assert.match(rotated.token, /^pak_test_/)
      const old = yield* Effect.flip((yield* memoryClient(test.token)).account.status())
      assert.instanceOf(old, Unauthorized)
      assert.strictEqual((yield* (yield* memoryClient(rotated.token)).account.status()).partner.environment, "test")
      assert.strictEqual((yield* (yield* memoryClient(token)).account.status()).partner.environment, "live")
    }))

  it.effect("each environment has its own rate-limit bucket", () =>
    Effect.gen(function*() {
      const { test, token } = yield* givenPartner({ slug: "limited", rateLimitPerMinute: 2 })
      const liveClient = yield* memoryClient(token)
      yield* liveClient.account.status()
      yield* liveClient.account.status()
      assert.instanceOf(yield* Effect.flip(liveClient.account.status()), TooManyRequests)
      // The live allowance is spent; the test one is whole.
      const testClient = yield* memoryClient(test.token)
      yield* testClient.account.status()
      yield* testClient.account.status()
      assert.instanceOf(yield* Effect.flip(testClient.account.status()), TooManyRequests)
    }))

  it.effect("each environment's callbacks go to its own URL, signed with its own secret", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const repo = yield* PartnerRepo
      const { partner, test, webhookSecret } = yield* givenPartner({
        slug: "called-back",
        callbackUrl: "https://live.example/wallet",
        testCallbackUrl: "https://test.example/wallet"
      })
      const liveTarget = Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "live"))
      const testTarget = Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "test"))
      assert.deepStrictEqual([liveTarget.callbackUrl, liveTarget.webhookSecret], [
        "https://live.example/wallet",
        webhookSecret
      ])
      assert.deepStrictEqual([testTarget.callbackUrl, testTarget.webhookSecret], [
        "https://test.example/wallet",
        test.webhookSecret
      ])
      assert.deepStrictEqual(signingSecrets(testTarget, new Date()), [test.webhookSecret])
      // A rotation of the test secret: the old test secret signs beside it; the live one is untouched.
      const rotated = yield* partners.rotateWebhookSecret("called-back", "test")
      const afterRotation = Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "test"))
      assert.deepStrictEqual(signingSecrets(afterRotation, new Date()), [rotated.webhookSecret, test.webhookSecret])
      assert.deepStrictEqual(
        signingSecrets(Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "live")), new Date()),
        [webhookSecret]
      )
      // Each URL changes apart.
      yield* partners.update("called-back", { testCallbackUrl: null })
      assert.isNull(Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "test")).callbackUrl)
      assert.strictEqual(
        Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "live")).callbackUrl,
        "https://live.example/wallet"
      )
    }))
})

layer(MemoryPartnerApi({ partners: { serviceEnvironment: "staging" } }))(
  "SERVICE_ENVIRONMENT=staging, in memory",
  (it) => {
    it.effect("refuses a live token with the invalid-partner message and takes a test one", () =>
      Effect.gen(function*() {
        const { test, token } = yield* givenPartner({ slug: "staged" })
        const refused = yield* Effect.flip((yield* memoryClient(token)).account.status())
        assert.instanceOf(refused, Unauthorized)
        assert.strictEqual((refused as Unauthorized).message, "Parceiro invalido ou inativo.")
        assert.strictEqual((yield* (yield* memoryClient(test.token)).account.status()).partner.environment, "test")
      }))
  }
)

layer(TestApp({ partners: { serviceEnvironment: "staging" } }), live)(
  "SERVICE_ENVIRONMENT=staging on the wire",
  (it) => {
    it.effect("a live token gets the contract's exact 401; a test token works", () =>
      Effect.gen(function*() {
        const { test, token } = yield* givenPartner({ name: "Staged Bets" })
        const refused = yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })
        assert.deepStrictEqual([refused.status, refused.body], [401, {
          success: false,
          message: "Parceiro invalido ou inativo."
        }])
        const admitted = yield* request("GET", "/api/partner/v1/status", { headers: { "x-partner-key": test.token } })
        assert.strictEqual(admitted.status, 200)
        assert.strictEqual((admitted.body as { partner: { environment: string } }).partner.environment, "test")
      }))
  }
)

layer(TestApp(), live)("environments on PostgreSQL", (it) => {
  it.effect("production takes both tokens; each environment's row holds its own token hash, URL and secret", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { partner, test, token, webhookSecret } = yield* givenPartner({
        name: "Stored Twice",
        callbackUrl: "https://live.example/wallet",
        testCallbackUrl: "https://test.example/wallet"
      })
      for (const [presented, environment] of [[token, "live"], [test.token, "test"]] as const) {
        const answer = yield* request("GET", "/api/partner/v1/status", { headers: bearer(presented) })
        assert.strictEqual(answer.status, 200)
        assert.strictEqual((answer.body as { partner: { environment: string } }).partner.environment, environment)
      }
      const rows = yield* sql<
        { environment: string; callback_url: string; webhook_secret: string; has_token: boolean }
      >`
        SELECT e.environment, e.callback_url, e.webhook_secret, t.token_hash IS NOT NULL AS has_token
        FROM partner_environments e LEFT JOIN partner_tokens t USING (partner_id, environment)
        WHERE e.partner_id = ${partner.id} ORDER BY e.environment
      `
      assert.deepStrictEqual(rows.map((row) => ({ ...row })), [
        {
          environment: "live",
          callback_url: "https://live.example/wallet",
          webhook_secret: webhookSecret,
          has_token: true
        },
        {
          environment: "test",
          callback_url: "https://test.example/wallet",
          webhook_secret: test.webhookSecret,
          has_token: true
        }
      ])
      const targets = yield* CallbackTargets
      const testTarget = Option.getOrThrow(yield* targets.get(partner.id, "test"))
      assert.deepStrictEqual([testTarget.environment, testTarget.callbackUrl, testTarget.webhookSecret], [
        "test",
        "https://test.example/wallet",
        test.webhookSecret
      ])
    }))

  it.effect("a partner row from before environments: its token stays live, and a test token comes by rotation", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const partners = yield* Partners
      // What the migration leaves for such a partner: a live row with its token, a test row without one.
      const token = `pak_${"m".repeat(43)}`
      yield* sql`
        WITH p AS (INSERT INTO partners (name, slug) VALUES ('Migrated', 'migrated') RETURNING id),
             e AS (INSERT INTO partner_environments (partner_id, environment) SELECT id, env FROM p, (VALUES ('live'), ('test')) v(env) RETURNING partner_id, environment)
        INSERT INTO partner_tokens (partner_id, environment, token_hash)
        SELECT partner_id, 'live', sha256(${token}::bytea) FROM e WHERE environment = 'live'
      `
      const answer = yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })
      assert.strictEqual((answer.body as { partner: { environment: string } }).partner.environment, "live")
      const migrated = yield* partners.show("migrated")
      const [, testSettings] = yield* partners.environmentsOf([migrated])
      assert.deepStrictEqual([testSettings.environment, testSettings.tokenIssuedAt], ["test", null])
      const issued = yield* partners.rotateToken("migrated", "test")
      const tested = yield* request("GET", "/api/partner/v1/status", { headers: bearer(issued.token) })
      assert.strictEqual((tested.body as { partner: { environment: string } }).partner.environment, "test")
      assert.strictEqual((yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })).status, 200)
    }))
})
