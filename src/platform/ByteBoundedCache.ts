import { Cache, Duration, Effect, Exit } from "effect"
import { serialize } from "node:v8"

/**
 * Effect's Cache, bounded by the size of what it keeps rather than by a
 * count of entries: one answer can be 700 KB and another 200 bytes. Each
 * entry carries its encoded size; when the sizes kept pass the budget, the
 * least recently used entries go until a tenth of it is free again, so the
 * recount runs once per tenth of the budget that comes in, not on every
 * miss. An answer larger than the whole budget is answered, not kept.
 *
 * Keys are compared structurally (effect's Equal: plain objects and arrays
 * by content), so a key must be built in one canonical form.
 */
export interface ByteBoundedCache<Key, A, E> {
  get(key: Key): Effect.Effect<A, E>
  /** Forgets every entry (a change made them stale). */
  readonly invalidateAll: Effect.Effect<void>
  /** The entries kept and their encoded bytes, counted now. */
  readonly usage: Effect.Effect<{ readonly entries: number; readonly bytes: number }>
}

/** An answer's size: the bytes of its V8 serialization (the structured clone), strings and dates included. */
export const encodedBytes = (value: unknown): number => serialize(value).byteLength

interface Sized<A> {
  readonly value: A
  readonly bytes: number
}

/** What a recount leaves kept, of the budget. */
const lowWater = 0.9

/**
 * A cache of `lookup`'s successes for `timeToLive`, within `maxBytes`; failures are not kept. Concurrent
 * gets of one key share one lookup. A time-to-live of zero turns caching off: every get looks up.
 */
export const make = Effect.fn("ByteBoundedCache.make")(function*<Key, A, E>(options: {
  readonly lookup: (key: Key) => Effect.Effect<A, E>
  readonly timeToLive: Duration.Duration
  readonly maxBytes: number
  readonly sizeOf?: ((value: A) => number) | undefined
}) {
  const { lookup, maxBytes, timeToLive } = options
  if (Duration.isZero(timeToLive) || maxBytes <= 0) {
    const off: ByteBoundedCache<Key, A, E> = {
      get: lookup,
      invalidateAll: Effect.void,
      usage: Effect.succeed({ entries: 0, bytes: 0 })
    }
    return off
  }
  const sizeOf = options.sizeOf ?? encodedBytes
  // An upper estimate of the bytes kept: every answer that fits is added as it arrives; entries the
  // cache drops on its own (expired and replaced, forgotten) are only subtracted at the next recount.
  let counted = 0
  const cache = yield* Cache.makeWith((key: Key) =>
    Effect.map(lookup(key), (value): Sized<A> => {
      const bytes = sizeOf(value)
      if (bytes <= maxBytes) counted += bytes
      return { value, bytes }
    }), {
    // The bound is in bytes, below; the cache's own count stays unbounded.
    capacity: Number.POSITIVE_INFINITY,
    timeToLive: (exit) => Exit.isSuccess(exit) && exit.value.bytes <= maxBytes ? timeToLive : Duration.zero
  })

  const kept = Effect.map(Cache.entries(cache), (entries) => [...entries])

  /** Counts what is kept, then drops the least recently used entries until a tenth of the budget is free. */
  const recount = Effect.gen(function*() {
    const before = counted
    const entries = yield* kept
    let total = entries.reduce((sum, [, sized]) => sum + sized.bytes, 0)
    for (const [key, sized] of entries) {
      if (total <= maxBytes * lowWater) break
      yield* Cache.invalidate(cache, key)
      total -= sized.bytes
    }
    // Answers that arrived meanwhile stay counted.
    counted = total + (counted - before)
  })

  const bounded: ByteBoundedCache<Key, A, E> = {
    get: (key: Key) =>
      Effect.flatMap(Cache.get(cache, key), (sized) =>
        counted > maxBytes ? Effect.as(recount, sized.value) : Effect.succeed(sized.value)),
    invalidateAll: Effect.suspend(() => {
      counted = 0
      return Cache.invalidateAll(cache)
    }),
    usage: Effect.map(kept, (entries) => ({
      entries: entries.length,
      bytes: entries.reduce((sum, [, sized]) => sum + sized.bytes, 0)
    }))
  }
  return bounded
})
