import { Clock, Duration, Effect } from "effect"
import * as ByteBoundedCache from "../platform/ByteBoundedCache.ts"
import * as Metrics from "../platform/Metrics.ts"
import type { ProviderRequest, SportsProtocol } from "./ProviderProtocol.ts"
import { makeSharedAnswers, type Origin as SharedOrigin } from "./SharedAnswers.ts"
import { SportsConfig } from "./SportsConfig.ts"
import type { SportsProviderError } from "./SportsProviderError.ts"

/**
 * Where an answer came from for this request: the provider (asked for it, alone or sharing the call, or earlier and
 * kept), another instance's call (through Redis), or, while the provider cannot be asked (its quota), the last answer
 * it gave, past its freshness.
 */
export type Origin = SharedOrigin | "stale"

/** One upstream answer as kept: the payload as the provider sent it (the key removed), read by every kind it serves. */
export interface StoredAnswer {
  readonly raw: unknown
  /** When the provider gave it (epoch millis). */
  readonly storedAt: number
  readonly origin: SharedOrigin
  readonly timeToLive: Duration.Duration
  /** What each kind of read made of it, so a kept answer is read once per kind (and page). */
  readonly reads: Map<string, unknown>
}

export interface Answered {
  readonly stored: StoredAnswer
  readonly origin: Origin
}

/** How long the last answer to each request is kept to be served while the provider cannot be asked. */
const staleFor = Duration.toMillis(Duration.hours(24))

/**
 * The last answers kept for that, the newest first, within a quarter of SPORTS_PROVIDER_CACHE_MAX_SIZE on top of the
 * cache (most share their payload with its entries while those live).
 */
const makeLastAnswers = (maxBytes: number) => {
  const kept = new Map<string, { readonly stored: StoredAnswer; readonly bytes: number; readonly until: number }>()
  let bytes = 0
  const drop = (key: string) => {
    const entry = kept.get(key)
    if (entry === undefined) return
    kept.delete(key)
    bytes -= entry.bytes
  }
  return {
    set: (key: string, stored: StoredAnswer) => {
      drop(key)
      const size = ByteBoundedCache.encodedBytes(stored.raw)
      if (size > maxBytes) return
      kept.set(key, { stored, bytes: size, until: stored.storedAt + staleFor })
      bytes += size
      // A Map iterates in insertion order: the oldest answers go first.
      for (const oldest of kept.keys()) {
        if (bytes <= maxBytes) break
        drop(oldest)
      }
    },
    get: (key: string, now: number) => {
      const entry = kept.get(key)
      if (entry === undefined || entry.until <= now) return undefined
      return entry.stored
    }
  }
}

/** Failures that mean the provider is not to be asked now (a quota), not that it failed: a kept answer serves. */
const notToBeAsked = (error: SportsProviderError) => error.reason === "RateLimited" || error.reason === "QuotaSpent"

/** A request as one string: its cache key, and the fleet's (one upstream call serves every kind of read it answers). */
export const requestKey = (request: ProviderRequest) => `${request.path}?${new URLSearchParams(request.params)}`

const requestOf = (key: string): ProviderRequest => {
  const at = key.indexOf("?")
  return { path: key.slice(0, at), params: Object.fromEntries(new URLSearchParams(key.slice(at + 1))) }
}

/**
 * The provider's answers, one per distinct request: kept for the protocol's freshness (effect's Cache under the
 * provider's bound in bytes), identical concurrent requests sharing one call, shared by the fleet through Redis, the
 * last one of each served while the provider cannot be asked. `onFresh` sees each answer this instance fetched.
 */
export const makeProviderAnswers = Effect.fnUntraced(function*(options: {
  readonly name: string
  readonly call: (request: ProviderRequest) => Effect.Effect<unknown, SportsProviderError>
  readonly protocol: SportsProtocol
  readonly takeToken: Effect.Effect<void, SportsProviderError>
  readonly onFresh?: ((request: ProviderRequest, raw: unknown) => Effect.Effect<void>) | undefined
}) {
  const config = yield* SportsConfig
  const { protocol } = options
  const budget = ByteBoundedCache.makeBudget(Number(config.cacheMaxSize))
  const shared = yield* makeSharedAnswers({
    storeId: `sports-provider-${options.name}`,
    lockFor: 4 * Duration.toMillis(config.timeout) + 1_000
  })
  const lastGood = makeLastAnswers(Math.floor(Number(config.cacheMaxSize) / 4))

  const fetch = Effect.fn("SportsProvider.fetch")(function*(key: string): Effect.fn.Return<
    StoredAnswer,
    SportsProviderError
  > {
    const request = requestOf(key)
    const upstream = Effect.gen(function*() {
      yield* options.takeToken
      const raw = yield* options.call(request).pipe(Metrics.countedProviderCall(request.path))
      const ttl = Duration.min(protocol.timeToLive(request, raw), config.cacheTtlMax)
      if (options.onFresh !== undefined) yield* options.onFresh(request, raw)
      return { raw, storedAt: yield* Clock.currentTimeMillis, ttlMillis: Duration.toMillis(ttl) }
    })
    const { answer, origin } = yield* shared(key, upstream)
    const now = yield* Clock.currentTimeMillis
    const stored: StoredAnswer = {
      raw: answer.raw,
      storedAt: answer.storedAt,
      origin,
      // An answer another instance fetched is kept here only for what is left of its lifetime.
      timeToLive: Duration.millis(Math.max(0, answer.ttlMillis - (now - answer.storedAt))),
      reads: new Map()
    }
    lastGood.set(key, stored)
    return stored
  })

  const cache = yield* budget.cache<string, StoredAnswer, SportsProviderError>({
    lookup: fetch,
    timeToLive: (stored) => stored.timeToLive,
    // Weighed as kept: the payload (ByteBoundedCache.encodedBytes, the default).
    capacity: 5_000
  })

  return (request: ProviderRequest): Effect.Effect<Answered, SportsProviderError> => {
    const key = requestKey(request)
    return cache.get(key).pipe(
      Effect.map((stored): Answered => ({ stored, origin: stored.origin })),
      Effect.catchIf(notToBeAsked, (error) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const stale = lastGood.get(key, now)
          return stale === undefined ? Effect.fail(error) : Effect.succeed<Answered>({ stored: stale, origin: "stale" })
        }))
    )
  }
})

/** What one kind of read makes of a kept answer, once per answer (and per `readKey`). */
export const readOnce = <A>(stored: StoredAnswer, readKey: string, read: (raw: unknown) => A): A => {
  if (stored.reads.has(readKey)) return stored.reads.get(readKey) as A
  const value = read(stored.raw)
  stored.reads.set(readKey, value)
  return value
}
