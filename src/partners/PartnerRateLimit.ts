import { Context, Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import { type PartnerAccess, PartnerRateLimited } from "../domain/Partner.ts"
import { currentRecord } from "../platform/RequestRecord.ts"
import { recordRateLimitRefusal } from "../platform/Metrics.ts"
import { PartnersConfig } from "./PartnersConfig.ts"

const window = Duration.minutes(1)
const windowMillis = Duration.toMillis(window)

/** Whole seconds, rounded up: a client told 0 would come back at once and be refused again. */
const seconds = (millis: number) => Math.max(1, Math.ceil(millis / 1000))

/**
 * The IETF draft's RateLimit-* headers (Reset in seconds), set on the answer whatever it is: kept in the request's
 * record, which the edge step puts on the answer with its own headers (the last admit of a request is the one said).
 */
const withRateLimitHeaders = (headers: Record<string, string>) =>
  Effect.withFiber<void>((fiber) => {
    const record = currentRecord(fiber.context)
    if (record !== undefined) record.headers = headers
    return Effect.void
  })

/**
 * Each partner's allowance on the partner API, in each environment apart: its own `rate_limit_per_minute`
 * or PARTNER_RATE_LIMIT requests a minute, as a token bucket (a burst of the
 * whole minute's allowance, refilled evenly), counted in effect's RateLimiter
 * store, so every instance sharing that store shares the allowance. Called by
 * the auth middleware once the partner is known: the limit came with the
 * cached partner look-up, so the check costs no database round trip.
 */
export class PartnerRateLimit extends Context.Service<PartnerRateLimit, {
  /**
   * Takes one request from the partner's allowance and puts `RateLimit-Limit`, `RateLimit-Remaining` and
   * `RateLimit-Reset` on the answer; over the limit, fails with PartnerRateLimited (the 429, with `Retry-After`). A store that
   * cannot be reached admits the request (logged): the limit protects the service, it must not stop it.
   */
  admit(partner: PartnerAccess, requests?: number): Effect.Effect<void, PartnerRateLimited>
  /**
   * The partner's allowance in an environment as it stands, without taking from it: its limit a minute and the
   * requests it may send at once now (null when the store cannot be read).
   */
  usage(
    partner: Pick<PartnerAccess, "id" | "environment" | "rateLimitPerMinute">
  ): Effect.Effect<{ readonly limit: number; readonly remaining: number | null }>
}>()("partner-api/partners/PartnerRateLimit") {
  static readonly layer = Layer.effect(
    PartnerRateLimit,
    Effect.gen(function*() {
      const limiter = yield* RateLimiter.RateLimiter
      const config = yield* PartnersConfig

      const bucket = (partner: Pick<PartnerAccess, "id" | "environment" | "rateLimitPerMinute">, tokens: number) => {
        const limit = partner.rateLimitPerMinute ?? config.rateLimitPerMinute
        return {
          limit,
          taken: limiter.consume({
            algorithm: "token-bucket",
            onExceeded: "fail",
            // One bucket per environment: a test integration hammering the sandboxes never eats the live allowance.
            // The limit is part of the key: a changed limit starts a full allowance of its own size at once.
            key: `partner-api:partner:${partner.id}:${partner.environment}:${limit}`,
            limit,
            window,
            tokens
          })
        }
      }

      // `requests`: what the request counts as (a reconciliation takes more than one; see Statements).
      const admit = (partner: PartnerAccess, requests = 1) => {
        const { limit, taken } = bucket(partner, requests)
        return taken.pipe(
          Effect.matchEffect({
            onSuccess: (taken) =>
              withRateLimitHeaders({
                "ratelimit-limit": String(limit),
                "ratelimit-remaining": String(Math.max(0, Math.floor(taken.remaining))),
                "ratelimit-reset": String(seconds(Duration.toMillis(taken.resetAfter)))
              }),
            onFailure: (error) => {
              if (error.reason._tag === "RateLimitStoreError") {
                return Effect.logWarning("Partner rate limit store failed; request admitted").pipe(
                  Effect.annotateLogs({ partner_id: partner.id, detail: error.reason.message })
                )
              }
              const retryAfterMillis = Duration.toMillis(error.reason.retryAfter)
              const retryAfter = seconds(retryAfterMillis)
              // Full again once the missing token has come back and the rest of the minute has refilled the others.
              const resetMillis = windowMillis - windowMillis / limit + retryAfterMillis
              return withRateLimitHeaders({
                "retry-after": String(retryAfter),
                "ratelimit-limit": String(limit),
                "ratelimit-remaining": "0",
                "ratelimit-reset": String(seconds(resetMillis))
              }).pipe(
                Effect.andThen(recordRateLimitRefusal(partner.slug, partner.environment)),
                Effect.andThen(Effect.fail(new PartnerRateLimited({ limit, retryAfterSeconds: retryAfter })))
              )
            }
          })
        )
      }

      // Taking no token reads the bucket as it is (refilled to now), and changes nothing.
      const usage = (partner: Pick<PartnerAccess, "id" | "environment" | "rateLimitPerMinute">) => {
        const { limit, taken } = bucket(partner, 0)
        return taken.pipe(
          Effect.map((read) => ({ limit, remaining: Math.max(0, Math.floor(read.remaining)) })),
          Effect.orElseSucceed(() => ({ limit, remaining: null }))
        )
      }

      return PartnerRateLimit.of({ admit, usage })
    })
  )
}
