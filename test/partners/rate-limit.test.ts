import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Partners } from "../../src/partners/Partners.ts"
import { bearer, errorBody, givenPartner, partnerKey, type RawResponse, request, TestApp } from "../support/TestApp.ts"
import { live } from "../support/live.ts"

/** The service's default in this file: small, so a test can spend it. */
const defaultLimit = 3

const status = (token: string) => request("GET", "/api/partner/v1/status", { headers: bearer(token) })

const integerHeader = (response: RawResponse, name: string) => {
  const value = response.headers[name]
  assert.isDefined(value, `${name} is missing`)
  assert.match(value!, /^[0-9]+$/, `${name}: ${value}`)
  return Number(value)
}

/** Sends `count` requests one after the other (the allowance is spent in order). */
const statuses = (token: string, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => status(token), { concurrency: 1 })

layer(TestApp({ partners: { rateLimitPerMinute: defaultLimit } }), live)("partner rate limits", (it) => {
  it.effect("every answer carries RateLimit-Limit, -Remaining and -Reset; the one past the limit is a 429 envelope with Retry-After", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Burst One" })
      const admitted = yield* statuses(token, defaultLimit)
      admitted.forEach((response, i) => {
        assert.strictEqual(response.status, 200)
        assert.strictEqual(integerHeader(response, "ratelimit-limit"), defaultLimit)
        assert.strictEqual(integerHeader(response, "ratelimit-remaining"), defaultLimit - 1 - i)
        const reset = integerHeader(response, "ratelimit-reset")
        assert.isAtLeast(reset, 1)
        assert.isAtMost(reset, 60)
        assert.isUndefined(response.headers["retry-after"])
      })

      const refused = yield* status(token)
      assert.strictEqual(refused.status, 429)
      assert.include(refused.contentType, "application/json")
      assert.deepStrictEqual(Object.keys(refused.body as object).sort(), ["message", "success"])
      assert.strictEqual(errorBody(refused).success, false)
      const retryAfter = integerHeader(refused, "retry-after")
      // One token comes back every 60 / 3 = 20 seconds.
      assert.isAtLeast(retryAfter, 1)
      assert.isAtMost(retryAfter, 20)
      assert.strictEqual(
        errorBody(refused).message,
        `Too many requests: this partner may send ${defaultLimit} requests a minute. Retry in ${retryAfter} seconds.`
      )
      assert.strictEqual(integerHeader(refused, "ratelimit-limit"), defaultLimit)
      assert.strictEqual(integerHeader(refused, "ratelimit-remaining"), 0)
      assert.isAtLeast(integerHeader(refused, "ratelimit-reset"), retryAfter)
      assert.isAtMost(integerHeader(refused, "ratelimit-reset"), 60)

      // The other scheme is the same partner and the same allowance.
      const sameByKey = yield* request("GET", "/api/partner/v1/providers", { headers: partnerKey(token) })
      assert.strictEqual(sameByKey.status, 429)
    }))

  it.effect("a partner over its limit does not affect another partner", () =>
    Effect.gen(function*() {
      const noisy = yield* givenPartner({ name: "Noisy" })
      const quiet = yield* givenPartner({ name: "Quiet" })
      const noisyAnswers = yield* statuses(noisy.token, defaultLimit + 2)
      assert.deepStrictEqual(noisyAnswers.map((r) => r.status), [200, 200, 200, 429, 429])
      const quietAnswer = yield* status(quiet.token)
      assert.strictEqual(quietAnswer.status, 200)
      assert.strictEqual(integerHeader(quietAnswer, "ratelimit-remaining"), defaultLimit - 1)
    }))

  it.effect("answers that are not 200 carry the headers too, and count", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Sloppy" })
      const invalid = yield* request("GET", "/api/partner/v1/games?page=abc", { headers: bearer(token) })
      assert.strictEqual(invalid.status, 422)
      assert.strictEqual(integerHeader(invalid, "ratelimit-limit"), defaultLimit)
      assert.strictEqual(integerHeader(invalid, "ratelimit-remaining"), defaultLimit - 1)
      const missing = yield* request("GET", "/api/partner/v1/sports/events/no-such-event/result", {
        headers: bearer(token)
      })
      assert.strictEqual(integerHeader(missing, "ratelimit-remaining"), defaultLimit - 2)
    }))

  it.effect("unauthenticated answers and the open routes carry no rate-limit headers", () =>
    Effect.gen(function*() {
      const noToken = yield* request("GET", "/api/partner/v1/status")
      assert.strictEqual(noToken.status, 401)
      assert.isUndefined(noToken.headers["ratelimit-limit"])
      const health = yield* request("GET", "/health")
      assert.isUndefined(health.headers["ratelimit-limit"])
      // Without METRICS_TOKEN (this app sets none), /metrics is open.
      const metrics = yield* request("GET", "/metrics")
      assert.strictEqual(metrics.status, 200)
      assert.isUndefined(metrics.headers["ratelimit-limit"])
      assert.include(metrics.body, "# TYPE http_requests_total counter")
    }))

  it.effect("a partner's own limit, set through the partners service, replaces the default and can be cleared", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const { partner, token } = yield* givenPartner({ name: "Big Operator", rateLimitPerMinute: 10 })
      assert.strictEqual(partner.rateLimitPerMinute, 10)
      const generous = yield* statuses(token, defaultLimit + 1)
      assert.deepStrictEqual(generous.map((r) => r.status), [200, 200, 200, 200])
      assert.strictEqual(integerHeader(generous[3], "ratelimit-limit"), 10)
      assert.strictEqual(integerHeader(generous[3], "ratelimit-remaining"), 6)

      const tightened = yield* partners.update(partner.slug, { rateLimitPerMinute: 1 })
      assert.strictEqual(tightened.rateLimitPerMinute, 1)
      // A changed limit starts a full allowance of its own size.
      const [last, refused] = yield* statuses(token, 2)
      assert.strictEqual(last.status, 200)
      assert.strictEqual(integerHeader(last, "ratelimit-limit"), 1)
      assert.strictEqual(integerHeader(last, "ratelimit-remaining"), 0)
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(integerHeader(refused, "ratelimit-limit"), 1)
      assert.include(errorBody(refused).message, "may send 1 request a minute")

      const cleared = yield* partners.update(partner.slug, { rateLimitPerMinute: null })
      assert.isNull(cleared.rateLimitPerMinute)
      assert.strictEqual(integerHeader(yield* status(token), "ratelimit-limit"), defaultLimit)
    }))

  it.effect("a limit that is not a whole number from 1 is refused with a clear message", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const { partner } = yield* givenPartner({ name: "Typo" })
      for (const wrong of [0, -5, 2.5]) {
        const error = yield* Effect.flip(partners.update(partner.slug, { rateLimitPerMinute: wrong }))
        assert.strictEqual(error._tag, "InvalidPartnerInput")
        assert.match(error.message, /^Invalid rate limit: /)
      }
      assert.isNull((yield* partners.show(partner.slug)).rateLimitPerMinute)
    }))
})
