/**
 * Closing lines as pure rules: which refreshes see a kick-off, what a kick-off closes (the pre-match markets the log
 * holds, or an ask of the provider), what the provider's answer closes, when a failed ask is made again, and the
 * change the stream sends, in its own schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Schema } from "effect"
import {
  askAgainAfter,
  type ClosingAsk,
  closingChange,
  closingFromProvider,
  closingsAtKickOff,
  kickedOff,
  kickOffs,
  maxAskAttempts
} from "../../src/domain/ClosingLines.ts"
import { ClosingChange, type MarketRecord } from "../../src/domain/SportsChanges.ts"
import { eventRecord, recordsAt } from "../support/EventRecords.ts"

const at = recordsAt
const minute = 60_000
const event = eventRecord
const market = (key: string, fields: Partial<MarketRecord> = {}): MarketRecord => ({
  eventId: "7",
  inPlay: false,
  key,
  name: `Market ${key}`,
  odds: [{ label: "Home", value: 2.5 }, { label: "Away", value: 1.6 }],
  suspended: false,
  reason: null,
  quotedAt: null,
  answeredAt: at - 5 * minute,
  ...fields
})

describe("closing lines", () => {
  it("a kick-off is an event first seen live, or moved from pre-match to live or straight to ended", () => {
    const live = event({ status: "live", score: "0-0", minute: 1 })
    assert.isTrue(kickedOff(undefined, live), "first seen live")
    assert.isTrue(kickedOff(event(), live), "pre-match to live")
    assert.isTrue(kickedOff(event(), event({ status: "final", score: "1-0" })), "pre-match straight to ended")
    assert.isFalse(kickedOff(undefined, event()), "first seen pre-match")
    assert.isFalse(kickedOff(undefined, event({ status: "final", score: "1-0" })), "first seen ended: long closed")
    assert.isFalse(kickedOff(live, { ...live, minute: 2 }), "already live")
    assert.isFalse(kickedOff(event({ status: "suspended" }), live), "resumed, not kicked off")
    assert.isFalse(kickedOff(event(), { ...live, active: false }), "removed")
    assert.deepStrictEqual(
      kickOffs(new Map([["7", event()], ["8", event({ eventId: "8" })]]), [
        live,
        event({ eventId: "8", startsAt: at + minute }),
        event({ eventId: "9", status: "live" })
      ]).map((each) => each.eventId),
      ["7", "9"]
    )
  })

  it("a kick-off keeps the pre-match markets the log holds, in key order, withdrawn and in-play ones left out", () => {
    const { asks, lines } = closingsAtKickOff({
      kickOffs: [event({ status: "live" }), event({ eventId: "8", status: "live", startsAt: at + 2 * minute })],
      held: [
        market("1_10", { quotedAt: at - 3 * minute }),
        market("1_2", { suspended: true, reason: "stale", answeredAt: at - 90 * minute }),
        market("1_3", { suspended: true, reason: "withdrawn", answeredAt: at - minute }),
        market("1_1", { inPlay: true, answeredAt: at + minute }),
        market("1_1"),
        market("1_1", { eventId: "8", inPlay: true })
      ],
      seenAt: at + minute
    })
    assert.deepStrictEqual(lines, [{
      eventId: "7",
      sportId: 1,
      leagueId: "900",
      source: "kick_off",
      closedAt: at,
      quotedAt: at - 3 * minute,
      markets: ["1_1", "1_2", "1_10"].map((key) => ({
        key,
        name: `Market ${key}`,
        odds: [{ label: "Home", value: 2.5 }, { label: "Away", value: 1.6 }]
      }))
    }], "a stale market still has the last prices seen; the newest provider time is the line's")
    assert.deepStrictEqual(
      asks,
      [{ eventId: "8", sportId: 1, leagueId: "900", closedAt: at + minute, attempts: 0 }],
      "no pre-match market held: the provider is asked; seen in play before its start time, it closed then"
    )
  })

  it("the provider's answer closes the line asked for; an answer without markets closes nothing", () => {
    const ask: ClosingAsk = { eventId: "9", sportId: 18, leagueId: "950", closedAt: at, attempts: 1 }
    const odds = [{ label: "Home", value: 1.9 }]
    assert.deepStrictEqual(
      closingFromProvider(ask, [
        { key: "18_2", name: "Handicap", odds, quotedAt: at - 2 * minute },
        { key: "18_1", name: "Money Line", odds }
      ], at + 3 * minute),
      {
        eventId: "9",
        sportId: 18,
        leagueId: "950",
        source: "provider",
        closedAt: at,
        quotedAt: at + 3 * minute,
        markets: [{ key: "18_1", name: "Money Line", odds }, { key: "18_2", name: "Handicap", odds }]
      },
      "a market without a quote time is as old as the answer"
    )
    assert.isUndefined(closingFromProvider(ask, [], at))
  })

  it("a failed ask is made again 1, 2, 4, 8 and 16 minutes later, then given up", () => {
    const delays = Array.from({ length: maxAskAttempts + 1 }, (_, i) => askAgainAfter(i + 1))
    assert.deepStrictEqual(delays.map((delay) => delay === undefined ? null : Duration.toMinutes(delay)), [
      1,
      2,
      4,
      8,
      16,
      null,
      null
    ])
  })

  it("the stream's change is its own kind, in the contract's schema, its age the newest price's", () => {
    const line = closingsAtKickOff({ kickOffs: [event({ status: "live" })], held: [market("1_1")], seenAt: at }).lines
    const change = closingChange(line[0], at + 5_000)
    assert.deepInclude(change, { kind: "closing", eventId: "7", sportId: 1, leagueId: "900" })
    const data = Schema.decodeUnknownSync(Schema.fromJsonString(ClosingChange))(change.data)
    assert.deepStrictEqual(Schema.encodeSync(ClosingChange)(data), JSON.parse(change.data))
    assert.deepInclude(JSON.parse(change.data), {
      event_id: "7",
      closed_at: new Date(at).toISOString(),
      source: "kick_off",
      updated_at: new Date(at - 5 * minute).toISOString(),
      seen_at: new Date(at + 5_000).toISOString()
    })
  })
})
