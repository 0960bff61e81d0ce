/**
 * What the change stream tells, as pure rules: from what the log last said of an event or a market and
 * what a refresh or an odds answer says now, which changes (and in which order); which streams carry them.
 */
import { assert, describe, it } from "@effect/vitest"
import { eventChanges, oddsChanges, unlistedEvents } from "../../src/domain/SportsChangeRules.ts"
import type { EventRecord, MarketRecord } from "../../src/domain/SportsChanges.ts"
import { carries, streamFilterOf } from "../../src/domain/SportsStream.ts"

const at = Date.UTC(2026, 11, 1, 12)
const event = (fields: Partial<EventRecord> = {}): EventRecord => ({
  eventId: "7",
  sportId: 1,
  leagueId: "900",
  leagueName: "Premier Division",
  homeName: "Arsenal",
  awayName: "Chelsea",
  startsAt: at,
  status: "prematch",
  active: true,
  score: null,
  minute: null,
  answeredAt: at - 60_000,
  ...fields
})
const sent = (previous: EventRecord | undefined, observed: EventRecord, baseline = false) =>
  eventChanges({
    previous: new Map(previous === undefined ? [] : [["7", previous]]),
    observed: [observed],
    unlisted: [],
    seenAt: at,
    baseline
  })
const kinds = (outcome: ReturnType<typeof sent>) =>
  outcome.changes.map((
    change
  ) => [change.kind, JSON.parse(change.data).changed ?? JSON.parse(change.data).score ?? "result"])

describe("the change stream's rules", () => {
  it("events: created, then status and start time, score and minute in play, the result once ended", () => {
    assert.deepStrictEqual(kinds(sent(undefined, event())), [["event", ["created"]]])
    assert.deepStrictEqual(
      sent(undefined, event(), true),
      { changes: [], records: [event()] },
      "a provider's first refresh sends nothing"
    )
    assert.deepStrictEqual(kinds(sent(event(), event({ startsAt: at + 3_600_000 }))), [["event", ["starts_at"]]])
    assert.deepStrictEqual(kinds(sent(event(), event({ status: "live", score: "0-0", minute: 1, answeredAt: at }))), [[
      "event",
      ["status"]
    ], ["score", "0-0"]])
    const live = event({ status: "live", score: "0-0", minute: 1 })
    assert.deepStrictEqual(kinds(sent(live, { ...live, minute: 2, answeredAt: at })), [["score", "0-0"]])
    assert.deepStrictEqual(
      kinds(sent(live, { ...live, status: "ended", score: "2-1", minute: null, answeredAt: at })),
      [
        ["event", ["status"]],
        ["result", "result"]
      ]
    )
    assert.deepInclude(
      JSON.parse(sent(live, { ...live, status: "ended", score: "2-1", answeredAt: at }).changes[1].data),
      {
        home_score: 2,
        away_score: 1,
        winner: "home"
      }
    )
    assert.deepStrictEqual(
      sent(live, { ...live, answeredAt: at }),
      { changes: [], records: [] },
      "nothing changed, nothing written"
    )
  })

  it("an answer older than what the log holds never undoes it", () => {
    const scored = event({ status: "live", score: "1-0", minute: 30, answeredAt: at })
    assert.deepStrictEqual(sent(scored, { ...scored, score: "0-0", minute: 29, answeredAt: at - 5_000 }), {
      changes: [],
      records: []
    })
  })

  it("a full refresh that no longer lists an open event of its sports removes it", () => {
    const scope = { sportIds: [1], leagues: true, events: true, liveOnly: false }
    const previous = [event(), event({ eventId: "8", status: "ended" }), event({ eventId: "9", sportId: 18 })]
    assert.deepStrictEqual(unlistedEvents(previous, new Set(), scope), ["7"])
    assert.deepStrictEqual(unlistedEvents(previous, new Set(), { ...scope, liveOnly: true }), [])
    const removed = eventChanges({
      previous: new Map([["7", event()]]),
      observed: [],
      unlisted: ["7"],
      seenAt: at,
      baseline: false
    })
    assert.deepInclude(JSON.parse(removed.changes[0].data), { changed: ["active"], active: false })
  })

  it("odds: a market opens, moves, is withdrawn and reopens; an answer older than STREAM_STALE_AFTER changes nothing", () => {
    const place = { sportId: 1, leagueId: "900" }
    const market = (key: string, home: number) => ({
      key,
      name: key,
      odds: [{ label: "Home", value: home }],
      quotedAt: null
    })
    const sighting = (answeredAt: number, ...markets: Array<ReturnType<typeof market>>) => ({
      eventId: "7",
      inPlay: false,
      answeredAt,
      markets
    })
    const run = (
      previous: ReadonlyArray<MarketRecord>,
      answeredAt: number,
      ...markets: Array<ReturnType<typeof market>>
    ) =>
      oddsChanges({
        previous,
        sighting: sighting(answeredAt, ...markets),
        event: place,
        seenAt: at,
        staleAfterMillis: 90_000
      })
    const changed = (outcome: ReturnType<typeof run>) =>
      outcome.changes.map((change) => JSON.parse(change.data).changed)

    const opened = run([], at - 1_000, market("1_1", 2), market("1_2", 3))
    assert.deepStrictEqual(changed(opened), ["opened", "opened"])
    const moved = run(opened.records, at, market("1_1", 2.1), market("1_2", 3))
    assert.deepStrictEqual(changed(moved), ["prices"])
    assert.lengthOf(moved.records, 2, "the unchanged market is confirmed too")
    const withdrawn = run(moved.records, at + 1, market("1_1", 2.1))
    assert.deepStrictEqual(changed(withdrawn), ["suspended"])
    assert.deepInclude(JSON.parse(withdrawn.changes[0].data), {
      market_key: "1_2",
      suspended: true,
      reason: "withdrawn"
    })
    const held = [...moved.records.filter((m) => m.key === "1_1"), ...withdrawn.records]
    assert.deepStrictEqual(changed(run(held, at + 2, market("1_1", 2.1), market("1_2", 3))), ["reopened"])
    assert.deepStrictEqual(run(held, at - 100_000, market("1_1", 9)), { changes: [], records: [] }, "stale data")
    assert.deepStrictEqual(
      run(held, at - 500, market("1_1", 9)),
      { changes: [], records: [] },
      "older than what is held"
    )
  })

  it("filters: any member of each list given, every list; equal filters, equal keys", () => {
    const filter = streamFilterOf({ sportIds: ["soccer", "1"], leagueIds: ["0900"], kinds: ["score", "odds"] })
    assert.strictEqual(
      filter.key,
      streamFilterOf({ sportIds: ["1"], leagueIds: ["900"], kinds: ["odds", "score"] }).key
    )
    const change = { kind: "score" as const, sportId: 1, leagueId: "900", eventId: "7" }
    assert.isTrue(carries(filter, change))
    assert.isFalse(carries(filter, { ...change, kind: "event" }))
    assert.isFalse(carries(filter, { ...change, leagueId: "901" }))
    assert.isFalse(carries(streamFilterOf({ sportIds: ["Curling"] }), change), "an unknown sport matches nothing")
    assert.isTrue(carries(streamFilterOf({}), change))
  })
})
