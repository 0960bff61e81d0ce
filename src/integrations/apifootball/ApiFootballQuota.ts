import { Clock, Duration, Effect, Option } from "effect"
import { RateLimiter } from "effect/persistence"
import { SharedStore } from "../../platform/SharedStore.ts"
import { SportsProviderError } from "../../sports/SportsProviderError.ts"
import type { Account, Failure, QuotaHeaders } from "./ApiFootballEnvelope.ts"

/**
 * API-Football's two limits, kept across the fleet (Redis, with REDIS_URL; this instance's memory without):
 * - the day's quota: once the provider says it is spent (`errors.requests`, a remaining day of 0 in its headers, or
 *   `/status` counting the limit used), nothing is sent until the UTC day turns;
 * - the minute's: every call takes a token of APIFOOTBALL_CALLS_PER_MINUTE first, and after the provider's
 *   `errors.rateLimit` (or a remaining minute of 0) nothing is sent for a minute. The provider blocks keys that keep
 *   bursting past it, so a refusal here is worth more than a call there.
 */

export type Hold = "day" | "minute"

/** The next 00:00 UTC after `now`. */
export const nextUtcDay = (now: number) => {
  const date = new Date(now)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1)
}

/** The holds the provider's answer calls for: its failures first, then the figures of its headers. */
export const holdsOf = (failures: ReadonlyArray<Failure>, quota: QuotaHeaders): ReadonlyArray<Hold> => {
  const holds = new Set<Hold>()
  if (failures.some((failure) => failure.kind === "requests") || quota.dayRemaining === 0) holds.add("day")
  if (failures.some((failure) => failure.kind === "rateLimit") || quota.minuteRemaining === 0) holds.add("minute")
  return [...holds]
}

/** Whether the account's figures say the day is spent. */
export const daySpent = (account: Account) => account.dayLimit > 0 && account.dayUsed >= account.dayLimit

const time = (millis: number) => new Date(millis).toISOString()

const refusal = (hold: Hold, until: number) =>
  hold === "day"
    ? new SportsProviderError({
      reason: "QuotaSpent",
      message: `The sports provider's quota of the day is spent; it is asked again from ${time(until)} (00:00 UTC).`
    })
    : new SportsProviderError({
      reason: "RateLimited",
      message: `The sports provider's limit of calls a minute was reached; it is asked again from ${time(until)}.`
    })

export const makeApiFootballQuota = Effect.fnUntraced(function*(options: { readonly callsPerMinute: number }) {
  const store = yield* SharedStore
  const limiter = yield* RateLimiter.RateLimiter
  // This instance's own knowledge, read before Redis: a hold it learnt itself costs no round trip.
  const local: Record<Hold, number> = { day: 0, minute: 0 }
  const keyOf = (hold: Hold) => `${store.keyPrefix}sports-provider:apifootball:hold:${hold}`

  const sharedHold = (hold: Hold): Effect.Effect<number> =>
    Option.match(store.redis, {
      onNone: () => Effect.succeed(0),
      onSome: (redis) =>
        store.shared(redis.send<string | null>("GET", keyOf(hold))).pipe(
          Effect.map((value) => (value === null ? 0 : Number(value) || 0)),
          // Redis down: this instance's own holds still stand; the limiter below still counts.
          Effect.orElseSucceed(() => 0)
        )
    })

  /** The moment a hold ends, if it is on now. */
  const holdUntil = (hold: Hold, now: number) =>
    Effect.map(local[hold] > now ? Effect.succeed(local[hold]) : sharedHold(hold), (until) => {
      if (until > local[hold]) local[hold] = until
      return until > now ? until : undefined
    })

  const hold = (kind: Hold, now: number) =>
    Effect.gen(function*() {
      const until = kind === "day" ? nextUtcDay(now) : now + 60_000
      if (until <= local[kind]) return
      local[kind] = until
      yield* Effect.logWarning(
        kind === "day"
          ? "The sports provider's quota of the day is spent: no call until the UTC day turns"
          : "The sports provider's limit of calls a minute was reached: no call for a minute"
      ).pipe(Effect.annotateLogs({ provider: "apifootball", until: time(until) }))
      if (Option.isSome(store.redis)) {
        yield* Effect.ignore(
          store.shared(store.redis.value.send("SET", keyOf(kind), String(until), "PX", String(until - now)))
        )
      }
    })

  /** Before each request: no hold on, and a token of the minute's calls (given to the fleet's one counter). */
  const take = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    for (const kind of ["day", "minute"] as const) {
      const until = yield* holdUntil(kind, now)
      if (until !== undefined) return yield* refusal(kind, until)
    }
    yield* limiter.consume({
      algorithm: "fixed-window",
      onExceeded: "fail",
      key: "sports-provider:apifootball:minute",
      limit: options.callsPerMinute,
      window: Duration.minutes(1),
      tokens: 1
    }).pipe(
      Effect.mapError((error) =>
        error.reason._tag === "RateLimitExceeded"
          ? new SportsProviderError({
            reason: "RateLimited",
            message: `The sports provider's calls of this minute (${options.callsPerMinute}) are in use; retry in ${
              Math.ceil(Duration.toMillis(error.reason.retryAfter) / 1000)
            } s.`
          })
          : new SportsProviderError({ reason: "Unavailable", message: "The provider's quota could not be checked." })
      )
    )
  })

  /** After each answer: the holds it calls for. */
  const observe = (failures: ReadonlyArray<Failure>, quota: QuotaHeaders) =>
    Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.forEach(holdsOf(failures, quota), (kind) => hold(kind, now), { discard: true })
    )

  /** What `/status` (free of quota) says of the day. */
  const observeAccount = (account: Account) =>
    daySpent(account) ? Effect.flatMap(Clock.currentTimeMillis, (now) => hold("day", now)) : Effect.void

  return { take, observe, observeAccount, refusal }
})
