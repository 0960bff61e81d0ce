import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { api, CatalogApp, refresh } from "../support/CatalogApp.ts"
import type { WorldEvent } from "../support/CatalogScripts.ts"
import { live } from "../support/live.ts"
import { givenPartner } from "../support/TestApp.ts"

const minuteMs = 60_000
// Whole seconds, as BetsAPI gives times.
const startedAt = Math.floor(Date.now() / 1000) * 1000 - 37 * minuteMs

const inPlay = (id: string, sportId: number, minute: number | null): WorldEvent => ({
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
const world = { events: [soccer, tennis] }

/** Minutes since the start, read at about the time of the request: 37, or 38 if a minute turned meanwhile. */
const sinceStart = [37, 38]

layer(CatalogApp(world, { catalog: { sportIds: [1, 13] } }), live)("events, as a BetsAPI-style provider answers", (it) => {
  describe("minute is an integer for every live sport", () => {
    it.effect("the provider's live list and live event: the clock, or minutes since the start", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const soccerList = yield* api(token, "/sports/events/live?sport_id=1")
        assert.strictEqual(soccerList.body.data.results[0].minute, 34)
        const tennisList = yield* api(token, "/sports/events/live?sport_id=13")
        assert.include(sinceStart, tennisList.body.data.results[0].minute)
        const tennisEvent = yield* api(token, `/sports/events/live/${tennis.id}`)
        assert.strictEqual(tennisEvent.status, 200)
        assert.include(sinceStart, tennisEvent.body.data.minute)
        const soccerEvent = yield* api(token, `/sports/events/live/${soccer.id}`)
        assert.strictEqual(soccerEvent.body.data.minute, 34)
      }))

    it.effect("the catalog's live feed", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        yield* refresh(token)
        const feed = yield* api(token, "/sports/feed/live")
        const minutes = Object.fromEntries(
          feed.body.data.results.map((event: { event_id: string; minute: unknown }) => [event.event_id, event.minute])
        )
        assert.strictEqual(minutes[soccer.id], 34)
        assert.include(sinceStart, minutes[tennis.id])
      }))
  })

  it.effect("an unknown event is a 404 on every event endpoint, though the provider answers success with nothing", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      for (const path of ["/live/777", "/777/odds", "/777/odds/live", "/777/lineup", "/777/stats-trend", "/777/result"]) {
        const response = yield* api(token, `/sports/events${path}`)
        assert.strictEqual(response.status, 404, path)
        assert.deepStrictEqual(response.body, { success: false, message: "Event 777 not found." }, path)
      }
    }))

  it.effect("a known event with no odds yet is a 200 with no markets", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const response = yield* api(token, `/sports/events/${soccer.id}/odds`)
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body.data, { event_id: soccer.id, markets: [] })
      const lineup = yield* api(token, `/sports/events/${soccer.id}/lineup`)
      assert.deepStrictEqual([lineup.status, lineup.body.message], [404, `No line-up is available for event ${soccer.id}.`])
    }))
})
