import { Data } from "effect"
import { canonicalId } from "../domain/Sports.ts"

/** The provider's endpoints, as the port names them; a provider's protocol says which request each one is. */
export type Endpoint =
  | "leagues"
  | "upcoming"
  | "live"
  | "ended"
  | "event"
  | "odds"
  | "lineup"
  | "statsTrend"
  | "result"

/**
 * One upstream call, as a cache key: its endpoint and its parameters as decoded,
 * normalized values, compared structurally, so that every spelling of one
 * call (`sport_id=1`, `01`, `001`) is one entry and one upstream request.
 */
export class ProviderCall extends Data.Class<{
  readonly endpoint: Endpoint
  readonly sportId: number | undefined
  readonly page: number | undefined
  readonly leagueId: string | undefined
  readonly day: string | undefined
  readonly eventId: string | undefined
}> {}

export const listCall = (endpoint: Endpoint, query: {
  readonly sportId: number
  readonly page: number
  readonly leagueId?: string | undefined
  readonly day?: string | undefined
}) =>
  new ProviderCall({
    endpoint,
    sportId: query.sportId,
    page: query.page,
    leagueId: query.leagueId === undefined ? undefined : canonicalId(query.leagueId),
    day: query.day,
    eventId: undefined
  })

export const eventCall = (endpoint: Endpoint, eventId: string) =>
  new ProviderCall({
    endpoint,
    sportId: undefined,
    page: undefined,
    leagueId: undefined,
    day: undefined,
    eventId: canonicalId(eventId)
  })
