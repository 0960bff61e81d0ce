/**
 * Closing lines with the sandbox as the live provider (SPORTS_PROVIDER=sandbox): its events in play when the catalog
 * is first refreshed get the sandbox's last pre-match odds, asked after kick-off, answered at
 * GET /sports/events/{id}/odds/closing and sent once on the stream, the same for a live and a test token.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { refresh } from "../../support/CatalogApp.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { changesOf, logged, openStream, until } from "../../support/StreamApp.ts"
import { givenPartner, TestApp } from "../../support/TestApp.ts"

layer(TestApp({ stream: { closingAskAfter: Duration.millis(1) } }), live)("closing lines on the sandbox", (it) => {
  it.effect("an event in play at the first refresh gets the sandbox's last pre-match odds, answered and streamed once", () =>
    Effect.gen(function*() {
      const created = yield* givenPartner({ name: "Closer" })
      const client = yield* partnerClient(created.token)
      const stream = yield* openStream(yield* baseUrlOf, created.token, { query: "kinds=closing" })
      yield* until(stream, (s) => s.events.length === 1, "connected")
      yield* refresh(created.token)
      const [inPlay] = (yield* client.catalog.live({ query: { per_page: 1 } })).data.results
      const closing = yield* eventually(
        Effect.option(client.sports.closingOdds({ params: { eventId: inPlay.event_id }, query: {} })),
        (answer) => answer._tag === "Some",
        "the closing line"
      ).pipe(Effect.map((answer) => answer._tag === "Some" ? answer.value.data : assert.fail("none")))
      assert.strictEqual(closing.source, "provider")
      assert.isAbove(closing.markets.length, 0)
      assert.deepStrictEqual(
        closing.markets,
        (yield* client.sports.odds({ params: { eventId: inPlay.event_id }, query: {} })).data.markets,
        "the last pre-match odds, as the odds endpoint answers them in play"
      )
      const test = yield* partnerClient(created.test.token)
      assert.deepStrictEqual(
        (yield* test.sports.closingOdds({ params: { eventId: inPlay.event_id }, query: {} })).data,
        closing
      )

      yield* until(
        stream,
        (s) => changesOf(s).some((change) => change.data.event_id === inPlay.event_id),
        "its closing line streamed"
      )
      const streamed = changesOf(stream).filter((change) => change.data.event_id === inPlay.event_id)
      assert.deepStrictEqual(streamed.map((change) => change.event), ["closing"])
      assert.deepInclude(streamed[0].data, { source: "provider", markets: closing.markets })
      assert.strictEqual(yield* logged("sandbox", "closing", inPlay.event_id), 1)
    }))
})
