import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { NotFound } from "../../src/client/PartnerClient.ts"
import { CatalogApp, refresh } from "../support/CatalogApp.ts"
import type { ProviderEvent } from "../support/CatalogScripts.ts"
import { live } from "../support/live.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import { givenPartner } from "../support/TestApp.ts"

const minuteMs = 60_000
// Whole seconds, as BetsAPI gives times.
const startedAt = Math.floor(Date.now() / 1000) * 1000 - 37 * minuteMs

const inPlay = (id: string, sportId: number, minute: number | null): ProviderEvent => ({
  id,
  sportId,
  league: { id: `L${sportId}`, name: `League ${sportId}`, cc: null },
  home: { id: `${id}-h`, name: `Home ${id}` },
  away: { id: `${id}-a`, name: `Away ${id}` },
  startsAt: startedAt,
  timeStatus: 1,
  ss: "1-0",
  minute,
  hasOdds: false
})

// A soccer match with its clock at 34, and a tennis match (no clock) 37 minutes after its start.
const soccer = inPlay("5001", 1, 34)
const tennis = inPlay("5002", 13, null)
const providerData = { events: [soccer, tennis] }

/** Minutes since the start, read at about the time of the request: 37, or 38 if a minute turned meanwhile. */
const sinceStart = [37, 38]

layer(CatalogApp(providerData, { catalog: { sportIds: [1, 13] } }), live)(
  "events, as a BetsAPI-style provider answers",
  (it) => {
    describe("minute is an integer for every live sport", () => {
      it.effect("the provider's live list and live event: the clock, or minutes since the start", () =>
        Effect.gen(function*() {
          const { token } = yield* givenPartner()
          const client = yield* partnerClient(token)
          const soccerList = yield* client.sports.live({ query: { sport_id: 1 } })
          assert.strictEqual(soccerList.data.results[0].minute, 34)
          const tennisList = yield* client.sports.live({ query: { sport_id: 13 } })
          assert.include(sinceStart, tennisList.data.results[0].minute)
          const tennisEvent = yield* client.sports.liveEvent({ params: { eventId: tennis.id }, query: {} })
          assert.include(sinceStart, tennisEvent.data.minute)
          const soccerEvent = yield* client.sports.liveEvent({ params: { eventId: soccer.id }, query: {} })
          assert.strictEqual(soccerEvent.data.minute, 34)
        }))

      it.effect("the catalog's live feed", () =>
        Effect.gen(function*() {
          const { token } = yield* givenPartner()
          yield* refresh(token)
          const feed = yield* (yield* partnerClient(token)).catalog.live({ query: {} })
          const minutes = Object.fromEntries(feed.data.results.map((event) => [event.event_id, event.minute]))
          assert.strictEqual(minutes[soccer.id], 34)
          assert.include(sinceStart, minutes[tennis.id])
        }))
    })

    it.effect("an unknown event is a 404 on every event endpoint, though the provider answers success with nothing", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const client = yield* partnerClient(token)
        const event = { params: { eventId: "777" }, query: {} }
        for (
          const [path, read] of [
            ["/live/777", client.sports.liveEvent(event)],
            ["/777/odds", client.sports.odds(event)],
            ["/777/odds/live", client.sports.liveOdds(event)],
            ["/777/lineup", client.sports.lineup(event)],
            ["/777/stats-trend", client.sports.statsTrend(event)],
            ["/777/result", client.sports.result(event)]
          ] as const
        ) {
          const refused = yield* failsWith(NotFound)(read as Effect.Effect<unknown, unknown>) // the contract's 404
          assert.deepStrictEqual([refused.success, refused.message], [false, "Event 777 not found."], path)
        }
      }))

    it.effect("a known event with no odds yet is a 200 with no markets", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const client = yield* partnerClient(token)
        const event = { params: { eventId: soccer.id }, query: {} }
        const response = yield* client.sports.odds(event)
        assert.deepStrictEqual(response.data, { event_id: soccer.id, markets: [] })
        const lineup = yield* failsWith(NotFound)(client.sports.lineup(event))
        assert.strictEqual(lineup.message, `No line-up is available for event ${soccer.id}.`)
      }))
  }
)
