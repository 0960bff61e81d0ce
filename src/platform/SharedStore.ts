import { Cause, Context, Deferred, Duration, Effect, Exit, Layer, Option, Redacted, Schedule, Scope } from "effect"
import { Persistence, RateLimiter, Redis } from "effect/persistence"

import { SharedStoreConfig } from "./SharedStoreConfig.ts"

// Kept in a file of its own so the configuration (ConfigLive, which the admin CLI builds) loads no Redis client.
export { SharedStoreConfig } from "./SharedStoreConfig.ts"

/** How the shared store is doing, as /ready reports it. */
export type SharedStoreState = "memory" | "redis" | "redis-unreachable"

/** The longest a command to Redis may take before Redis counts as down for that call. */
const commandTimeout = Duration.millis(500)

/**
 * The shared store in use. `redis` is there only with REDIS_URL; `shared`
 * runs one command against it with a time-out and remembers how Redis did,
 * so that callers fall back at once (to memory, to the provider) instead of
 * waiting on a Redis that is down.
 */
export class SharedStore extends Context.Service<SharedStore, {
  readonly redis: Option.Option<Redis.Redis["Service"]>
  readonly keyPrefix: string
  readonly fleetSize: number
  /** Runs a command on Redis: a failure or a time-out is a RedisError, logged once per outage. */
  readonly shared: <A, E>(command: Effect.Effect<A, E>) => Effect.Effect<A, E | Redis.RedisError>
  /** Asks Redis now (PING); `memory` without REDIS_URL. */
  readonly check: Effect.Effect<SharedStoreState>
}>()("partner-api/platform/SharedStore") {}

const timedOut = () =>
  new Redis.RedisError({ cause: new Error(`Redis did not answer within ${Duration.format(commandTimeout)}`) })

const memoryStore = SharedStore.of({
  redis: Option.none(),
  keyPrefix: "",
  fleetSize: 1,
  shared: (command) => command,
  check: Effect.succeed("memory")
})

/**
 * The Redis client REDIS_URL names (node-redis through effect's NodeRedis).
 * Commands fail at once while the connection is down (no offline queue);
 * once connected, the client reconnects on its own, with backoff up to 2 s,
 * for as long as it takes. Building it fails when the first connection does.
 */
const nodeRedisLayer = (url: Redacted.Redacted) => {
  const state = { connected: false }
  // Loaded only with REDIS_URL set: node-redis is some 650 modules, which every start and CLI command paid for.
  return Layer.unwrap(
    Effect.promise(() => import("@effect/platform-node/NodeRedis")).pipe(Effect.map((NodeRedis) =>
      NodeRedis.layer({
        url: Redacted.value(url),
        disableOfflineQueue: true,
        socket: {
          connectTimeout: 2_000,
          reconnectStrategy: (retries: number, cause: Error) =>
            state.connected ? Math.min(2 ** retries * 50, 2_000) + Math.floor(Math.random() * 200) : cause
        }
      }).pipe(Layer.tap(() => Effect.sync(() => (state.connected = true))))
    ))
  )
}

const notConnectedYet = () =>
  new Redis.RedisError({ cause: new Error("Redis at REDIS_URL has not answered since this instance started") })

/**
 * Redis at REDIS_URL, there from the start whether Redis answers or not. When
 * it does not answer at start, the instance starts without it (as during an
 * outage: memory, and its part of every limit), its commands fail at once,
 * and it keeps trying to connect in the background (backoff up to 2 s) until
 * Redis answers; from then on the client's own reconnection takes over.
 * `connectedAtStart` says which it was.
 */
const connectRedis = Effect.fnUntraced(function*(url: Redacted.Redacted) {
  const scope = yield* Effect.scope
  let current: Redis.Redis["Service"] | undefined
  const connected = yield* Deferred.make<Redis.Redis["Service"]>()
  const connect = Effect.gen(function*() {
    const attempt = yield* Scope.fork(scope)
    const built = yield* Layer.buildWithScope(nodeRedisLayer(url), attempt).pipe(
      Effect.onError((cause) => Scope.close(attempt, Exit.failCause(cause)))
    )
    current = Context.get(built, Redis.Redis)
    yield* Deferred.succeed(connected, current)
  })
  const atStart = yield* Effect.exit(connect)
  if (Exit.isFailure(atStart)) {
    const failure = Cause.squash(atStart.cause)
    yield* Effect.logWarning(
      "Redis at REDIS_URL could not be reached: starting without it (this instance keeps to its own memory and its part of the limits) and connecting when it answers"
    ).pipe(Effect.annotateLogs({ detail: String(failure instanceof Redis.RedisError ? failure.cause : failure) }))
    yield* connect.pipe(
      Effect.retry(Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("2 seconds")])),
      Effect.andThen(Effect.logInfo("Redis at REDIS_URL answers: connected")),
      Effect.forkIn(scope)
    )
  }
  const now = Effect.suspend(() => current === undefined ? Effect.fail(notConnectedYet()) : Effect.succeed(current))
  const redis: Redis.Redis["Service"] = {
    send: (command, ...args) => Effect.flatMap(now, (redis) => redis.send(command, ...args)),
    eval: (script) => (...params) => Effect.flatMap(now, (redis) => redis.eval(script)(...params)),
    reserve: Effect.flatMap(now, (redis) => redis.reserve),
    // A subscription waits for the connection (nothing of this service subscribes today).
    subscribe: (channel) => Effect.flatMap(Deferred.await(connected), (redis) => redis.subscribe(channel))
  }
  return { redis, connectedAtStart: Exit.isSuccess(atStart) }
})

