import { Duration, Option, Schema } from "effect"
import type { Page } from "../../domain/Paging.ts"
import type { ProviderCall } from "../../sports/ProviderCall.ts"
import type { Content, ProviderRequest, Reader, SportsProtocol } from "../../sports/ProviderProtocol.ts"
import * as ApiFootball from "./ApiFootball.ts"

/**
 * How the port's calls are API-Football requests (../shared/spec/api-football.md §5), and how its answers read.
 * Quota is spent once per request: one `/fixtures?id=` answers the live event, the line-up, the statistics and the
 * result; a day's `/fixtures?date=` answers every page and league of that day's list (paged and filtered here, 50 a
 * page, as the contract pages). Failures the transport did not turn into errors (a season or date outside the plan, a
 * parameter refused) are read here as refusals, kept briefly so a repeat does not spend the quota again.
 */

const perPage = 50

/**
 * Statuses of a day's list, joined by `-` as the provider takes them: the upcoming list has the fixtures not played,
 * postponed and cancelled ones too; the ended one those over, with a result or without (cancelled, abandoned). So a
 * fixture that will not be played as listed is seen with its status and reason (on the lists and the change stream),
 * rather than dropping out of them.
 */
const upcomingStatuses = "NS-TBD-PST-CANC"
const endedStatuses = "FT-AET-PEN-AWD-WO-CANC-ABD"

/** A fixture id is a positive integer: anything else names nothing the provider knows, and is not asked. */
const fixtureId = (eventId: string | undefined) => eventId !== undefined && /^[1-9]\d{0,11}$/.test(eventId)

/** `YYYYMMDD` (the port's day) as the provider's `YYYY-MM-DD`. */
const dateOf = (day: string) => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`

const today = (now: number) => new Date(now).toISOString().slice(0, 10)

/** The requests of each call; `now` picks the day of a list asked without one (UTC). */
export const requestOf =
  (bookmakerId: number, now: () => number) => (call: ProviderCall): ProviderRequest | undefined => {
    const day = call.day === undefined ? today(now()) : dateOf(call.day)
    switch (call.endpoint) {
      case "leagues":
        return { path: ApiFootball.paths.leagues, params: { current: "true" } }
      case "upcoming":
        return { path: ApiFootball.paths.fixtures, params: { date: day, status: upcomingStatuses } }
      case "live":
        return { path: ApiFootball.paths.fixtures, params: { live: "all" } }
      case "ended":
        return { path: ApiFootball.paths.fixtures, params: { date: day, status: endedStatuses } }
      case "event":
      case "lineup":
      case "statsTrend":
      case "result":
        return fixtureId(call.eventId) ? { path: ApiFootball.paths.fixtures, params: { id: call.eventId! } } : undefined
      case "odds":
        return fixtureId(call.eventId)
          ? { path: ApiFootball.paths.odds, params: { fixture: call.eventId!, bookmaker: String(bookmakerId) } }
          : undefined
      case "liveOdds":
        return fixtureId(call.eventId)
          ? { path: ApiFootball.paths.liveOdds, params: { fixture: call.eventId! } }
          : undefined
    }
  }

const seconds = Duration.seconds
const minutes = Duration.minutes

const liveStatuses = new Set(["1H", "HT", "2H", "ET", "BT", "P", "SUSP", "INT", "LIVE"])
const finalStatuses = new Set(["FT", "AET", "PEN", "AWD", "WO"])

const firstStatus = (raw: unknown): string | undefined => {
  const response = (raw as { response?: ReadonlyArray<{ fixture?: { status?: { short?: unknown } } }> })?.response
  const short = Array.isArray(response) ? response[0]?.fixture?.status?.short : undefined
  return typeof short === "string" ? short : undefined
}

/**
 * How long an answer stays fresh, from how often the provider refreshes it (§5): live data every 15 seconds, live odds
 * every 5 to 60, pre-match odds every 3 hours, leagues a few times a day. A refusal (plan, parameter) is kept a while:
 * asking again would only spend the quota on the same refusal.
 */
export const timeToLive = (request: ProviderRequest, raw: unknown): Duration.Duration => {
  const envelope = ApiFootball.readEnvelope(raw)
  if (envelope._tag === "Failed") {
    return envelope.failures.some((failure) => failure.kind === "plan") ? Duration.hours(1) : seconds(60)
  }
  if (envelope._tag === "Invalid") return seconds(30)
  switch (request.path) {
    case ApiFootball.paths.leagues:
      return Duration.hours(1)
    case ApiFootball.paths.odds:
      return minutes(30)
    case ApiFootball.paths.liveOdds:
      return seconds(10)
    case ApiFootball.paths.fixtures: {
      if (request.params.live !== undefined) return seconds(15)
      if (request.params.id !== undefined) {
        const status = firstStatus(raw)
        if (status === undefined) return seconds(60)
        return liveStatuses.has(status) ? seconds(15) : finalStatuses.has(status) ? Duration.hours(6) : minutes(10)
      }
      // A day's list: today's moves as games start and end; another day's less.
      return minutes(request.params.status === endedStatuses ? 10 : 5)
    }
    default:
      return seconds(30)
  }
}

/** An answer's `response`, decoded as `schema`; a refusal the transport let through, or a wrong shape, as such. */
const responseOf = <A>(schema: Schema.Codec<A, unknown>, raw: unknown): Content<A> => {
  const envelope = ApiFootball.readEnvelope(raw)
  if (envelope._tag === "Invalid") return { _tag: "Invalid" }
  if (envelope._tag === "Failed") {
    const failure = envelope.failures[0]
    return failure.kind === "plan"
      ? {
        _tag: "Rejected",
        code: "plan",
        message: `The sports provider's plan does not cover this: ${failure.message}`
      }
      : {
        _tag: "Rejected",
        code: failure.parameter ?? failure.kind,
        message: `The sports provider refused the parameter ${
          failure.parameter ?? "(unnamed)"
        } the gateway sent: ${failure.message}`
      }
  }
  const decoded = Schema.decodeUnknownOption(schema)(envelope.response)
  return Option.isSome(decoded) ? { _tag: "Found", answer: decoded.value } : { _tag: "Invalid" }
}

