/**
 * Closing lines on API-Football (its fake, over real HTTP): fixtures already in play when the service first saw them
 * get the provider's last pre-match odds (`/odds` keeps a fixture's for 7 days), asked after kick-off; a fixture
 * whose pre-match odds a partner read keeps those at its kick-off; each is answered at
 * GET /sports/events/{id}/odds/closing and sent once on the stream.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { ApiFootballApp, callsTo } from "../../support/ApiFootballApp.ts"
import { refresh } from "../../support/CatalogApp.ts"
import { FakeApiFootball, fixtures, preMatchBookmaker } from "../../support/FakeApiFootball.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { changesOf, logged, nextHeartbeat, openStream, until } from "../../support/StreamApp.ts"
import { givenPartner } from "../../support/TestApp.ts"

const app = ApiFootballApp({
  sports: { cacheTtlMax: Duration.zero },
  stream: { closingAskAfter: Duration.millis(1) }
})

layer(app, live)("closing lines on API-Football", (it) => {
  it.effect("fixtures first seen in play get the provider's last pre-match odds; one that kicks off keeps those read before", () =>
    Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      const { token } = yield* givenPartner({ name: "Closer" })
      const client = yield* partnerClient(token)
      const stream = yield* openStream(yield* baseUrlOf, token, { query: "kinds=closing" })
      yield* until(stream, (s) => s.events.length === 1, "connected")
      const [inPlay, halfTime, soon] = [fixtures.live, fixtures.halfTime, fixtures.startingSoon].map(String)

      yield* refresh(token)
      const preMatch = yield* client.sports.odds({ params: { eventId: soon }, query: {} })
      assert.isAbove(preMatch.data.markets.length, 0)
      yield* eventually(logged("apifootball", "odds", soon), (n) => n === preMatch.data.markets.length, "its markets")

      const asked = yield* eventually(
        Effect.option(client.sports.closingOdds({ params: { eventId: inPlay }, query: {} })),
        (answer) => answer._tag === "Some",
        "the closing line asked of the provider"
      ).pipe(Effect.map((answer) => answer._tag === "Some" ? answer.value.data : assert.fail("none")))
      assert.strictEqual(asked.source, "provider")
      assert.include(asked.markets.map((market) => market.name), "Match Winner")
      // The bookmaker's pre-match odds, as the odds endpoint answers them after kick-off (the last before it).
      assert.deepStrictEqual(
        asked.markets,
        (yield* client.sports.odds({ params: { eventId: inPlay }, query: {} })).data.markets
      )
      assert.isAtLeast(callsTo(fake, "/odds", { fixture: inPlay, bookmaker: String(preMatchBookmaker) }), 1)
      assert.strictEqual(asked.closed_at.getTime(), fake.kickoff(fixtures.live), "it started before it was seen")
      assert.isBelow(asked.quoted_at.getTime(), asked.closed_at.getTime(), "updated before kick-off")

      const kickOff = Date.now()
      fake.setStatus(fixtures.startingSoon, "1H", 1)
      yield* refresh(token)
      const closing = (yield* client.sports.closingOdds({ params: { eventId: soon }, query: {} })).data
      assert.strictEqual(closing.source, "kick_off")
      assert.deepStrictEqual(closing.markets, preMatch.data.markets)
      assert.isAtLeast(closing.closed_at.getTime(), kickOff, "seen in play before its start time: closed then")

      yield* until(stream, (s) => changesOf(s).length >= 3, "three closing lines")
      yield* nextHeartbeat(stream)
      const streamed = changesOf(stream)
      assert.deepStrictEqual(streamed.map((change) => [change.event, change.data.event_id]), [
        ["closing", inPlay],
        ["closing", halfTime],
        ["closing", soon]
      ])
      assert.deepInclude(streamed[2].data, {
        source: "kick_off",
        markets: closing.markets,
        closed_at: closing.closed_at.toISOString()
      })
      assert.deepStrictEqual(streamed[0].data.markets, asked.markets)
    }))
})