const makeRedisStore = Effect.fnUntraced(function*(config: SharedStoreConfig["Service"], url: Redacted.Redacted) {
  const { redis, connectedAtStart } = yield* connectRedis(url)
  let healthy = connectedAtStart
  const transition = (ok: boolean) =>
    Effect.suspend(() => {
      if (ok === healthy) return Effect.void
      healthy = ok
      return ok
        ? Effect.logInfo("Redis answers again: shared state is back")
        : Effect.logWarning("Redis is unreachable: each instance keeps to its own memory and its part of the limits")
    })
  const shared = <A, E>(command: Effect.Effect<A, E>): Effect.Effect<A, E | Redis.RedisError> =>
    command.pipe(
      Effect.timeoutOrElse({ duration: commandTimeout, orElse: () => Effect.fail(timedOut()) }),
      Effect.tapError((error) => error instanceof Redis.RedisError ? transition(false) : Effect.void),
      Effect.tap(() => transition(true))
    )
  return SharedStore.of({
    redis: Option.some(redis),
    keyPrefix: config.keyPrefix,
    fleetSize: config.fleetSize,
    shared,
    check: shared(redis.send("PING")).pipe(
      Effect.as<SharedStoreState>("redis"),
      Effect.catch(() => Effect.succeed<SharedStoreState>("redis-unreachable"))
    )
  })
})

/** The SharedStore REDIS_URL selects. */
export const SharedStoreLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* SharedStoreConfig
  return Option.match(config.redisUrl, {
    onNone: () => Layer.succeed(SharedStore, memoryStore),
    onSome: (url) => Layer.effect(SharedStore, makeRedisStore(config, url))
  })
}))

/**
 * A RateLimiterStore over Redis that falls back to this process's memory
 * while Redis is unreachable: every limit is then divided by FLEET_SIZE,
 * so that the instances, each counting alone, stay within it together.
 */
const fallingBackStore = (shared: SharedStore["Service"], redisStore: RateLimiter.RateLimiterStore["Service"]) =>
  Effect.map(Layer.build(RateLimiter.layerStoreMemory), (context) => {
    const memory = Context.get(context, RateLimiter.RateLimiterStore)
    const part = (limit: number) => Math.max(1, Math.floor(limit / shared.fleetSize))
    const slower = (rate: Duration.Duration) => Duration.times(rate, shared.fleetSize)
    /** Redis's answer, or memory's when Redis fails (the store reports that as a RateLimitStoreError). */
    const either = <A>(
      onRedis: Effect.Effect<A, RateLimiter.RateLimiterError>,
      inMemory: Effect.Effect<A, RateLimiter.RateLimiterError>
    ) =>
      shared.shared(onRedis.pipe(
        Effect.catchIf(
          (error) => error.reason._tag === "RateLimitStoreError",
          (error) => Effect.fail(new Redis.RedisError({ cause: error }))
        )
      )).pipe(Effect.catchTag("RedisError", () => inMemory))
    return RateLimiter.RateLimiterStore.of({
      fixedWindow: (options) =>
        either(
          redisStore.fixedWindow(options),
          memory.fixedWindow({ ...options, limit: options.limit === undefined ? undefined : part(options.limit) })
        ),
      tokenBucket: (options) =>
        either(
          redisStore.tokenBucket(options),
          memory.tokenBucket({ ...options, limit: part(options.limit), refillRate: slower(options.refillRate) })
        ),
      adaptiveConsume: (options) => either(redisStore.adaptiveConsume(options), memory.adaptiveConsume(options)),
      adaptiveFeedback: (options) => either(redisStore.adaptiveFeedback(options), memory.adaptiveFeedback(options))
    })
  })

/**
 * The one RateLimiter of the service (the provider's quota and its shares,
 * and any other limit): its counters in Redis with REDIS_URL, shared by the
 * fleet; in memory otherwise.
 */
export const SharedRateLimiterLive = RateLimiter.layer.pipe(
  Layer.provide(Layer.unwrap(Effect.gen(function*() {
    const shared = yield* SharedStore
    return Option.match(shared.redis, {
      onNone: () => RateLimiter.layerStoreMemory,
      onSome: (redis) =>
        Layer.effect(
          RateLimiter.RateLimiterStore,
          Effect.gen(function*() {
            const redisStore = yield* RateLimiter.makeStoreRedis({ prefix: `${shared.keyPrefix}ratelimit:` })
            return yield* fallingBackStore(shared, redisStore)
          }).pipe(Effect.provideService(Redis.Redis, redis))
        )
    })
  })))
)

/**
 * effect's Persistence over the shared Redis, for answers worth sharing
 * across the fleet (the sports provider's). `None` without REDIS_URL: an
 * instance alone keeps its answers in its own bounded cache.
 */
export class SharedPersistence
  extends Context.Service<SharedPersistence, Option.Option<Persistence.Persistence["Service"]>>()(
    "partner-api/platform/SharedPersistence"
  )
{
  static readonly layer = Layer.effect(
    SharedPersistence,
    Effect.gen(function*() {
      const shared = yield* SharedStore
      if (Option.isNone(shared.redis)) return Option.none()
      const context = yield* Layer.build(Persistence.layerRedis).pipe(
        Effect.provideService(Redis.Redis, shared.redis.value)
      )
      return Option.some(Context.get(context, Persistence.Persistence))
    })
  )
}
