import { Clock, Effect, Schema } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { envelopeWriter, ok, partnerSummary } from "../api/Envelope.ts"
import { NotFound, ProviderUnavailable } from "../api/Errors.ts"
import { encodeWith } from "../api/Paging.ts"
import {
  EndedEventCodec,
  OddsData,
  LeagueCodec,
  LiveEventCodec,
  LiveEventDetailCodec,
  ResultCodec,
  UpcomingEventCodec
} from "../api/Sports.ts"
import { CurrentPartner } from "../api/Security.ts"
import type { PartnerAccess } from "../domain/Partner.ts"
import { minuteOf, type OddsMarket, type Page, type SportsEvent, type SportsLeague, summaryOf } from "../domain/Sports.ts"
import { recordProviderCache } from "../platform/Metrics.ts"
import { ProviderCaller } from "./ProviderQuota.ts"
import { type EventNotFound, type Fetched, SportsProvider, type SportsProviderError } from "./SportsProvider.ts"

/** A provider's answer with its value encoded for the wire. */
const encoded = <A, B, E>(fetched: Effect.Effect<Fetched<A>, E>, encode: (value: A) => Effect.Effect<B>) =>
  Effect.flatMap(fetched, (answer) => Effect.map(encode(answer.value), (value): Fetched<B> => ({ ...answer, value })))

/** A page of the provider's, its entries built by `entryOf` and encoded by `codec`. */
const encodePage = <S extends Schema.Codec<unknown, unknown>, A>(codec: S, entryOf: (item: A) => S["Type"]) => {
  const encode = encodeWith(Schema.Array(codec))
  return (page: Page<A>) => Effect.map(encode(page.results.map(entryOf)), (results) => ({ ...page, results }))
}
const encodeLeagues = encodePage(LeagueCodec, (league: SportsLeague) => league)
const encodeUpcoming = encodePage(UpcomingEventCodec, (event: SportsEvent) => ({ ...summaryOf(event), startsAt: event.startsAt }))
const encodeEnded = encodePage(EndedEventCodec, (event: SportsEvent) => ({ ...summaryOf(event), score: event.score ?? "" }))
const encodeResult = encodeWith(ResultCodec)
const encodeLiveEventDetail = encodeWith(LiveEventDetailCodec)

const meta = (page: Page<unknown>) => ({ page: page.page, per_page: page.perPage, total: page.total })

/** A page as every list answers it: `results` and `meta`. */
const listed = <A>(page: Page<A>) => ({ results: page.results, meta: meta(page) })

const includeRaw = (query: { readonly include_raw?: string | undefined }) =>
  query.include_raw === "true" || query.include_raw === "1"

/**
 * How old a provider answer is: `Age` in whole seconds since the provider
 * gave it, and `X-Cache: MISS` when the provider was asked while this
 * request waited (alone or sharing the call), `HIT` when it came from a
 * cache, this instance's or the fleet's.
 */
const freshness = (answer: { readonly storedAt: number; readonly origin: string }, startedAt: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const miss = answer.origin === "upstream" && answer.storedAt >= startedAt
    const headers = {
      age: String(Math.max(0, Math.floor((now - answer.storedAt) / 1000))),
      "x-cache": miss ? "MISS" : "HIT"
    }
    return Effect.andThen(
      recordProviderCache(miss ? "miss" : "hit"),
      HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))
    )
  })

