import { Duration, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { get as httpGet } from "node:http"
import { Sse } from "effect/encoding"
import { SqlClient } from "effect/sql"
import { SportsCatalogConfig } from "../../src/sports/catalog/SportsCatalogConfig.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { StreamConfig } from "../../src/sports/stream/StreamConfig.ts"
import { catalogProvider, type ProviderEvent, providerEvents } from "./CatalogScripts.ts"
import { FakeUpstream, type Script } from "./FakeUpstream.ts"
import { eventually } from "./live.ts"
import { quotaNeverSpent, TestAppWith, testCatalogConfig, testSportsConfig, testStreamConfig } from "./TestApp.ts"

/**
 * The live change stream's tests: the catalog's small set of sports data (CatalogScripts) with odds the test can move,
 * served by a BetsAPI stand-in, and a Server-Sent Events reader over real HTTP.
 */

/** Prices of one market: three outcomes, decimal. */
export interface Prices {
  readonly home: number
  readonly draw: number
  readonly away: number
}

/** The fake provider's sports data, which the test changes between refreshes and odds reads: its events, and each event's markets by key. */
export interface StreamProviderData {
  events: ReadonlyArray<ProviderEvent>
  odds: Map<string, Record<string, Prices>>
  /** The home price of market 1_1 in each odds answer the fake gave, by event: what a failed wait shows. */
  readonly served: Map<string, Array<number>>
}

export const streamProviderData = (): StreamProviderData => ({
  events: providerEvents(),
  odds: new Map(),
  served: new Map()
})

/** Three markets for an event, priced from `base`. */
export const marketsAt = (base: number): Record<string, Prices> => ({
  "1_1": { home: base, draw: 3.2, away: 3.6 },
  "1_2": { home: base + 0.1, draw: 3.3, away: 3.7 },
  "1_3": { home: base + 0.2, draw: 3.4, away: 3.8 }
})

/**
 * The catalog's provider, with odds answers (pre-match, BetsAPI's shape) from `providerData.odds`, and each event's
 * result answer (its status and score) from `providerData.events`.
 */
export const streamProvider = (providerData: StreamProviderData): Script => {
  const catalog = catalogProvider(providerData)
  return (call) => {
    if (call.path === "/v1/bet365/result") {
      const event = providerData.events.find((candidate) => candidate.id === call.query.event_id)
      const results = event === undefined ? [] : [{ id: event.id, time_status: String(event.timeStatus), ss: event.ss }]
      return { kind: "json", body: { success: 1, results } }
    }
    if (call.path !== "/v2/event/odds") return catalog(call)
    const markets = providerData.odds.get(call.query.event_id ?? "") ?? {}
    const served = providerData.served.get(call.query.event_id ?? "") ?? []
    providerData.served.set(call.query.event_id ?? "", [...served, markets["1_1"]?.home ?? 0])
    const addTime = String(Math.floor(Date.now() / 1000))
    const odds = Object.fromEntries(
      Object.entries(markets).map(([key, prices]) => [key, [{
        id: `${call.query.event_id}-${key}`,
        home_od: prices.home.toFixed(3),
        draw_od: prices.draw.toFixed(3),
        away_od: prices.away.toFixed(3),
        ss: null,
        add_time: addTime
      }]])
    )
    return { kind: "json", body: { success: 1, results: { stats: { matching_dir: 1 }, odds } } }
  }
}

/** The provider's settings over the fake: BetsAPI's protocol, answers never reused (changed data is seen at once). */
export const fakeBetsApi = Layer.effect(
  SportsConfig,
  Effect.map(Effect.service(FakeUpstream), (fake) =>
    testSportsConfig({
      provider: "betsapi",
      rateLimitPerHour: quotaNeverSpent,
      cacheTtlMax: Duration.zero,
      betsapi: { baseUrl: fake.url, token: Option.some(Redacted.make("stream-test")) }
    }))
)

/** The whole service over `providerData` (soccer and basketball), with the stream's settings a test chooses. */
export const StreamApp = (providerData: StreamProviderData, stream: Partial<StreamConfig["Service"]> = {}) =>
  TestAppWith(
    Layer.mergeAll(
      Layer.succeed(SportsCatalogConfig, testCatalogConfig({ sportIds: [1, 18], cacheTtl: Duration.zero })),
      Layer.succeed(StreamConfig, testStreamConfig(stream)),
      fakeBetsApi
    )
  ).pipe(Layer.provideMerge(FakeUpstream.layer(streamProvider(providerData))))

/** One event of a stream as it came: its id, its name and its data (JSON, parsed). */
export interface StreamEvent {
  readonly id: string | undefined
  readonly event: string
  readonly data: any
}

/** A stream being read: what it has received so far. */
export interface OpenStream {
  readonly status: number
  /** The answer's headers. */
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** The error envelope when the answer is not a stream. */
  readonly error: any
  readonly events: Array<StreamEvent>
  /** Heartbeat comments received. */
  readonly heartbeats: () => number
  /** `retry:` hints received (milliseconds). */
  readonly retries: Array<number>
  /** Whether the service ended the stream. */
  readonly ended: () => boolean
  readonly close: Effect.Effect<void>
}

/** The changes a stream received (every event but `connected`, heartbeats aside). */
export const changesOf = (stream: OpenStream) => stream.events.filter((event) => event.event !== "connected")

/**
 * Opens GET /sports/stream with `token` (Bearer unless `partnerKey`) and reads it until the scope closes:
 * events are parsed by effect's own SSE parser, as a partner's client would. Each stream has a connection
 * of its own (no pool), closed with it.
 */
export const openStream = (
  baseUrl: string,
  token: string | undefined,
  options: { readonly query?: string; readonly lastEventId?: string; readonly partnerKey?: boolean } = {}
): Effect.Effect<OpenStream, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<OpenStream>((resolve) => {
        const headers: Record<string, string> = {}
        if (token !== undefined) {
          if (options.partnerKey === true) headers["x-partner-key"] = token
          else headers.authorization = `Bearer ${token}`
        }
        if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId
        const path = `/api/partner/v1/sports/stream${options.query === undefined ? "" : `?${options.query}`}`
        const request = httpGet(`${baseUrl}${path}`, { headers, agent: false }, (response) => {
          const events: Array<StreamEvent> = []
          const retries: Array<number> = []
          let heartbeats = 0
          let ended = false
          let text = ""
          const stream: OpenStream = {
            status: response.statusCode ?? 0,
            headers: response.headers,
            get error() {
              return text === "" ? undefined : JSON.parse(text)
            },
            events,
            heartbeats: () => heartbeats,
            retries,
            ended: () => ended,
            close: Effect.sync(() => request.destroy())
          }
          const isStream = response.headers["content-type"]?.startsWith("text/event-stream") === true
          const parser = Sse.makeParser((parsed) => {
            if (parsed._tag === "Retry") retries.push(Duration.toMillis(parsed.duration))
            else events.push({ id: parsed.id, event: parsed.event, data: JSON.parse(parsed.data) })
          })
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => {
            if (!isStream) {
              text += chunk
              return
            }
            heartbeats += chunk.split("\n").filter((line) => line.startsWith(": heartbeat")).length
            parser.feed(chunk)
          })
          const done = () => {
            ended = true
          }
          response.on("end", done).on("close", done).on("error", done)
          if (isStream) resolve(stream)
          else response.on("end", () => resolve(stream))
        })
        request.on("error", () => {})
      })
    ),
    (stream) => stream.close
  )

