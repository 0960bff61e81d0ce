/**
 * A bounded map of values each kept until a moment of its own (epoch millis; `Infinity` for good), the least recently
 * read first out past `capacity`: a plain Map read with no effect, no clock service and no structural hashing of its
 * keys, for lookups on a hot path (the partner API's tokens, the wallet's user codes).
 */
export interface RecentMap<K, A> {
  /** The value, if it is kept and its moment has not come (`now` in epoch millis). */
  get(key: K, now: number): A | undefined
  /** Whether the key is kept and still valid, without making it the most recently read. */
  has(key: K, now: number): boolean
  set(key: K, value: A, until: number): void
  clear(): void
}

export const makeRecentMap = <K, A>(capacity: number): RecentMap<K, A> => {
  const entries = new Map<K, { readonly value: A; readonly until: number }>()
  const valid = (key: K, now: number) => {
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
