import { makeRecentMap, type RecentMap } from "../platform/RecentMap.ts"

/**
 * What this instance remembers about tokens, keyed by the token's SHA-256
 * (never the token), in a RecentMap: read on every authenticated request
 * (effect's Cache costs several times that per read; it still coalesces the
 * look-ups that miss, see Partners.ts).
 *
 * Each entry's moment is the caller's to choose: the cache lifetime today; a
 * token that itself stops being valid at some moment (an expiry, the end of a
 * rotation's overlap) is remembered no later than that.
 */
export type TokenCache<A> = RecentMap<string, A>

export const makeTokenCache = <A>(capacity: number): TokenCache<A> => makeRecentMap<string, A>(capacity)
