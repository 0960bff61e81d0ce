/**
 * A client that stops reading is never buffered without bound: once what it has not taken would pass
 * STREAM_CLIENT_BUFFER, what it holds is let go, it gets a last `reset` (from what it was given) and its
 * stream ends, while the other streams go on with every change; it resumes from the reset's id.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Schedule } from "effect"
import { Sse } from "effect/encoding"
import { get as httpGet, type IncomingMessage } from "node:http"
import { SportsStream } from "../../../src/sports/stream/SportsStream.ts"
import { refresh } from "../../support/CatalogApp.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { parsePrometheusText } from "../../support/PrometheusText.ts"
import {
  changesOf,
  logged,
  logPositions,
  openStream,
  type Prices,
  StreamApp,
  type StreamEvent,
  streamProviderData,
  until
} from "../../support/StreamApp.ts"
import { givenPartner, request, textBody } from "../../support/TestApp.ts"

const providerData = streamProviderData()
const clientBuffer = 64 * 1024
const [eventId, markets, rounds] = ["70001", 2_500, 8]

/** `count` markets of one event, every price moved by `base`. */
const manyMarkets = (base: number): Record<string, Prices> =>
  Object.fromEntries(
    Array.from({ length: markets }, (_, i) => [`1_${1000 + i}`, { home: base, draw: base + 1, away: base + 2 }])
  )

const slowDropped = Effect.map(
  request("GET", "/metrics"),
  (scraped) =>
    parsePrometheusText(textBody(scraped)).get("sports_stream_slow_clients_dropped_total")?.samples[0]?.value ?? 0
)

/** A stream whose client does not read: its response is paused as soon as it starts. */
const stalledStream = (url: string, token: string) =>
  Effect.promise(() =>
    new Promise<IncomingMessage>((resolve) => {
      httpGet(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (response) => {
        response.pause()
        resolve(response)
      })
    })
  )

/** Reads a paused stream to its end, then its events. */
const readToEnd = (response: IncomingMessage) =>
  Effect.promise(() =>
    new Promise<Array<StreamEvent>>((resolve) => {
      const events: Array<StreamEvent> = []
      const parser = Sse.makeParser((parsed) => {
        if (parsed._tag === "Event") events.push({ id: parsed.id, event: parsed.event, data: JSON.parse(parsed.data) })
      })
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => parser.feed(chunk))
      response.on("end", () => resolve(events))
      response.resume()
    })
  )

layer(StreamApp(providerData, { clientBufferBytes: clientBuffer }), live)("a slow reader", (it) => {
  it.effect(
    "is reset and closed when it holds more than its buffer; the others get every change; memory stays bounded",
    () =>
      Effect.gen(function*() {
        const created = yield* givenPartner({ name: "Sluggish" })
        const baseUrl = yield* baseUrlOf
        const streams = yield* SportsStream
        const client = yield* partnerClient(created.token)
        yield* refresh(created.token)
        const [start = "0"] = (yield* logPositions("betsapi")).slice(-1)
        const droppedBefore = yield* slowDropped

        const query = `event_id=${eventId}&kinds=odds`
        const fast = yield* openStream(baseUrl, created.token, { query })
        yield* until(fast, (s) => s.events.length === 1, "connected")
        const slow = yield* stalledStream(`${baseUrl}/api/partner/v1/sports/stream?${query}`, created.token)
        assert.strictEqual(slow.statusCode, 200)

        // What the streams hold for their clients, watched while the burst goes by.
        let mostHeld = 0
        const watching = yield* Effect.forkChild(
          Effect.repeat(
            Effect.map(streams.bufferedBytes, (held) => (mostHeld = Math.max(mostHeld, held))),
            Schedule.spaced("10 millis")
          )
        )
        // The burst: every price of 2,500 markets moves, eight times over (about 7 MB of changes per stream, where a socket takes about 4 before it pushes back).
        for (let round = 0; round < rounds; round++) {
          providerData.odds.set(eventId, manyMarkets(2 + round / 100))
          yield* client.sports.odds({ params: { eventId }, query: {} })
        }
        yield* eventually(logged("betsapi", "odds", eventId), (n) => n === markets * rounds, "every change logged")
        const log = yield* logPositions("betsapi", Number(start))
        yield* until(fast, (s) => changesOf(s).at(-1)?.id === log.at(-1), "every change on the fast stream")
        yield* Fiber.interrupt(watching)

        // The fast reader got all of it, in order, once.
        assert.deepStrictEqual(changesOf(fast).map((change) => change.id), log)
        assert.strictEqual(yield* slowDropped, droppedBefore + 1)
        // Never more held than the buffer and one page of the log (1,000 changes, under 400 bytes each).
        assert.isAtMost(mostHeld, clientBuffer + 1_000 * 400)
        assert.isAbove(mostHeld, 0)
        // Once the fast stream has it all, only the slow one's reset is held, waiting for its client.
        yield* eventually(streams.bufferedBytes, (held) => held > 0 && held < 1_024, "only the reset held")

        // The slow reader, reading again, gets what its socket held, then its reset, then the end.
        const received = yield* readToEnd(slow)
        const [connected, ...rest] = received
        assert.strictEqual(connected.event, "connected")
        const reset = rest.at(-1)!
        assert.strictEqual(reset.event, "reset")
        assert.deepInclude(reset.data, { reason: "slow_reader" })
        const given = rest.slice(0, -1).map((change) => change.id)
        assert.isBelow(given.length, log.length, "it was cut off")
        assert.deepStrictEqual(given, log.slice(0, given.length), "what it got is the log's beginning, in order")
        assert.strictEqual(reset.id, given.at(-1) ?? start, "the reset goes on from the last change it got")

        // Resuming from the reset's id, it gets the rest: no gap, no repeat.
        const resumed = yield* openStream(baseUrl, created.token, { query, lastEventId: reset.id! })
        yield* until(resumed, (s) => changesOf(s).at(-1)?.id === log.at(-1), "the rest of the log")
        assert.deepStrictEqual([...given, ...changesOf(resumed).map((change) => change.id)], log)
      }),
    { timeout: 60_000 }
  )
})