const reader = <A, D>(schema: Schema.Codec<A, unknown>, map: (answer: A, call: ProviderCall) => D): Reader<D> =>
(
  raw,
  call
) => {
  const content = responseOf(schema, raw)
  return content._tag === "Found" ? { _tag: "Found", answer: map(content.answer, call) } : content
}

/** One page of a list the provider answers whole. */
const pageOf = <A>(items: ReadonlyArray<A>, page: number): Page<A> => ({
  results: items.slice((page - 1) * perPage, page * perPage),
  page,
  perPage,
  total: items.length
})

/** A reader of `/fixtures?id=`: its one fixture, read by `map`; none is an event the provider does not know. */
const fixtureReader = <D>(map: (fixture: ApiFootball.Fixture) => D): Reader<D> => (raw) => {
  const content = responseOf(ApiFootball.FixturesResponse, raw)
  if (content._tag !== "Found") return content
  const fixture = content.answer[0]
  return fixture === undefined ? { _tag: "NotFound" } : { _tag: "Found", answer: map(fixture) }
}

/** API-Football's protocol as the port takes it, for the pre-match odds of `bookmakerId`. */
export const protocol = (options: { readonly bookmakerId: number; readonly now: () => number }): SportsProtocol => ({
  request: requestOf(options.bookmakerId, options.now),
  timeToLive,
  sportIds: [ApiFootball.soccer],
  upcomingByDay: true,
  statsSample: (request, raw, now) => {
    if (request.path !== ApiFootball.paths.fixtures || request.params.id === undefined) return undefined
    const content = responseOf(ApiFootball.FixturesResponse, raw)
    const fixture = content._tag === "Found" ? content.answer[0] : undefined
    const minute = fixture?.fixture.status.elapsed
    if (fixture === undefined || typeof minute !== "number" || !liveStatuses.has(fixture.fixture.status.short)) {
      return undefined
    }
    const stats = ApiFootball.toStatistics(fixture)
    return stats === undefined
      ? undefined
      : { eventId: request.params.id, sample: { minute, stats, sampledAt: new Date(now) } }
  },
  leagues: reader(ApiFootball.LeaguesResponse, (answer, call) => pageOf(ApiFootball.toLeagues(answer), call.page ?? 1)),
  events: reader(ApiFootball.FixturesResponse, (answer, call) => {
    const events = ApiFootball.toEvents(answer)
    const ofLeague = call.leagueId === undefined ? events : events.filter((event) => event.league.id === call.leagueId)
    return pageOf(ofLeague, call.page ?? 1)
  }),
  event: fixtureReader(ApiFootball.toEvent),
  odds: reader(ApiFootball.OddsResponse, (answer) => ApiFootball.toOdds(answer, options.bookmakerId)),
  liveOdds: reader(ApiFootball.LiveOddsResponse, ApiFootball.toLiveOdds),
  lineup: fixtureReader(ApiFootball.toLineup),
  statsTrend: fixtureReader(ApiFootball.toStatistics),
  result: fixtureReader(ApiFootball.toResult)
})
