/**
 * A partner never offers a stale price without knowing: a market no odds answer has carried for
 * STREAM_STALE_AFTER is sent suspended (by the schedule, once per fleet), and reopened, with its prices,
 * when fresh data comes; a market that keeps being read is never suspended.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { StreamSchedule } from "../../../src/sports/stream/StreamSchedule.ts"
import { refresh } from "../../support/CatalogApp.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { changesOf, marketsAt, openStream, StreamApp, streamProviderData, until } from "../../support/StreamApp.ts"
import { givenPartner } from "../../support/TestApp.ts"

const providerData = streamProviderData()
const [idle, busy] = ["70001", "70004"]

layer(StreamSchedule.pipe(Layer.provideMerge(StreamApp(providerData, { staleAfter: Duration.seconds(2) }))), live)(
  "stale markets",
  (it) => {
    it.effect("are sent suspended once no answer carried them for STREAM_STALE_AFTER, and reopened by fresh data", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner({ name: "Careful" })
        const baseUrl = yield* baseUrlOf
        const client = yield* partnerClient(token)
        const readOdds = (eventId: string) => client.sports.odds({ params: { eventId }, query: {} })
        yield* refresh(token)
        providerData.odds.set(idle, marketsAt(2.5))
        providerData.odds.set(busy, marketsAt(1.8))
        const stream = yield* openStream(baseUrl, token, { query: `event_id=${idle}&event_id=${busy}&kinds=odds` })
        yield* until(stream, (s) => s.events.length === 1, "connected")
        const ofEvent = (eventId: string) => changesOf(stream).filter((change) => change.data.event_id === eventId)

        yield* readOdds(idle)
        // One event's odds are read (as a polling partner would) until the other's, never read again, go stale.
        yield* eventually(
          Effect.andThen(
            readOdds(busy),
            Effect.sync(() => ofEvent(idle).filter((change) => change.data.suspended).length)
          ),
          (suspended) => suspended === 3,
          "the unread markets suspended"
        )
        const [opened, suspended] = [ofEvent(idle).slice(0, 3), ofEvent(idle).slice(3)]
        assert.deepStrictEqual(
          opened.map((change) => [change.data.changed, change.data.suspended]),
          Array.from({ length: 3 }, () => ["opened", false])
        )
        for (const change of suspended) {
          assert.deepInclude(change.data, { changed: "suspended", suspended: true, reason: "stale" })
          // Its age says why: no data for longer than STREAM_STALE_AFTER when it was seen stale.
          assert.isAtLeast(Date.parse(change.data.seen_at) - Date.parse(change.data.updated_at), 2_000)
        }
        assert.deepStrictEqual(suspended.map((change) => change.data.odds), opened.map((change) => change.data.odds))
        // The market read all along was never suspended.
        assert.isFalse(ofEvent(busy).some((change) => change.data.suspended))

        // Fresh data reopens them, with their prices.
        providerData.odds.set(idle, marketsAt(2.6))
        yield* readOdds(idle)
        yield* until(stream, () => ofEvent(idle).length === 9, "the markets reopened")
        const reopened = ofEvent(idle).slice(6)
        assert.deepStrictEqual(
          reopened.map((change) => [change.data.changed, change.data.suspended, change.data.reason]),
          Array.from({ length: 3 }, () => ["reopened", false, null])
        )
        assert.deepStrictEqual(reopened[0].data.odds, [{ label: "Home", value: 2.6 }, { label: "Draw", value: 3.2 }, {
          label: "Away",
          value: 3.6
        }])
      }))
  }
)
