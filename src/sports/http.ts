import { Clock, Effect } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { servedApi } from "../platform/QueryOnce.ts"
import { envelopeWriter, partnerSummary } from "../api/Envelope.ts"
import { respond, respondWith, respondWritten } from "../api/Respond.ts"
import { NotFound, ProviderUnavailable, ValidationFailed } from "../api/Errors.ts"
import { OddsData } from "../api/SportsWire.ts"
import {
  closingOddsAnswer,
  dayListOf,
  echoOddsFormat,
  endedAnswer,
  includeRaw,
  inOddsFormat,
  leaguesAnswer,
  lineupAnswer,
  listOf,
  liveAnswer,
  liveEventAnswer,
  oddsAnswer,
  oddsAnswerIn,
  oddsFormatOf,
  providerStatus,
  resultAnswer,
  statsTrendAnswer,
  upcomingAnswer
} from "../api/SportsEdge.ts"
import { type OddsFormat, oddsFormats } from "../domain/OddsFormat.ts"
import type { PartnerAccess } from "../domain/Partner.ts"
import { canonicalId, type OddsMarket } from "../domain/Sports.ts"
import { recordProviderCache } from "../platform/Metrics.ts"
import { ProviderCaller } from "./ProviderQuota.ts"
import { ClosingLinesRepo } from "./stream/ClosingLinesRepo.ts"
import { zoneDayList, type ZoneDayTooLarge } from "./ZoneDayLists.ts"
import {
  type EventNotFound,
  type Fetched,
  SportsProvider,
  type SportsProviderError,
  type UnsupportedSport
} from "./SportsProvider.ts"

/**
 * How old a provider answer is: `Age` in whole seconds since the provider
 * gave it, and `X-Cache: MISS` when the provider was asked while this
 * request waited (alone or sharing the call), `HIT` when it came from a
 * cache, this instance's or the fleet's, `STALE` when it is the last answer
 * kept, past its freshness, served while the provider cannot be asked (its quota).
 */
const freshness = (
  answer: { readonly raw: unknown; readonly storedAt: number; readonly origin: string },
  startedAt: number
) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const miss = answer.origin === "upstream" && answer.storedAt >= startedAt
    const state = miss ? "miss" : answer.origin === "stale" ? "stale" : "hit"
    return Effect.andThen(
      recordProviderCache(state),
      HttpEffect.appendPreResponseHandler(
        headersOf(answer.raw, Math.max(0, Math.floor((now - answer.storedAt) / 1000)), state)
      )
    )
  })

type CacheState = "miss" | "stale" | "hit"

interface Stamped {
  readonly age: number
  readonly state: CacheState
  readonly handler: (
    request: HttpServerRequest.HttpServerRequest,
    response: HttpServerResponse.HttpServerResponse
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse>
}

/** The last headers written for each kept answer (its raw payload, the same object while it is kept). */
const stamped = new WeakMap<object, Stamped>()

/**
 * What puts `Age` and `X-Cache` on the answer: built once per kept answer, age (in whole seconds) and state, and
 * reused by every request reading it within that second.
 */
const headersOf = (raw: unknown, age: number, state: CacheState): Stamped["handler"] => {
  const kept = typeof raw === "object" && raw !== null ? stamped.get(raw) : undefined
  if (kept !== undefined && kept.age === age && kept.state === state) return kept.handler
  const headers = { age: String(age), "x-cache": state === "miss" ? "MISS" : state === "stale" ? "STALE" : "HIT" }
  const handler: Stamped["handler"] = (_request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, headers))
  if (typeof raw === "object" && raw !== null) stamped.set(raw, { age, state, handler })
  return handler
}

type Fetch<A> = (
  provider: SportsProvider["Service"]
) => Effect.Effect<Fetched<A>, SportsProviderError | EventNotFound | UnsupportedSport | ZoneDayTooLarge>

/**
 * The provider the token reaches (PartnerUpstreams), asked for `fetch` on the partner's share of its quota, the
 * answer's freshness in the headers: 404 for an unknown event, 422 for a sport the provider does not offer (or a
 * zone's day it lists too much of), 502 for any failure of the provider.
 */
const asked = <A>(partner: PartnerAccess, fetch: Fetch<A>) =>
  Effect.flatMap(
    Effect.all([Effect.service(SportsProvider), Clock.currentTimeMillis]),
    ([provider, startedAt]) =>
      fetch(provider).pipe(
        Effect.provideService(ProviderCaller, { _tag: "Partner", partnerId: partner.id }),
        Effect.tap((answer) => freshness(answer, startedAt)),
        Effect.map((fetched) => ({ fetched, provider })),
        Effect.catchTags({
          SportsProviderError: (error) =>
            Effect.fail(
              new ProviderUnavailable({
                message: `The sports provider could not be queried: ${error.message}`,
                partner: partnerSummary(partner),
                provider: provider.name,
                provider_response: error.providerResponse ?? { error: error.reason, error_detail: error.message }
              })
            ),
          EventNotFound: (error) => Effect.fail(new NotFound({ message: error.message })),
          UnsupportedSport: (error) =>
            Effect.fail(new ValidationFailed({ message: error.message, errors: { sport_id: [error.message] } })),
          ZoneDayTooLarge: (error) =>
            Effect.fail(new ValidationFailed({ message: error.message, errors: { timezone: [error.message] } }))
        })
      )
  )

