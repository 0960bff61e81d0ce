import { Cache, Data, type Duration, Effect, type Exit } from "effect"
import type { Path } from "./BetsApi.ts"

/**
 * An id as the provider knows it: BetsAPI's ids are numbers, so a numeric
 * id is compared and sent without leading zeros ("094" is league 94); any
 * other id is kept as given, trimmed.
 */
export const canonicalId = (id: string): string => {
  const trimmed = id.trim()
  return /^\d+$/.test(trimmed) ? trimmed.replace(/^0+(?=\d)/, "") : trimmed
}

/**
 * One upstream call, as a cache key: its path and its parameters as decoded,
 * normalized values, compared structurally, so that every spelling of one
 * call (`sport_id=1`, `01`, `001`) is one entry and one upstream request.
 */
export class ProviderCall extends Data.Class<{
  readonly path: Path
  readonly sportId: number | undefined
  readonly page: number | undefined
  readonly leagueId: string | undefined
  readonly day: string | undefined
  readonly eventId: string | undefined
}> {}

export const listCall = (path: Path, query: {
  readonly sportId: number
  readonly page: number
  readonly leagueId?: string | undefined
  readonly day?: string | undefined
}) =>
  new ProviderCall({
    path,
    sportId: query.sportId,
    page: query.page,
    leagueId: query.leagueId === undefined ? undefined : canonicalId(query.leagueId),
    day: query.day,
    eventId: undefined
  })

export const eventCall = (path: Path, eventId: string) =>
  new ProviderCall({ path, sportId: undefined, page: undefined, leagueId: undefined, day: undefined, eventId: canonicalId(eventId) })

/** The query parameters a call sends, in the provider's names. */
export const paramsOf = (call: ProviderCall): Record<string, string> => {
  const params: Record<string, string> = {}
  if (call.sportId !== undefined) params.sport_id = String(call.sportId)
  if (call.page !== undefined) params.page = String(call.page)
  if (call.leagueId !== undefined) params.league_id = call.leagueId
  if (call.day !== undefined) params.day = call.day
  if (call.eventId !== undefined) params.event_id = call.eventId
  return params
}

/** A cached value, with what it weighs and when it was stored. */
export interface Weighed {
  readonly bytes: number
  readonly storedAt: number
}

interface Member {
  readonly entries: Effect.Effect<ReadonlyArray<{ readonly value: Weighed; readonly evict: Effect.Effect<void> }>>
}

/**
 * effect's Caches (lookup, time-to-live, one lookup shared by concurrent
 * callers) under one bound in bytes: past `maxBytes`, the oldest answers of
 * all of them go first. A miss adds its weight to a running estimate; the
 * entries are only summed (expired ones dropped) when the estimate passes
 * the bound, so a hit costs nothing more than the Cache's own look-up.
 */
export const makeByteBudget = (maxBytes: number) => {
  const members: Array<Member> = []
  let estimate = 0

  const enforce = Effect.gen(function*() {
    const entries = (yield* Effect.forEach(members, (member) => member.entries)).flat()
    entries.sort((a, b) => a.value.storedAt - b.value.storedAt)
    let total = entries.reduce((sum, entry) => sum + entry.value.bytes, 0)
    for (const entry of entries) {
      if (total <= maxBytes) break
      yield* entry.evict
      total -= entry.value.bytes
    }
    estimate = total
  })

  /** A Cache counted in this budget. */
  const cache = Effect.fnUntraced(function*<Key, A extends Weighed, E>(options: {
    readonly lookup: (key: Key) => Effect.Effect<A, E>
    readonly timeToLive: (exit: Exit.Exit<A, E>, key: Key) => Duration.Duration
    readonly capacity: number
  }) {
    const cache = yield* Cache.makeWith(
      (key: Key) => Effect.tap(options.lookup(key), (value) => Effect.sync(() => void (estimate += value.bytes))),
      { capacity: options.capacity, timeToLive: options.timeToLive }
    )
    members.push({
      entries: Effect.map(Cache.entries(cache), (entries) =>
        Array.from(entries, ([key, value]) => ({ value, evict: Cache.invalidate(cache, key) })))
    })
    return (key: Key): Effect.Effect<A, E> =>
      Effect.tap(Cache.get(cache, key), () => estimate > maxBytes ? enforce : Effect.void)
  })

  return {
    cache,
    /** The bytes held now, expired entries left out. */
    held: Effect.andThen(enforce, Effect.sync(() => estimate))
  }
}
