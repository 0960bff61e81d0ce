import { Data } from "effect"
import { canonicalId } from "../domain/Sports.ts"
import type { Path } from "./BetsApi.ts"

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
  new ProviderCall({
    path,
    sportId: undefined,
    page: undefined,
    leagueId: undefined,
    day: undefined,
    eventId: canonicalId(eventId)
  })

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
