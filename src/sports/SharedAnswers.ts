import { Clock, Data, Effect, Exit, Option, Schema } from "effect"
import { Persistable, Redis } from "effect/persistence"
import { SharedPersistence, SharedStore } from "../platform/SharedStore.ts"
import type { SportsProviderError } from "./SportsProviderError.ts"

/** A provider answer as the fleet shares it: the payload, when it arrived, and how long it is good for. */
export interface Answer {
  readonly raw: unknown
  readonly storedAt: number
  readonly ttlMillis: number
}

/** Where an answer came from for this instance: the provider itself, or another instance's call, through Redis. */
export type Origin = "upstream" | "shared"

const AnswerSchema = Schema.Struct({ raw: Schema.Unknown, storedAt: Schema.Number, ttlMillis: Schema.Number })

/** The shared store's key of one upstream call (its path and normalized parameters). */
class SharedAnswer extends Persistable.Class<{ payload: { readonly key: string } }>()("SportsProviderAnswer", {
  primaryKey: ({ key }) => key,
  success: AnswerSchema
}) {}

/** Redis failed (down, slow): the caller goes to the provider itself. */
class SharedUnavailable extends Data.TaggedError("SharedUnavailable") {}

/** Deletes the single-flight lock only while it is still the holder's. */
const releaseLock = Redis.script((key: string, token: string) => [key, token], {
  lua: `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`,
  numberOfKeys: 1
})

/**
 * The provider's answers shared by every instance through Redis (effect's
 * Persistence over REDIS_URL), with a fleet-wide single flight: an instance
 * that misses takes a short lock on the call (SET NX PX) and asks the
 * provider; the others wait for its answer in the store instead of asking
 * too. Without REDIS_URL every call goes to `fetch` (the instance's own
 * cache in front of this shares identical concurrent calls). While Redis
 * fails, the same: the provider is asked directly, within the quota.
 */
export const makeSharedAnswers = Effect.fnUntraced(function*(options: {
  readonly storeId: string
  /** How long the lock is held at most: longer than a call with its retries can take. */
  readonly lockFor: number
}) {
  const shared = yield* SharedStore
  const persistence = yield* SharedPersistence
  if (Option.isNone(persistence) || Option.isNone(shared.redis)) {
    return (_key: string, fetch: Effect.Effect<Answer, SportsProviderError>) =>
      Effect.map(fetch, (answer) => ({ answer, origin: "upstream" as Origin }))
  }
  const redis = shared.redis.value
  const store = yield* persistence.value.make({
    storeId: `${shared.keyPrefix}${options.storeId}`,
    timeToLive: (exit) => Exit.isSuccess(exit) ? Math.max(0, (exit.value as Answer).ttlMillis) : 0
  })
  const release = redis.eval(releaseLock)
  const onRedis = <A, E>(command: Effect.Effect<A, E>) =>
    shared.shared(command).pipe(Effect.mapError(() => new SharedUnavailable()))

  const read = (answer: SharedAnswer) =>
    onRedis(store.get(answer).pipe(Effect.catchTag("SchemaError", () => Effect.undefined))).pipe(
      Effect.map((exit) => exit !== undefined && Exit.isSuccess(exit) ? exit.value : undefined)
    )

  return (key: string, fetch: Effect.Effect<Answer, SportsProviderError>) => {
    const answer = new SharedAnswer({ key })
    const lockKey = `${shared.keyPrefix}${options.storeId}-lock:${key}`
    const token = `${process.pid}-${Math.random().toString(36).slice(2)}`
    // The answer is stored before the lock is let go: released first, another instance could find neither the
    // lock nor the answer in between, and ask the provider again.
    const fetchAndShare = fetch.pipe(
      Effect.tap((fresh) => Effect.ignore(onRedis(store.set(answer, Exit.succeed(fresh))))),
      Effect.map((fresh) => ({ answer: fresh as Answer, origin: "upstream" as Origin })),
      Effect.ensuring(Effect.ignore(onRedis(release(lockKey, token))))
    )
    const attempt: Effect.Effect<{ answer: Answer; origin: Origin }, SportsProviderError | SharedUnavailable> = Effect
      .gen(
        function*() {
          const deadline = (yield* Clock.currentTimeMillis) + options.lockFor
          while ((yield* Clock.currentTimeMillis) < deadline) {
            const found = yield* read(answer)
            if (found !== undefined) return { answer: found, origin: "shared" as Origin }
            const locked = yield* onRedis(redis.send("SET", lockKey, token, "NX", "PX", String(options.lockFor)))
            if (locked === "OK") {
              // Another instance may have stored the answer and let go of the lock between the read above and the
              // lock taken here: read again before asking the provider.
              const stored = yield* read(answer)
              if (stored === undefined) return yield* fetchAndShare
              yield* Effect.ignore(onRedis(release(lockKey, token)))
              return { answer: stored, origin: "shared" as Origin }
            }
            yield* Effect.sleep("25 millis")
          }
          // Whoever held the lock never answered (it died): ask the provider.
          return { answer: yield* fetch, origin: "upstream" as Origin }
        }
      )
    return attempt.pipe(
      Effect.catchTag(
        "SharedUnavailable",
        () => Effect.map(fetch, (answer) => ({ answer, origin: "upstream" as Origin }))
      )
    )
  }
})
