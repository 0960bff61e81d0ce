import { canonicalId } from "../domain/Sports.ts"

/** The provider's endpoints, as the port names them; a provider's protocol says which request each one is. */
export type Endpoint =
  | "leagues"
  | "upcoming"
  | "live"
  | "ended"
  | "event"
  | "odds"
  | "liveOdds"
  | "lineup"
  | "statsTrend"
  | "result"

/**
 * One call of the port: its endpoint and its parameters as decoded, normalized values, so that every spelling of one
 * call (`sport_id=1`, `01`, `001`) is one request upstream (the protocol turns a call into its request, whose text is
 * the cache's key).
 */
export interface ProviderCall {
  readonly endpoint: Endpoint
  readonly sportId: number | undefined
  readonly page: number | undefined
  readonly leagueId: string | undefined
  readonly day: string | undefined
  readonly eventId: string | undefined
}

/** What a read of a call depends on beyond its request's answer (the page of a list the provider answers whole, say). */
export const readKeyOf = (call: ProviderCall) =>
  `${call.endpoint}|${call.sportId}|${call.page}|${call.leagueId}|${call.day}`

export const listCall = (endpoint: Endpoint, query: {
  readonly sportId: number
  readonly page: number
  readonly leagueId?: string | undefined
  readonly day?: string | undefined
}): ProviderCall => ({
  endpoint,
  sportId: query.sportId,
  page: query.page,
  leagueId: query.leagueId === undefined ? undefined : canonicalId(query.leagueId),
  day: query.day,
  eventId: undefined
})

export const eventCall = (endpoint: Endpoint, eventId: string): ProviderCall => ({
  endpoint,
  sportId: undefined,
  page: undefined,
  leagueId: undefined,
  day: undefined,
  eventId: canonicalId(eventId)
})
