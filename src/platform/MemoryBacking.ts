import { Array as Arr, Effect, Layer } from "effect"
import { Persistence } from "effect/persistence"

/**
 * A process-local backing store for effect's Persistence, bounded: at most
 * `capacity` entries per store, the least recently written evicted first,
 * expired entries dropped when met. (effect's own memory backing keeps every
 * key it ever saw until it is read again.) A shared store (Redis, SQL) can
 * take its place without touching the code that uses Persistence.
 */
export const layerBoundedMemory = (capacity: number) =>
  Layer.sync(Persistence.BackingPersistence, () => {
    const stores = new Map<string, Map<string, readonly [object, expiresAt: number | null]>>()
    return Persistence.BackingPersistence.of({
      make: (storeId) =>
        Effect.clockWith((clock) => {
          let entries = stores.get(storeId)
          if (entries === undefined) {
            entries = new Map()
            stores.set(storeId, entries)
          }
          const map = entries
          const read = (key: string): object | undefined => {
            const entry = map.get(key)
            if (entry === undefined) return undefined
            if (entry[1] !== null && entry[1] <= clock.currentTimeMillisUnsafe()) {
              map.delete(key)
              return undefined
            }
            return entry[0]
          }
          const write = (key: string, value: object, ttl: Parameters<typeof Persistence.unsafeTtlToExpires>[1]) => {
            map.delete(key) // re-inserting moves the key to the newest end
            map.set(key, [value, Persistence.unsafeTtlToExpires(clock, ttl)])
            while (map.size > capacity) map.delete(map.keys().next().value!)
          }
          return Effect.succeed<Persistence.BackingPersistenceStore>({
            get: (key) => Effect.sync(() => read(key)),
            getMany: (keys) => Effect.sync(() => Arr.map(keys, read)),
            set: (key, value, ttl) => Effect.sync(() => write(key, value, ttl)),
            setMany: (all) =>
              Effect.sync(() => {
                for (const [key, value, ttl] of all) write(key, value, ttl)
              }),
            remove: (key) => Effect.sync(() => void map.delete(key)),
            clear: Effect.sync(() => map.clear())
          })
        })
    })
  })
