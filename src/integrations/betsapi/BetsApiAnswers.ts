import { Duration, Option, Predicate, Schema } from "effect"
import type { Endpoint, ProviderCall } from "../../sports/ProviderCall.ts"
import type { Content, SportsProtocol } from "../../sports/ProviderProtocol.ts"
import * as BetsApi from "./BetsApi.ts"

/**
 * How a BetsAPI-style answer is read: the request of each call, its envelope
 * (found, not found, nothing, refused, of the wrong shape), how long it stays
 * fresh, and its mapping (BetsApi.ts). Together they are the protocol the
 * SportsProvider port takes (`protocol`), which caches what it reads.
 */

const seconds = Duration.seconds
const minutes = Duration.minutes

const timeStatusOf = (raw: unknown): number | undefined => {
  const first = (raw as { results?: ReadonlyArray<{ time_status?: unknown }> })?.results?.[0]
  return first === undefined ? undefined : Number(first.time_status)
}

const hasInPlayOdds = (raw: unknown) =>
  JSON.stringify((raw as { results?: { odds?: unknown } })?.results?.odds ?? {}).includes("\"ss\":\"")

/**
 * How long an answer stays fresh: seconds for what moves during a game,
 * minutes for lists and line-ups, a day for a final result. A "not found"
 * is remembered briefly, so scans of unknown ids do not drain the quota.
 */
export const timeToLive = (path: string, raw: unknown): Duration.Duration => {
  if ((raw as { success?: unknown })?.success === 0 || (raw as { success?: unknown })?.success === "0") {
    return seconds(30)
  }
  switch (path) {
    case BetsApi.paths.leagues:
      return minutes(30)
    case BetsApi.paths.upcoming:
      return minutes(2)
    case BetsApi.paths.inplay:
      return seconds(10)
    case BetsApi.paths.ended:
      return minutes(5)
    case BetsApi.paths.view: {
      const status = timeStatusOf(raw)
      return status === 1 ? seconds(5) : status === 3 ? Duration.hours(1) : seconds(60)
    }
    case BetsApi.paths.odds:
      return hasInPlayOdds(raw) ? seconds(5) : seconds(60)
    case BetsApi.paths.lineup:
      return minutes(10)
    case BetsApi.paths.statsTrend:
      return seconds(15)
    case BetsApi.paths.result:
      return timeStatusOf(raw) === 3 ? Duration.hours(24) : seconds(30)
    default:
      return seconds(30)
  }
}

// BetsAPI answers an event detail it does not know (or has nothing of yet) with success and nothing in it: "Nothing".
const notFoundCodes = new Set(["NOT_FOUND"])

const hasNothing = (raw: unknown) => {
  const results = Predicate.hasProperty(raw, "results") ? raw.results : undefined
  return results === undefined || results === null || (typeof results === "object" && Object.keys(results).length === 0)
}

/** Decodes an answer: its envelope, then (success with something in it) the path's own shape. */
export const contentOf = <A>(schema: Schema.Codec<A, unknown>, nothingIsUnknown: boolean, raw: unknown): Content<A> => {
  const envelope = Schema.decodeUnknownOption(BetsApi.Answer)(raw)
  if (Option.isNone(envelope)) return { _tag: "Invalid" }
  if (envelope.value.success !== 1) {
    return notFoundCodes.has(envelope.value.error ?? "")
      ? { _tag: "NotFound" }
      : { _tag: "Rejected", code: envelope.value.error ?? undefined }
  }
  if (nothingIsUnknown && hasNothing(raw)) return { _tag: "Nothing" }
  const answer = Schema.decodeUnknownOption(schema)(raw)
  return Option.isSome(answer) ? { _tag: "Found", answer: answer.value } : { _tag: "Invalid" }
}

/** Each endpoint of the port, as BetsAPI's path. */
const pathOf: Readonly<Record<Endpoint, BetsApi.Path>> = {
  leagues: BetsApi.paths.leagues,
  upcoming: BetsApi.paths.upcoming,
  live: BetsApi.paths.inplay,
  ended: BetsApi.paths.ended,
  event: BetsApi.paths.view,
  odds: BetsApi.paths.odds,
  // One answer holds both: the live odds are the same request as the odds, so one upstream call serves the two.
  liveOdds: BetsApi.paths.odds,
  lineup: BetsApi.paths.lineup,
  statsTrend: BetsApi.paths.statsTrend,
  result: BetsApi.paths.result
}

/** The query parameters a call sends, in BetsAPI's names. */
const paramsOf = (call: ProviderCall): Record<string, string> => {
  const params: Record<string, string> = {}
  if (call.sportId !== undefined) params.sport_id = String(call.sportId)
  if (call.page !== undefined) params.page = String(call.page)
  if (call.leagueId !== undefined) params.league_id = call.leagueId
  if (call.day !== undefined) params.day = call.day
  if (call.eventId !== undefined) params.event_id = call.eventId
  return params
}

/** What was found, mapped; anything else (not found, nothing, refused, of the wrong shape) stays what it is. */
const mapped = <A, D>(content: Content<A>, map: (answer: A) => D): Content<D> =>
  content._tag === "Found" ? { _tag: "Found", answer: map(content.answer) } : content

/** One kind of answer: its envelope and shape read (contentOf), then what was found mapped into the domain. */
const reader =
  <A, D>(schema: Schema.Codec<A, unknown>, nothingIsUnknown: boolean, map: (answer: A, call: ProviderCall) => D) =>
  (raw: unknown, call: ProviderCall): Content<D> =>
    mapped(contentOf(schema, nothingIsUnknown, raw), (answer) => map(answer, call))

/** BetsAPI's protocol, as the SportsProvider port takes it (BetsAPI over HTTP and the sandbox speak it). */
export const protocol: SportsProtocol = {
  request: (call) => ({ path: pathOf[call.endpoint], params: paramsOf(call) }),
  timeToLive: (request, raw) => timeToLive(request.path, raw),
  leagues: reader(BetsApi.LeaguesAnswer, false, (answer, call) => BetsApi.toLeagues(answer, call.sportId ?? 0)),
  events: reader(BetsApi.EventsAnswer, false, (answer, call) => BetsApi.toEvents(answer, call.page ?? 1)),
  event: reader(BetsApi.ViewAnswer, false, (answer) => {
    const first = answer.results[0]
    return first === undefined ? undefined : BetsApi.toEvent(first)
  }),
  // One answer serves the odds and the live odds (the same request), each read once.
  odds: reader(BetsApi.OddsAnswer, true, (answer) => BetsApi.toOdds(answer, false)),
  liveOdds: reader(BetsApi.OddsAnswer, true, (answer) => BetsApi.toOdds(answer, true)),
  lineup: reader(BetsApi.LineupAnswer, true, BetsApi.toLineup),
  statsTrend: reader(BetsApi.StatsTrendAnswer, true, BetsApi.toStatsTrend),
  result: reader(BetsApi.ResultAnswer, false, BetsApi.toResult)
}
