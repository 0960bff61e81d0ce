import { Context, Duration, Effect } from "effect"
import { RateLimiter } from "effect/persistence"
import { recordProviderQuotaRemaining } from "../platform/Metrics.ts"
import { SportsConfig } from "./SportsConfig.ts"
import { SportsProviderError } from "./SportsProviderError.ts"

/**
 * Who a provider call is made for: a partner's request, or the service's
 * own work (the scheduled refreshes, an operator's refresh). Partner
 * endpoints set it; everything else is the service's.
 */
export type ProviderCaller =
  | { readonly _tag: "Service" }
  | { readonly _tag: "Partner"; readonly partnerId: number }

export const ProviderCaller = Context.Reference<ProviderCaller>("partner-api/sports/ProviderCaller", {
  defaultValue: () => ({ _tag: "Service" })
})

/** The hourly budgets a provider's calls are counted against. */
export interface QuotaShares {
  /** Every call, whoever it is for: SPORTS_PROVIDER_RATE_LIMIT. */
  readonly wholePerHour: number
  /** All partners together: the budget less SPORTS_SCHEDULED_RESERVE. */
  readonly partnersPerHour: number
  /** One partner: SPORTS_PARTNER_QUOTA_SHARE of the budget (never more than all partners together). */
  readonly perPartnerPerHour: number
}

/** Whole calls of a fraction of the budget, read as decimals are (600 x (1 - 0.9) is 60, not 59.99…). */
const callsIn = (whole: number, fraction: number) => Math.max(1, Math.floor(Math.round(whole * fraction * 1e6) / 1e6))

export const quotaShares = (config: SportsConfig["Service"]): QuotaShares => {
  const whole = config.rateLimitPerHour
  const partners = callsIn(whole, 1 - config.scheduledReserve)
  return {
    wholePerHour: whole,
    partnersPerHour: partners,
    perPartnerPerHour: Math.min(partners, callsIn(whole, config.partnerQuotaShare))
  }
}

/**
 * One hourly budget as a token bucket: a small burst (a tenth, at most 60),
 * then a steady refill, so that the budget holds in any sliding hour.
 */
const bucket = (perHour: number) => {
  const burst = Math.max(1, Math.min(60, Math.floor(perHour / 10)))
  const refillEvery = Duration.millis(3_600_000 / Math.max(1, perHour - burst))
  return { limit: burst, window: Duration.times(refillEvery, burst) }
}

/** The key of one partner's share of a provider's hourly quota (whichever environment its calls come from). */
const partnerQuotaKey = (name: string, partnerId: number) => `sports-provider:${name}:partner:${partnerId}`

/**
 * A partner's share of the provider's hourly quota as it stands, read without taking a call from it: the share an
 * hour, the burst its bucket holds, and the calls it may make at once now (null when the store cannot be read).
 */
export const partnerQuotaUsage = Effect.fnUntraced(function*(name: string, partnerId: number) {
  const config = yield* SportsConfig
  const limiter = yield* RateLimiter.RateLimiter
  const perHour = quotaShares(config).perPartnerPerHour
  const { limit, window } = bucket(perHour)
  const read = yield* Effect.option(
    limiter.consume({
      algorithm: "token-bucket",
      onExceeded: "fail",
      key: partnerQuotaKey(name, partnerId),
      tokens: 0,
      limit,
      window
    })
  )
  return {
    provider: name,
    perHour,
    burst: limit,
    availableNow: read._tag === "Some" ? Math.max(0, Math.floor(read.value.remaining)) : null
  }
})

/**
 * One unit of the provider's hourly quota for the current caller. Every
 * call counts against SPORTS_PROVIDER_RATE_LIMIT; a partner's call also
 * against its own share and against what partners together may spend, so
 * that no partner starves the others nor the scheduled refreshes (which
 * keep SPORTS_SCHEDULED_RESERVE for themselves). Past any of them, a
 * RateLimited error, before anything is sent; the tokens the buckets before
 * it had given are given back (a call that is not made spends nothing). The
 * counters live in the service's one RateLimiter: in Redis, fleet-wide, with
 * REDIS_URL.
 */
export const providerQuota = Effect.fnUntraced(function*(name: string) {
  const config = yield* SportsConfig
  const limiter = yield* RateLimiter.RateLimiter
  const shares = quotaShares(config)
  const consume = (key: string, perHour: number, tokens: number) =>
    limiter.consume({ algorithm: "token-bucket", onExceeded: "fail", key, tokens, ...bucket(perHour) })
  const budget = (key: string, perHour: number, message: string) => ({
    take: consume(key, perHour, 1).pipe(
      Effect.mapError((error) =>
        error.reason._tag === "RateLimitExceeded"
          ? new SportsProviderError({ reason: "RateLimited", message })
          : new SportsProviderError({ reason: "Unavailable", message: "The provider's quota could not be checked." })
      )
    ),
    // A negative count puts a token back (the store adds it, in the same atomic step as a take); a bucket
    // that refilled meanwhile may hold one over its size until its next take. A store that fails here
    // keeps the token: the call is refused either way.
    giveBack: Effect.ignore(consume(key, perHour, -1))
  })
  const whole = budget(
    `sports-provider:${name}`,
    shares.wholePerHour,
    `The sports provider's hourly quota (${shares.wholePerHour} calls) is in use; retry shortly.`
  )
  const partners = budget(
    `sports-provider:${name}:partners`,
    shares.partnersPerHour,
    `The partners' part of the sports provider's hourly quota (${shares.partnersPerHour} calls) is in use; retry shortly.`
  )
  const takeWhole = whole.take.pipe(Effect.tap((taken) => recordProviderQuotaRemaining(taken.remaining)))
  return Effect.gen(function*() {
    const caller = yield* ProviderCaller
    if (caller._tag === "Service") return yield* Effect.asVoid(takeWhole)
    const own = budget(
      partnerQuotaKey(name, caller.partnerId),
      shares.perPartnerPerHour,
      `Your share of the sports provider's hourly quota (${shares.perPartnerPerHour} calls) is in use; retry shortly.`
    )
    // Each bucket in turn; a refusal (or an interruption) further on gives back what the earlier ones gave.
    yield* own.take
    yield* partners.take.pipe(
      Effect.andThen(takeWhole.pipe(Effect.onError(() => partners.giveBack))),
      Effect.onError(() => own.giveBack)
    )
  })
})
