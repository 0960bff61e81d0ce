import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { RateLimiter } from "effect/persistence"
import { AppConfig } from "./AppConfig.ts"
import { clientGroup } from "./ClientAddress.ts"

/** Where credentials are refused: the partner API (tokens) or the aggregator's wallet URL (agent secret). */
export type AuthDoor = "partner-api" | "aggregator-wallet"

const window = Duration.minutes(1)

/** Addresses this instance remembers as past their limit, at most; the oldest go first. */
const maxBlocked = 10_000

/**
 * How many refused credentials one client address may get a minute at each
 * door (AUTH_FAILURE_LIMIT), as a token bucket in the shared RateLimiter,
 * so a fleet counts together. Past it, the door answers 429 until the
 * bucket refills. An instance that saw an address go past its limit
 * remembers until when, so it can refuse that address's next calls
 * without asking the store (the wallet URL does, before reading a body).
 */
export class AuthFailureLimit extends Context.Service<AuthFailureLimit, {
  readonly limitPerMinute: number
  /** How long `address` must still wait at `door`, when this instance saw it go past its limit; asks no store. */
  blocked(door: AuthDoor, address: string): Effect.Effect<Option.Option<Duration.Duration>>
  /**
   * Counts one refusal of `address` at `door`. Past the limit: how long until the next is admitted. A
   * store that cannot be reached counts nothing (logged): the limit protects the service, it must not stop it.
   */
  take(door: AuthDoor, address: string): Effect.Effect<Option.Option<Duration.Duration>>
  /**
   * Gives back what `take` counted when the credential turned out valid: counted before the look-up (so
   * concurrent guesses cannot pass the limit together), a credential found is no refusal.
   */
  giveBack(door: AuthDoor, address: string): Effect.Effect<void>
}>()("partner-api/platform/AuthFailureLimit") {
  static readonly layer = Layer.effect(
    AuthFailureLimit,
    Effect.gen(function*() {
      const limiter = yield* RateLimiter.RateLimiter
      const limit = (yield* AppConfig).authFailureLimit
      const blockedUntil = new Map<string, number>()

      const blocked = (door: AuthDoor, address: string) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const key = `${door}:${clientGroup(address)}`
          const until = blockedUntil.get(key)
          if (until === undefined) return Option.none<Duration.Duration>()
          if (until <= now) {
            blockedUntil.delete(key)
            return Option.none<Duration.Duration>()
          }
          return Option.some(Duration.millis(until - now))
        })

      const remember = (key: string, retryAfter: Duration.Duration) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          blockedUntil.delete(key)
          blockedUntil.set(key, now + Duration.toMillis(retryAfter))
          if (blockedUntil.size > maxBlocked) blockedUntil.delete(blockedUntil.keys().next().value!)
        })

      const consume = (key: string, tokens: number) =>
        limiter.consume({
          algorithm: "token-bucket",
          onExceeded: "fail",
          key: `partner-api:auth-failures:${key}`,
          tokens,
          limit,
          window
        })

      const take = (door: AuthDoor, address: string) =>
        Effect.flatMap(blocked(door, address), (known) => {
          if (Option.isSome(known)) return Effect.succeed(known)
          const key = `${door}:${clientGroup(address)}`
          return consume(key, 1).pipe(
            Effect.as(Option.none<Duration.Duration>()),
            Effect.catch((error) => {
              if (error.reason._tag === "RateLimitStoreError") {
                return Effect.as(
                  Effect.logWarning("Refused-credential limit store failed; nothing counted").pipe(
                    Effect.annotateLogs({ door, detail: error.reason.message })
                  ),
                  Option.none()
                )
              }
              const retryAfter = error.reason.retryAfter
              return Effect.as(remember(key, retryAfter), Option.some(retryAfter))
            })
          )
        })

      // A negative count puts the token back in the same atomic step as a take (as the provider quota does); a
      // store that fails here keeps it: the address only waits sooner.
      const giveBack = (door: AuthDoor, address: string) =>
        Effect.ignore(consume(`${door}:${clientGroup(address)}`, -1))

      return AuthFailureLimit.of({ limitPerMinute: limit, blocked, take, giveBack })
    })
  )
}
