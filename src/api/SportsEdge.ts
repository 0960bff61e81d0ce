/**
 * The provider data's edge (its contract is ./Sports.ts): a request as the provider takes it, and its answers as the
 * contract writes them.
 */
import { Clock, Effect, Schema } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import type { ClosingLine } from "../domain/ClosingLines.ts"
import { defaultOddsFormat, type InFormat, marketsIn, type OddsFormat, oddsFormats } from "../domain/OddsFormat.ts"
import {
  type Lineup,
  minuteOf,
  type OddsMarket,
  type Page,
  type SettledResult,
  type sportsCapabilities,
  type SportsEvent,
  type SportsLeague,
  type StatsReport,
  summaryOf
} from "../domain/Sports.ts"
import { encodeWith } from "./Paging.ts"
import { oddsFormatHeader } from "./SportsQuery.ts"
import {
  EndedEventCodec,
  LeagueCodec,
  LiveEventCodec,
  LiveEventDetailCodec,
  ResultCodec,
  UpcomingEventCodec
} from "./SportsWire.ts"

/** A list's query as the provider takes it: sport 1 (soccer) and page 1 unless it says otherwise. */
export const listOf = (query: { readonly sport_id?: number | undefined; readonly page?: number | undefined }) => ({
  sportId: query.sport_id ?? 1,
  page: query.page ?? 1
})

/** A day list's query (upcoming, ended) as the provider takes it, its day cut in `timezone` when given. */
export const dayListOf = (query: {
  readonly sport_id?: number | undefined
  readonly page?: number | undefined
  readonly day?: string | undefined
  readonly league_id?: string | undefined
  readonly timezone?: string | undefined
}) => ({ ...listOf(query), day: query.day, leagueId: query.league_id, timeZone: query.timezone })

/** Whether the answer also carries the provider's raw payload. */
export const includeRaw = (query: { readonly include_raw?: string | undefined }) =>
  query.include_raw === "true" || query.include_raw === "1"

/** A page of the provider's as every list answers it: its entries built by `entryOf`, encoded by `codec`, and `meta`. */
const listedWith = <S extends Schema.Codec<unknown, unknown>, A>(
  codec: S,
  entryOf: (item: A, now: number) => S["Type"]
) => {
  const encode = encodeWith(Schema.Array(codec))
  return (page: Page<A>, now = 0) =>
    Effect.map(encode(page.results.map((item) => entryOf(item, now))), (results) => ({
      results,
      meta: { page: page.page, per_page: page.perPage, total: page.total }
    }))
}
/** Where an event is in its life cycle, as every event answered says it. */
const lifeCycleOf = (event: SportsEvent) => ({ status: event.status, reason: event.reason ?? null })

const listedLeagues = listedWith(LeagueCodec, (league: SportsLeague) => league)
const listedUpcoming = listedWith(
  UpcomingEventCodec,
  (event: SportsEvent) => ({ ...summaryOf(event), startsAt: event.startsAt, ...lifeCycleOf(event) })
)
const listedEnded = listedWith(
  EndedEventCodec,
  (event: SportsEvent) => ({
    ...summaryOf(event),
    score: event.score ?? "",
    ...lifeCycleOf(event),
    finalAt: event.finalAt ?? null
  })
)
const listedLive = listedWith(LiveEventCodec, (event: SportsEvent, now: number) => ({
  ...summaryOf(event),
  score: event.score ?? "",
  minute: minuteOf(event, now),
  ...lifeCycleOf(event)
}))
const encodeLiveEventDetail = encodeWith(LiveEventDetailCodec)

/** The provider the token reaches, as `/sports/status` answers it. */
export const providerStatus = (
  provider: {
    readonly name: string
    readonly capabilities: ReadonlyArray<typeof sportsCapabilities[number]>
    readonly sportIds: ReadonlyArray<number> | undefined
  }
) =>
  Effect.succeed({
    provider: provider.name,
    capabilities: provider.capabilities,
    ...(provider.sportIds === undefined ? {} : { sport_ids: provider.sportIds })
  })

/** The leagues, with the provider that listed them. */
export const leaguesAnswer = (page: Page<SportsLeague>, provider: { readonly name: string }) =>
  Effect.map(listedLeagues(page), (listed) => ({ provider: provider.name, ...listed }))