/** Waits (reading, never sleeping) until the stream has what `holds` says. */
export const until = (stream: OpenStream, holds: (stream: OpenStream) => boolean, what: string) =>
  eventually(Effect.sync(() => stream), holds, what)

/** Waits until the stream got one more heartbeat than now: everything sent before it has arrived. */
export const nextHeartbeat = (stream: OpenStream) => {
  const seen = stream.heartbeats()
  return until(stream, (s) => s.heartbeats() > seen, "a heartbeat")
}

/** The log's positions of `provider` (a provider's name) after `after` (about `eventIds`, when given), in order. */
export const logPositions = (provider: string, after = 0, eventIds?: ReadonlyArray<string>) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ position: string }>`
      SELECT c.position::text AS position FROM sports_changes c
      WHERE c.provider = ${provider} AND c.position > ${after} ${
      eventIds === undefined ? sql`` : sql`AND c.event_id IN ${sql.in(eventIds)}`
    }
      ORDER BY c.position`).pipe(Effect.map((rows) => rows.map((row) => row.position)), Effect.orDie)

/** How many changes of `kind` about `eventId` the log holds. */
/** The home prices of market 1_1 the log holds for `eventId`, in the log's order: beside `served`, where a change was lost. */
export const loggedHomePrices = (provider: string, eventId: string) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) =>
      sql<{ home: number }>`
        SELECT (data::jsonb -> 'odds' -> 0 ->> 'value')::float8 AS home FROM sports_changes
        WHERE provider = ${provider} AND kind = 'odds' AND event_id = ${eventId} AND data::jsonb ->> 'market_key' = '1_1'
        ORDER BY position`
  ).pipe(Effect.map((rows) => rows.map((row) => row.home)), Effect.orDie)

export const logged = (provider: string, kind: string, eventId: string) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) =>
      sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM sports_changes WHERE provider = ${provider} AND kind = ${kind} AND event_id = ${eventId}`
  ).pipe(Effect.map((rows) => rows[0].n), Effect.orDie)
