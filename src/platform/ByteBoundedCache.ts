import { Cache, Duration, Effect, Exit } from "effect"
import { serialize } from "node:v8"

/**
 * Effect's Caches under one budget in bytes rather than a count of entries:
 * one answer can be 700 KB and another 200 bytes. A budget holds any number
 * of caches (the provider's kinds of answer, the catalog's kinds of read);
 * each entry carries its size, and when the sizes kept pass the budget, the
 * least recently used entries of all of them go until a tenth of it is free
 * again, so the recount runs once per tenth of the budget that comes in, not
 * on every miss. An answer larger than the whole budget is answered, not
 * kept; failures are never kept.
 *
 * Keys are compared structurally (effect's Equal: plain objects and arrays
 * by content, Data classes by their fields), so a key must be built in one
 * canonical form. An object key is hashed field by field on every read: the
 * caches read per request key by one canonical string instead (the
 * provider's request, the catalog's query as JSON).
 */
export interface ByteBoundedCache<Key, A, E> {
  get(key: Key): Effect.Effect<A, E>
  /** Forgets every entry of this cache (a change made them stale). */
  readonly invalidateAll: Effect.Effect<void>
  /** The entries kept and their bytes, counted now (expired ones left out). */
  readonly usage: Effect.Effect<Usage>
}

export interface Usage {
  readonly entries: number
  readonly bytes: number
}

/** The one size measure: the bytes of a value's V8 serialization (the structured clone), strings and dates included. */
export const encodedBytes = (value: unknown): number => serialize(value).byteLength

export interface CacheOptions<Key, A, E> {
  readonly lookup: (key: Key) => Effect.Effect<A, E>
  /** How long a success is kept: one lifetime, or one per answer. */
  readonly timeToLive: Duration.Duration | ((value: A, key: Key) => Duration.Duration)
  /** Entries at most, whatever their bytes; unbounded unless told. */
  readonly capacity?: number | undefined
  /** What a value weighs; `encodedBytes` unless the value knows better (a payload's own length, say). */
  readonly sizeOf?: ((value: A) => number) | undefined
}

/** Caches sharing one bound in bytes. */
export interface ByteBudget {
  cache<Key, A, E>(options: CacheOptions<Key, A, E>): Effect.Effect<ByteBoundedCache<Key, A, E>>
  /** Every cache's entries and bytes, counted now. */
  readonly usage: Effect.Effect<Usage>
  /** Forgets every entry of every cache. */
  readonly invalidateAll: Effect.Effect<void>
}

interface Sized<A> {
  readonly value: A
  readonly bytes: number
  /** When it was last read, as a tick of the budget's own counter: the eviction order. */
  used: number
}

interface Member {
  readonly kept: Effect.Effect<ReadonlyArray<{ readonly sized: Sized<unknown>; readonly evict: Effect.Effect<void> }>>
  readonly clear: Effect.Effect<void>
}

/** What a recount leaves kept, of the budget. */
const lowWater = 0.9

/** A budget of `maxBytes` for the caches made from it. Zero or less keeps nothing (concurrent gets still share a look-up). */
export const makeBudget = (maxBytes: number): ByteBudget => {
  const members: Array<Member> = []
  // An upper estimate of the bytes kept: every answer that fits is added as it arrives; entries the
  // caches drop on their own (expired and replaced, forgotten) are only subtracted at the next recount.
  let counted = 0
  let tick = 0

  const kept = Effect.map(Effect.forEach(members, (member) => member.kept), (all) => all.flat())

  /** Counts what is kept, then drops the least recently used entries until a tenth of the budget is free. */
  const recount = Effect.gen(function*() {
    const before = counted
    const entries = [...(yield* kept)].sort((a, b) => a.sized.used - b.sized.used)
    let total = entries.reduce((sum, entry) => sum + entry.sized.bytes, 0)
    for (const entry of entries) {
      if (total <= maxBytes * lowWater) break
      yield* entry.evict
      total -= entry.sized.bytes
    }
    // Answers that arrived meanwhile stay counted.
    counted = total + (counted - before)
  })

  const usageOf = (entries: ReadonlyArray<{ readonly sized: Sized<unknown> }>): Usage => ({
    entries: entries.length,
    bytes: entries.reduce((sum, entry) => sum + entry.sized.bytes, 0)
  })

  const cache = Effect.fnUntraced(function*<Key, A, E>(options: CacheOptions<Key, A, E>) {
    const sizeOf = options.sizeOf ?? encodedBytes
    const { timeToLive } = options
    // A time-to-live of zero turns caching off: every get looks up.
    if (Duration.isDuration(timeToLive) && Duration.isZero(timeToLive)) {
      const off: ByteBoundedCache<Key, A, E> = {
        get: options.lookup,
        invalidateAll: Effect.void,
        usage: Effect.succeed({ entries: 0, bytes: 0 })
      }
      return off
    }
    const cache = yield* Cache.makeWith(
      (key: Key) =>
        Effect.map(options.lookup(key), (value): Sized<A> => {
          const bytes = sizeOf(value)
          if (bytes <= maxBytes) counted += bytes
          return { value, bytes, used: ++tick }
        }),
      {
        // The bound is in bytes, above; the cache's own count only when asked for.
        capacity: options.capacity ?? Number.POSITIVE_INFINITY,
        timeToLive: (exit, key) =>
          Exit.isSuccess(exit) && exit.value.bytes <= maxBytes
            ? Duration.isDuration(timeToLive) ? timeToLive : timeToLive(exit.value.value, key)
            : Duration.zero
      }
    )
    const entries = Effect.map(Cache.entries(cache), (entries) => [...entries])
    const member: Member = {
      kept: Effect.map(
        entries,
        (entries) => entries.map(([key, sized]) => ({ sized, evict: Cache.invalidate(cache, key) }))
      ),
      clear: Cache.invalidateAll(cache)
    }
    members.push(member)
    const bounded: ByteBoundedCache<Key, A, E> = {
      get: (key: Key) =>
        Effect.flatMap(Cache.get(cache, key), (sized) => {
          sized.used = ++tick
          return counted > maxBytes ? Effect.as(recount, sized.value) : Effect.succeed(sized.value)
        }),
      invalidateAll: member.clear,
      usage: Effect.map(member.kept, usageOf)
    }
    return bounded
  })

  return {
    cache,
    usage: Effect.map(kept, usageOf),
    invalidateAll: Effect.suspend(() => {
      counted = 0
      return Effect.forEach(members, (member) => member.clear, { discard: true })
    })
  }
}

/**
 * One cache with a budget of its own, of `lookup`'s successes for `timeToLive`, within `maxBytes`.
 * Concurrent gets of one key share one lookup. A time-to-live of zero turns caching off: every get looks up.
 */
export const make = Effect.fn("ByteBoundedCache.make")(function*<Key, A, E>(options: {
  readonly lookup: (key: Key) => Effect.Effect<A, E>
  readonly timeToLive: Duration.Duration
  readonly maxBytes: number
  readonly sizeOf?: ((value: A) => number) | undefined
}) {
  const { lookup, maxBytes, timeToLive } = options
  if (Duration.isZero(timeToLive) || maxBytes <= 0) {
    return yield* makeBudget(0).cache({ lookup, timeToLive: Duration.zero })
  }
  const budget = makeBudget(maxBytes)
  const cache = yield* budget.cache({ lookup, timeToLive, sizeOf: options.sizeOf })
  return { ...cache, invalidateAll: budget.invalidateAll }
})
