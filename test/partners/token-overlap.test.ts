/**
 * Tokens rolled with an overlap, under a test clock: the old token works beside the new one until its expiry, then
 * gets the contract's 401 through the real authentication middleware, even while its look-up is still cached; when
 * each token was last used is written once per interval, never by the request. Over memory (HttpApiTest); the SQL
 * of the same rules is in test/portal/portal-api.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { Unauthorized } from "../../src/api/Errors.ts"
import { ErrorMessages } from "../../src/domain/ErrorMessages.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { memoryClient, MemoryPartnerApi } from "../support/MemoryPartnerApi.ts"
import { givenPartner } from "../support/TestApp.ts"

const status = (token: string) => Effect.flatMap(memoryClient(token), (client) => client.account.status())

layer(MemoryPartnerApi())("tokens rolled with an overlap", (it) => {
  it.effect("the old token works for the overlap beside the new one, then is the contract's 401 (a cached look-up too)", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const created = yield* givenPartner({ slug: "overlapping" })
      const { token } = yield* partners.rotateToken("overlapping", "live", undefined, Duration.hours(1))
      yield* TestClock.adjust(Duration.minutes(59))
      assert.strictEqual((yield* status(created.token)).partner.slug, "overlapping")
      assert.strictEqual((yield* status(token)).partner.slug, "overlapping")
      // Looked up a moment before the end: the next request is answered from the cache (AUTH_CACHE_TTL, 5 s), yet
      // the hour is over by then.
      yield* TestClock.adjust(Duration.seconds(58))
      yield* status(created.token)
      yield* TestClock.adjust(Duration.seconds(3))
      const refused = yield* Effect.flip(status(created.token))
      assert.instanceOf(refused, Unauthorized)
      assert.strictEqual(refused.message, ErrorMessages.invalidPartner)
      assert.strictEqual((yield* status(token)).partner.slug, "overlapping", "the new one goes on")
      const listed = yield* partners.tokensOf(created.partner)
      assert.deepStrictEqual(listed.filter((each) => each.environment === "live").map((each) => each.expiresAt), [null])
    }))

  it.effect("rolled now, every other token of the environment stops at once; the other environment's is untouched", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const created = yield* givenPartner({ slug: "rolled-now" })
      const kept = yield* partners.rotateToken("rolled-now", "test", undefined, Duration.days(7))
      const now = yield* partners.rotateToken("rolled-now", "test")
      for (const old of [created.test.token, kept.token]) {
        assert.instanceOf(yield* Effect.flip(status(old)), Unauthorized)
      }
      assert.strictEqual((yield* status(now.token)).partner.environment, "test")
      assert.strictEqual((yield* status(created.token)).partner.environment, "live")
    }))

  it.effect("when a token was last used is written once per interval, with its latest use", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const created = yield* givenPartner({ slug: "used" })
      const lastUsed = Effect.map(
        partners.tokensOf(created.partner),
        (tokens) => tokens.find((each) => each.environment === "live")!.lastUsedAt
      )
      yield* status(created.token)
      assert.isNull(yield* lastUsed, "nothing written by the request itself")
      const usedAt = yield* Clock.currentTimeMillis
      yield* TestClock.adjust(Duration.millis(100))
      assert.strictEqual((yield* lastUsed)?.getTime(), usedAt)
    }))
})
