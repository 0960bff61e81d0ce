/**
 * Closing lines on BetsAPI (a fake over real HTTP) and, for a test token, on the sandbox beside it: an event that
 * goes live keeps the pre-match prices the log held at kick-off; one already live when the service first saw it gets
 * the provider's last pre-match odds, asked after kick-off; both are answered at GET /sports/events/{id}/odds/closing
 * and sent once on the stream as `closing`; later prices change neither; an event without one is a 404.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { NotFound } from "../../../src/api/Errors.ts"
import { marketsIn } from "../../../src/domain/OddsFormat.ts"
import { refresh } from "../../support/CatalogApp.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import { failsWith, partnerClient } from "../../support/PartnerClient.ts"
import {
  changesOf,
  logged,
  marketsAt,
  nextHeartbeat,
  openStream,
  StreamApp,
  streamProviderData,
  until
} from "../../support/StreamApp.ts"
import { bearer, givenPartner, request } from "../../support/TestApp.ts"

const providerData = streamProviderData()

/** Markets answered in decimal (the typed client reads any format's `value`), in `format`. */
const inFormat = (
  format: Parameters<typeof marketsIn>[0],
  markets: ReadonlyArray<{ readonly odds: ReadonlyArray<{ readonly label: string; readonly value: number | string }> }>
) =>
  marketsIn(
    format,
    markets.map((market) => ({ ...market, odds: market.odds.map((o) => ({ ...o, value: Number(o.value) })) }))
  )
// 70001 is pre-match when the service first sees it; 80003 and 80004 are already live (CatalogScripts).
const [kickingOff, seenLive, withoutOdds] = ["70001", "80003", "80004"]