/** The envelope around the provider's answer as `toData` writes it, with its raw payload when the query asks. */
const answer = <A, D>(
  query: { readonly include_raw?: string | undefined },
  fetch: Fetch<A>,
  toData: (value: A, provider: SportsProvider["Service"]) => Effect.Effect<D>
) =>
  respondWith(
    (partner) => asked(partner, fetch),
    ({ fetched, provider }) =>
      Effect.map(toData(fetched.value, provider), (data) => ({
        data,
        ...(includeRaw(query) ? { provider_response: fetched.raw } : {})
      }))
  )

/** The closing line the service kept of an event of the provider the token reaches (its own record): 404 without one. */
const closingLineOf = (closings: ClosingLinesRepo["Service"], eventId: string) =>
  Effect.flatMap(
    Effect.service(SportsProvider),
    (provider) =>
      Effect.flatMap(closings.closingLine(provider.name, canonicalId(eventId)), (line) =>
        line === undefined
          ? Effect.fail(
            new NotFound({
              message: `No closing line is kept for event ${eventId}: it has not gone live, the provider had no ` +
                "pre-match odds of it, or it closed more than 30 days ago."
            })
          )
          : Effect.succeed(line))
  )

/**
 * The odds, polled by every partner: a cached answer's markets are the same value on every read, so its envelope is
 * written once per value (and event id) in each format; with the raw payload asked for, as any answer. The format is
 * named in the Odds-Format header either way. Shared by the HttpApi handlers and the edge's direct answer
 * (src/routes.ts), so both write from the same kept bytes.
 */
const writeOdds = Object.fromEntries(oddsFormats.map((format) => [
  format,
  envelopeWriter(OddsData, oddsAnswerIn(format))
])) as Record<OddsFormat, ReturnType<typeof envelopeWriter<typeof OddsData, ReadonlyArray<OddsMarket>>>>

const writtenOdds = (eventId: string, format: OddsFormat, fetch: Fetch<ReadonlyArray<OddsMarket>>) =>
  respondWritten(
    (partner) => asked(partner, fetch),
    (partner, { fetched }) => writeOdds[format](partner, fetched.value, eventId)
  ).pipe(Effect.tap(() => echoOddsFormat(format)))

const odds = (
  eventId: string,
  query: { readonly include_raw?: string | undefined; readonly odds_format?: OddsFormat | undefined },
  fetch: Fetch<ReadonlyArray<OddsMarket>>
) =>
  includeRaw(query)
    ? answer(query, fetch, (markets) => Effect.flatMap(oddsAnswer(markets, eventId), inOddsFormat(query)))
    : writtenOdds(eventId, oddsFormatOf(query), fetch)

/** An event's pre-match odds asked with no query: the odds endpoint's answer, by its handler and the edge's alike. */
export const answeredOdds = (eventId: string) =>
  writtenOdds(eventId, oddsFormatOf({}), (provider) => provider.odds(eventId))

export const SportsHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "sports",
  Effect.fn(function*(handlers) {
    const closings = yield* ClosingLinesRepo

    return handlers.handleAll({
      status: () => respond(() => Effect.service(SportsProvider), providerStatus),
      leagues: ({ query }) => answer(query, (provider) => provider.leagues(listOf(query)), leaguesAnswer),
      upcoming: ({ query }) =>
        answer(query, (provider) => zoneDayList(provider.upcoming, dayListOf(query)), upcomingAnswer),
      live: ({ query }) => answer(query, (provider) => provider.live(listOf(query)), liveAnswer),
      liveEvent: ({ params, query }) => answer(query, (provider) => provider.event(params.eventId), liveEventAnswer),
      ended: ({ query }) => answer(query, (provider) => zoneDayList(provider.ended, dayListOf(query)), endedAnswer),
      odds: ({ params, query }) => odds(params.eventId, query, (provider) => provider.odds(params.eventId)),
      liveOdds: ({ params, query }) => odds(params.eventId, query, (provider) => provider.liveOdds(params.eventId)),
      closingOdds: ({ params, query }) =>
        respond(
          () => closingLineOf(closings, params.eventId),
          (line) => Effect.flatMap(closingOddsAnswer(params.eventId)(line), inOddsFormat(query))
        ),
      lineup: ({ params, query }) =>
        answer(query, (provider) => provider.lineup(params.eventId), lineupAnswer(params.eventId)),
      statsTrend: ({ params, query }) =>
        answer(query, (provider) => provider.statsTrend(params.eventId), statsTrendAnswer(params.eventId)),
      result: ({ params, query }) => answer(query, (provider) => provider.result(params.eventId), resultAnswer)
    })
  })
)
