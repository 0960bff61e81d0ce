/**
 * What this instance remembers about tokens, keyed by the token's SHA-256
 * (never the token): each entry until a moment of its own, the least recently
 * read first out past `capacity`. Read on every authenticated request, so it
 * is a plain Map read with no effect, no clock service and no structural
 * hashing of its keys (effect's Cache costs several times that per read; it
 * still coalesces the look-ups that miss, see Partners.ts).
 *
 * Each entry's moment is the caller's to choose: the cache lifetime today; a
 * token that itself stops being valid at some moment (an expiry, the end of a
 * rotation's overlap) is remembered no later than that.
 */
export interface TokenCache<A> {
  /** The value, if it is kept and its moment has not come (`now` in epoch millis). */
  get(key: string, now: number): A | undefined
  /** Whether the key is kept and still valid, without making it the most recently read. */
  has(key: string, now: number): boolean
  set(key: string, value: A, until: number): void
  clear(): void
}

export const makeTokenCache = <A>(capacity: number): TokenCache<A> => {
  const entries = new Map<string, { readonly value: A; readonly until: number }>()
  const valid = (key: string, now: number) => {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until <= now) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  return {
    get: (key, now) => {
      const entry = valid(key, now)
      if (entry === undefined) return undefined
      // Read last, out last: a Map iterates in insertion order.
      entries.delete(key)
      entries.set(key, entry)
      return entry.value
    },
    has: (key, now) => valid(key, now) !== undefined,
    set: (key, value, until) => {
      entries.delete(key)
      entries.set(key, { value, until })
      if (entries.size > capacity) entries.delete(entries.keys().next().value!)
    },
    clear: () => entries.clear()
  }
}