layer(StreamApp(providerData, { closingAskAfter: Duration.millis(1) }), live)("closing lines on BetsAPI", (it) => {
  it.effect("kept at kick-off from the prices the log held, or asked of the provider for an event first seen live; answered and streamed once", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Closer" })
      const client = yield* partnerClient(token)
      const fake = yield* FakeUpstream
      const stream = yield* openStream(yield* baseUrlOf, token, { query: "kinds=closing&sport_id=1" })
      // The same lines, priced as fractions: the log's decimal text converted for this reader only.
      const fractional = yield* openStream(yield* baseUrlOf, token, {
        query: "kinds=closing&sport_id=1&odds_format=fractional"
      })
      yield* until(stream, (s) => s.events.length === 1, "connected")
      yield* until(fractional, (s) => s.events.length === 1, "connected")

      providerData.odds.set(seenLive, marketsAt(1.9))
      providerData.odds.set(kickingOff, marketsAt(2.5))
      yield* refresh(token)
      // The pre-match odds of the event about to start, read by a partner: the log holds its markets.
      const preMatch = yield* client.sports.odds({ params: { eventId: kickingOff }, query: {} })
      yield* eventually(logged("betsapi", "odds", kickingOff), (n) => n === 3, "its markets opened")

      // First seen live: the provider's last pre-match odds, asked after kick-off.
      const asked = yield* eventually(
        Effect.option(client.sports.closingOdds({ params: { eventId: seenLive }, query: {} })),
        (answer) => answer._tag === "Some",
        "the closing line asked of the provider"
      ).pipe(Effect.map((answer) => answer._tag === "Some" ? answer.value.data : assert.fail("none")))
      const seenLiveOdds = yield* client.sports.odds({ params: { eventId: seenLive }, query: {} })
      assert.strictEqual(asked.source, "provider")
      assert.strictEqual(asked.event_id, seenLive)
      assert.deepStrictEqual(asked.markets, seenLiveOdds.data.markets)
      assert.deepStrictEqual(asked.markets.map((market) => market.odds[0]), [
        { label: "Home", value: 1.9 },
        { label: "Home", value: 2 },
        { label: "Home", value: 2.1 }
      ])
      assert.isAtMost(asked.closed_at.getTime(), Date.now(), "closed when the service saw it in play")

      // An event the provider has no pre-match odds of is asked too, and keeps nothing.
      yield* eventually(
        Effect.sync(() => fake.calls.filter((call) => call.query.event_id === withoutOdds).length),
        (calls) => calls > 0,
        "the provider asked"
      )
      const none = yield* failsWith(NotFound)(
        client.sports.closingOdds({ params: { eventId: withoutOdds }, query: {} })
      )
      assert.match(none.message, /^No closing line is kept for event 80004/)

      // The kick-off: the event goes live, its line is the pre-match prices the log held.
      const kickOff = Date.now()
      providerData.events = providerData.events.map((event) =>
        event.id === kickingOff ? { ...event, timeStatus: 1, ss: "0-0", minute: 1 } : event
      )
      yield* refresh(token)
      const closing = (yield* client.sports.closingOdds({ params: { eventId: kickingOff }, query: {} })).data
      assert.strictEqual(closing.source, "kick_off")
      assert.deepStrictEqual(closing.markets, preMatch.data.markets)
      assert.isAtLeast(closing.closed_at.getTime(), kickOff)
      assert.isAtMost(closing.closed_at.getTime(), Date.now())
      assert.isAtMost(closing.quoted_at.getTime(), kickOff, "the last price quoted before it")

      // Later prices, a later refresh: the line stays as it closed.
      providerData.odds.set(kickingOff, marketsAt(3.1))
      yield* client.sports.odds({ params: { eventId: kickingOff }, query: {} })
      yield* eventually(logged("betsapi", "odds", kickingOff), (n) => n === 6, "the later prices logged")
      yield* refresh(token)
      assert.deepStrictEqual(
        (yield* client.sports.closingOdds({ params: { eventId: kickingOff }, query: {} })).data,
        closing
      )
      // In another format, as every odds answer: the prices converted, the format in the Odds-Format header.
      const american = yield* client.sports.closingOdds({
        params: { eventId: kickingOff },
        query: { odds_format: "american" }
      })
      assert.deepStrictEqual(american.data.markets, inFormat("american", closing.markets))
      assert.deepStrictEqual(american.data.markets[0].odds.map((odd) => odd.value), [150, 220, 260])
      const onTheWire = yield* request(
        "GET",
        `/api/partner/v1/sports/events/${kickingOff}/odds/closing?odds_format=probability`,
        {
          headers: bearer(token)
        }
      )
      assert.strictEqual(onTheWire.headers["odds-format"], "probability")

      // The stream: one `closing` each, as the endpoint answers it.
      yield* until(stream, (s) => changesOf(s).length >= 2, "both closing lines")
      yield* nextHeartbeat(stream)
      const streamed = changesOf(stream)
      assert.deepStrictEqual(streamed.map((change) => [change.event, change.data.event_id]), [
        ["closing", seenLive],
        ["closing", kickingOff]
      ])
      for (const [change, answer] of [[streamed[0], asked], [streamed[1], closing]] as const) {
        assert.deepInclude(change.data, {
          sport_id: 1,
          source: answer.source,
          markets: answer.markets,
          closed_at: answer.closed_at.toISOString(),
          updated_at: answer.quoted_at.toISOString()
        })
      }
      yield* until(fractional, (s) => changesOf(s).length >= 2, "both closing lines, as fractions")
      assert.deepStrictEqual(
        changesOf(fractional).map((change) => change.data.markets),
        [asked, closing].map((answer) => inFormat("fractional", answer.markets))
      )
      assert.strictEqual(yield* logged("betsapi", "closing", kickingOff), 1)
      assert.strictEqual(yield* logged("betsapi", "closing", seenLive), 1)
    }))

  it.effect("a test token reads the sandbox's closing lines: its events already live when its catalog first saw them", () =>
    Effect.gen(function*() {
      const created = yield* givenPartner({ name: "Tester" })
      const client = yield* partnerClient(created.test.token)
      const [inPlay] = (yield* client.catalog.live({ query: { per_page: 1 } })).data.results
      const closing = yield* eventually(
        Effect.option(client.sports.closingOdds({ params: { eventId: inPlay.event_id }, query: {} })),
        (answer) => answer._tag === "Some",
        "the sandbox's closing line"
      ).pipe(Effect.map((answer) => answer._tag === "Some" ? answer.value.data : assert.fail("none")))
      assert.strictEqual(closing.source, "provider")
      // The sandbox's pre-match odds of an event in play are the last quoted before its kick-off.
      const preMatch = yield* client.sports.odds({ params: { eventId: inPlay.event_id }, query: {} })
      assert.deepStrictEqual(closing.markets, preMatch.data.markets)
      assert.isAbove(closing.markets.length, 0)
      assert.isBelow(closing.quoted_at.getTime(), closing.closed_at.getTime() + 1)
      // A live token reads the live provider's: the sandbox's events are not BetsAPI's.
      const liveClient = yield* partnerClient(created.token)
      yield* failsWith(NotFound)(liveClient.sports.closingOdds({ params: { eventId: inPlay.event_id }, query: {} }))
    }))
})