export const SportsHandlers = HttpApiBuilder.group(
  PartnerApi,
  "sports",
  Effect.fn(function*(handlers) {
    const unavailable = (partner: PartnerAccess, provider: SportsProvider["Service"], error: SportsProviderError) =>
      new ProviderUnavailable({
        message: `The sports provider could not be queried: ${error.message}`,
        partner: partnerSummary(partner),
        provider: provider.name,
        provider_response: error.providerResponse ?? { error: error.reason, error_detail: error.message }
      })

    /**
     * Every provider-backed answer, as `respond` writes it from the provider's: 404 for an unknown event, 502
     * for any failure of the provider.
     */
    const answered = <A, B>(
      fetch: (provider: SportsProvider["Service"]) => Effect.Effect<Fetched<A>, SportsProviderError | EventNotFound>,
      respond: (partner: PartnerAccess, fetched: Fetched<A>, provider: SportsProvider["Service"]) => Effect.Effect<B>
    ) =>
      Effect.gen(function*() {
        const partner = yield* CurrentPartner
        const provider = yield* SportsProvider
        const startedAt = yield* Clock.currentTimeMillis
        return yield* fetch(provider).pipe(
          // The partner's uncached calls count against its own share of the provider's quota.
          Effect.provideService(ProviderCaller, { _tag: "Partner", partnerId: partner.id }),
          Effect.tap((answer) => freshness(answer, startedAt)),
          Effect.flatMap((fetched) => respond(partner, fetched, provider)),
          Effect.catchTags({
            SportsProviderError: (error) => Effect.fail(unavailable(partner, provider, error)),
            EventNotFound: (error) => Effect.fail(new NotFound({ message: error.message }))
          })
        )
      })

    /** The envelope with the mapped data, and the raw payload only when asked. */
    const answer = <A, D>(
      query: { readonly include_raw?: string | undefined },
      fetch: (provider: SportsProvider["Service"]) => Effect.Effect<Fetched<A>, SportsProviderError | EventNotFound>,
      toData: (value: A, provider: SportsProvider["Service"]) => D
    ) =>
      answered(fetch, (partner, { raw, value }, provider) =>
        Effect.succeed(ok(partner, toData(value, provider), includeRaw(query) ? { provider_response: raw } : {})))

    /**
     * The odds, polled by every partner: a cached answer's markets are the same value on every read, so its
     * envelope is written once per value (and event id); with the raw payload asked for, as any answer.
     */
    const writeOdds = envelopeWriter(OddsData, (markets: ReadonlyArray<OddsMarket>, eventId) =>
      Effect.succeed({ event_id: eventId, markets }))
    const oddsAnswer = (
      eventId: string,
      query: { readonly include_raw?: string | undefined },
      fetch: (provider: SportsProvider["Service"]) => Effect.Effect<Fetched<ReadonlyArray<OddsMarket>>, SportsProviderError | EventNotFound>
    ) =>
      includeRaw(query)
        ? answer(query, fetch, (markets) => ({ event_id: eventId, markets }))
        : answered(fetch, (partner, { value }) => writeOdds(partner, value, eventId))

    const list = (query: { readonly sport_id?: number | undefined; readonly page?: number | undefined }) => ({
      sportId: query.sport_id ?? 1,
      page: query.page ?? 1
    })

    return handlers.handleAll({
      status: () =>
        Effect.map(Effect.all([Effect.service(CurrentPartner), Effect.service(SportsProvider)]), ([partner, provider]) =>
          ok(partner, { provider: provider.name, capabilities: provider.capabilities })),
      leagues: ({ query }) =>
        answer(query, (provider) => encoded(provider.leagues(list(query)), encodeLeagues), (page, provider) => ({
          provider: provider.name,
          ...listed(page)
        })),
      upcoming: ({ query }) =>
        answer(query, (provider) => encoded(provider.upcoming({ ...list(query), leagueId: query.league_id }), encodeUpcoming), listed),
      live: ({ query }) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          answer(query, (provider) =>
            encoded(provider.live(list(query)), encodePage(LiveEventCodec, (event: SportsEvent) => ({
              ...summaryOf(event),
              score: event.score ?? "",
              minute: minuteOf(event, now)
            }))), listed)),
      liveEvent: ({ params, query }) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          answer(query, (provider) =>
            encoded(provider.event(params.eventId), (event) =>
              encodeLiveEventDetail({
                id: event.id,
                homeName: event.home.name,
                awayName: event.away.name,
                minute: minuteOf(event, now),
                score: event.score ?? "",
                status: event.status
              })), (detail) => detail)),
      ended: ({ query }) =>
        answer(query, (provider) =>
          encoded(provider.ended({ ...list(query), day: query.day, leagueId: query.league_id }), encodeEnded), listed),
      odds: ({ params, query }) => oddsAnswer(params.eventId, query, (provider) => provider.odds(params.eventId)),
      liveOdds: ({ params, query }) => oddsAnswer(params.eventId, query, (provider) => provider.liveOdds(params.eventId)),
      lineup: ({ params, query }) =>
        answer(query, (provider) => provider.lineup(params.eventId), (lineup) => ({
          event_id: params.eventId,
          home: lineup.home,
          away: lineup.away
        })),
      statsTrend: ({ params, query }) =>
        answer(query, (provider) => provider.statsTrend(params.eventId), (stats) => ({ event_id: params.eventId, ...stats })),
      result: ({ params, query }) =>
        answer(query, (provider) => encoded(provider.result(params.eventId), encodeResult), (result) => result)
    })
  })
)