export const upcomingAnswer = (page: Page<SportsEvent>) => listedUpcoming(page)
export const endedAnswer = (page: Page<SportsEvent>) => listedEnded(page)

/** Events in play, each with its minute now. */
export const liveAnswer = (page: Page<SportsEvent>) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => listedLive(page, now))

/** One event in play: its state and minute now. */
export const liveEventAnswer = (event: SportsEvent) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    encodeLiveEventDetail({
      id: event.id,
      homeName: event.home.name,
      awayName: event.away.name,
      minute: minuteOf(event, now),
      score: event.score ?? "",
      ...lifeCycleOf(event),
      finalAt: event.finalAt ?? null
    }))

/** An event's odds, the event named, decimal as the provider quoted them. */
export const oddsAnswer = (markets: ReadonlyArray<OddsMarket>, eventId: string) =>
  Effect.succeed({ event_id: eventId, markets })

/** An event's odds in `format`, for a writer that keeps each format's text (the header is the handler's). */
export const oddsAnswerIn = (format: OddsFormat) => (markets: ReadonlyArray<OddsMarket>, eventId: string) =>
  Effect.succeed({ event_id: eventId, markets: marketsIn(format, markets) })

/** The format an odds answer is written in: the query's `odds_format`, else decimal. */
export const oddsFormatOf = (query: { readonly odds_format?: OddsFormat | undefined }): OddsFormat =>
  query.odds_format ?? defaultOddsFormat

const echoes = Object.fromEntries(oddsFormats.map((format) => [
  format,
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, oddsFormatHeader.toLowerCase(), format))
  )
])) as Record<OddsFormat, Effect.Effect<void>>

/** Names `format` in the answer's Odds-Format header. */
export const echoOddsFormat = (format: OddsFormat): Effect.Effect<void> => echoes[format]

/** An odds answer whose outcomes' `value`s are decimal prices. */
interface PricedData {
  readonly markets: ReadonlyArray<{ readonly odds: ReadonlyArray<{ readonly value: number }> }>
}

/**
 * Any odds answer's data in the format its query asks for: each market's prices converted (decimal ones left as they
 * are), and the format named in the Odds-Format header. An odds endpoint takes `oddsFormatQuery` (./Sports.ts) in its
 * query and passes its data through this: `toData(...).pipe(Effect.flatMap(inOddsFormat(query)))`.
 */
export const inOddsFormat = (query: { readonly odds_format?: OddsFormat | undefined }) => {
  const format = oddsFormatOf(query)
  return <D extends PricedData>(
    data: D
  ): Effect.Effect<Omit<D, "markets"> & { readonly markets: ReadonlyArray<InFormat<D["markets"][number]>> }> =>
    Effect.as(echoOddsFormat(format), { ...data, markets: marketsIn(format, data.markets) })
}

/** An event's closing line: its markets as the odds answers write them, with when and where it closed. */
export const closingOddsAnswer = (eventId: string) => (line: ClosingLine) =>
  Effect.map(oddsAnswer(line.markets, eventId), (odds) => ({
    ...odds,
    closed_at: new Date(line.closedAt),
    source: line.source,
    quoted_at: new Date(line.quotedAt)
  }))

export const lineupAnswer = (eventId: string) => (lineup: Lineup) =>
  Effect.succeed({ event_id: eventId, home: lineup.home, away: lineup.away })

export const statsTrendAnswer = (eventId: string) => (report: StatsReport) =>
  Effect.succeed({
    event_id: eventId,
    ...report.latest,
    ...(report.samples.length === 0 ? {} : {
      trend: report.samples.map((sample) => ({
        minute: sample.minute,
        sampled_at: sample.sampledAt,
        ...sample.stats
      }))
    })
  })

const encodeResult = encodeWith(ResultCodec)

/** A final result, with the service's record of it (none: no record, final_at null). */
export const resultAnswer = ({ settlement, ...result }: SettledResult) =>
  encodeResult({
    ...result,
    status: "final",
    finalAt: settlement?.finalAt ?? null,
    correctedAt: settlement?.correctedAt ?? null,
    previous: settlement?.previous ?? null
  })
