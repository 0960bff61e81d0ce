/**
 * `odds_format` on the live change stream, over real HTTP and PostgreSQL: the log keeps each odds change once, in
 * decimal, and every stream gets its prices in the format it asked for (live, and caught up from the log after a
 * Last-Event-ID), the format named in `connected` and the Odds-Format header; another value is the contract's 422.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { refresh } from "../../support/CatalogApp.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import {
  changesOf,
  logged,
  loggedHomePrices,
  logPositions,
  marketsAt,
  openStream,
  StreamApp,
  streamProviderData,
  until
} from "../../support/StreamApp.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { givenPartner } from "../../support/TestApp.ts"

const providerData = streamProviderData()
const priced = "70001"

/** Market 1_1's opening prices (2.5 / 3.2 / 3.6) in each format. */
const opening = {
  decimal: [2.5, 3.2, 3.6],
  american: [150, 220, 260],
  fractional: ["3/2", "11/5", "13/5"],
  probability: [0.4, 0.3125, 0.2778]
}
const formats = ["decimal", "american", "fractional", "probability"] as const

layer(StreamApp(providerData), live)("odds formats on the live change stream", (it) => {
  it.effect("each stream gets the prices in its format, live and caught up; the log keeps them decimal", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Formats" })
      const baseUrl = yield* baseUrlOf
      yield* refresh(token)
      const streams = yield* Effect.forEach(formats, (format) =>
        openStream(baseUrl, token, {
          query: `event_id=${priced}&kinds=odds${format === "decimal" ? "" : `&odds_format=${format}`}`
        }))
      // Two streams of one filter and format share one text of each change; this one must still get its own.
      const second = yield* openStream(baseUrl, token, { query: `event_id=${priced}&kinds=odds&odds_format=american` })
      for (const [i, stream] of [...streams, second].entries()) {
        const format = formats[i] ?? "american"
        yield* until(stream, (s) => s.events.length === 1, "connected")
        assert.strictEqual(stream.status, 200)
        assert.strictEqual(stream.headers["odds-format"], format)
        assert.strictEqual(stream.events[0].data.odds_format, format)
      }

      providerData.odds.set(priced, marketsAt(2.5))
      yield* (yield* partnerClient(token)).sports.odds({ params: { eventId: priced }, query: {} })
      yield* eventually(logged("betsapi", "odds", priced), (n) => n === 3, "the three markets opened")
      assert.deepStrictEqual(yield* loggedHomePrices("betsapi", priced), [2.5], "the log keeps the decimal price")

      const opened = (stream: (typeof streams)[number]) =>
        changesOf(stream).find((change) => change.data.market_key === "1_1")!.data
      for (const [i, stream] of [...streams, second].entries()) {
        const format = formats[i] ?? "american"
        yield* until(stream, (s) => changesOf(s).length === 3, `${format}: the three markets`)
        const market = opened(stream)
        assert.deepStrictEqual(market.odds.map((odd: { value: unknown }) => odd.value), opening[format], format)
        assert.deepInclude(market, { event_id: priced, changed: "opened", suspended: false, in_play: false })
      }

      // Caught up from the log, after a Last-Event-ID before the changes: converted as live ones are.
      const [first] = yield* logPositions("betsapi", 0, [priced])
      const caughtUp = yield* openStream(baseUrl, token, {
        query: `event_id=${priced}&odds_format=fractional`,
        lastEventId: String(Number(first) - 1)
      })
      yield* until(caughtUp, (s) => changesOf(s).length === 3, "the three changes from the log")
      assert.deepStrictEqual(opened(caughtUp).odds.map((odd: { value: unknown }) => odd.value), opening.fractional)
      assert.deepStrictEqual(
        changesOf(caughtUp).map((change) => change.id),
        changesOf(streams[2]).map((change) => change.id),
        "the same changes, at the same positions"
      )
    }))

  it.effect("a format the contract does not know is its 422 naming odds_format", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Typo" })
      const refused = yield* openStream(yield* baseUrlOf, token, { query: "odds_format=decimals" })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(refused.error.errors, {
        odds_format: ["The selected odds format is invalid. Use decimal, american, fractional or probability."]
      })
    }))
})
