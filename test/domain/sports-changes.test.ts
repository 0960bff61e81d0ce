/**
 * What the change stream tells, as pure rules: from what the log last said of an event or a market and
 * what a refresh or an odds answer says now, which changes (and in which order); which streams carry them.
 */
import { assert, describe, it } from "@effect/vitest"
import { eventChanges, oddsChanges, unlistedEvents } from "../../src/domain/SportsChangeRules.ts"
import { changeDataIn, type EventRecord, type MarketRecord } from "../../src/domain/SportsChanges.ts"
import type { ResultRecord } from "../../src/domain/SportsLifecycle.ts"
import { carries, streamFilterOf } from "../../src/domain/SportsStream.ts"
import { eventRecord, recordsAt } from "../support/EventRecords.ts"

const at = recordsAt
const event = eventRecord
const result = (fields: Partial<ResultRecord> = {}): ResultRecord => ({
  eventId: "7",
  homeScore: 2,
  awayScore: 1,
  winner: "home",
  finalAt: at - 3_600_000,
  correctedAt: null,
  previous: null,
  answeredAt: at - 3_600_000,
  ...fields
})
const sent = (
  previous: EventRecord | undefined,
  observed: EventRecord,
  options: { readonly baseline?: boolean; readonly held?: ResultRecord } = {}
) =>
  eventChanges({
    previous: new Map(previous === undefined ? [] : [["7", previous]]),
    observed: [observed],
    unlisted: [],
    results: new Map(options.held === undefined ? [] : [["7", options.held]]),
    seenAt: at,
    baseline: options.baseline ?? false
  })
const kinds = (outcome: ReturnType<typeof sent>) =>
  outcome.changes.map((
    change
  ) => [change.kind, JSON.parse(change.data).changed ?? JSON.parse(change.data).score ?? "result"])
const dataOf = (outcome: ReturnType<typeof sent>, kind: string) =>
  JSON.parse(outcome.changes.find((change) => change.kind === kind)!.data)

describe("the change stream's rules", () => {
  it("events: created, then status and start time, score and minute in play, the result once final", () => {
    assert.deepStrictEqual(kinds(sent(undefined, event())), [["event", ["created"]]])
    assert.deepStrictEqual(
      sent(undefined, event(), { baseline: true }),
      { changes: [], records: [event()], settled: [] },
      "a provider's first refresh sends nothing"
    )
    assert.deepStrictEqual(kinds(sent(event(), event({ startsAt: at + 3_600_000 }))), [["event", ["starts_at"]]])
    assert.deepStrictEqual(kinds(sent(event(), event({ status: "live", score: "0-0", minute: 1, answeredAt: at }))), [[
      "event",
      ["status"]
    ], ["score", "0-0"]])
    const live = event({ status: "live", score: "0-0", minute: 1 })
    assert.deepStrictEqual(kinds(sent(live, { ...live, minute: 2, answeredAt: at })), [["score", "0-0"]])
    const final = sent(live, { ...live, status: "final", score: "2-1", minute: null, answeredAt: at })
    assert.deepStrictEqual(kinds(final), [["event", ["status"]], ["result", "result"]])
    assert.deepInclude(dataOf(final, "event"), { status: "final", reason: null, final_at: new Date(at).toISOString() })
    assert.deepStrictEqual(dataOf(final, "result"), {
      event_id: "7",
      sport_id: 1,
      league_id: "900",
      home_score: 2,
      away_score: 1,
      winner: "home",
      final_at: new Date(at).toISOString(),
      corrected: false,
      corrected_at: null,
      previous: null,
      updated_at: new Date(at).toISOString(),
      seen_at: new Date(at).toISOString()
    })
    assert.deepStrictEqual(final.settled, [result({ finalAt: at, answeredAt: at })], "the result is recorded")
    assert.deepStrictEqual(final.records.map((record) => record.finalAt), [at], "the event's record says when")
    assert.deepStrictEqual(
      sent(live, { ...live, answeredAt: at }),
      { changes: [], records: [{ ...live, answeredAt: at }], settled: [] },
      "the same facts: nothing sent (the record kept again, as a digest of other facts brought it here)"
    )
  })

  it("a final score that changes is a correction: the result again, marked, with the one it replaces", () => {
    const final = event({ status: "final", score: "2-1", finalAt: at - 3_600_000, answeredAt: at - 3_600_000 })
    const corrected = sent(final, { ...final, score: "2-2", finalAt: null, answeredAt: at }, { held: result() })
    assert.deepStrictEqual(kinds(corrected), [["result", "result"]], "the event itself did not change")
    assert.deepInclude(dataOf(corrected, "result"), {
      home_score: 2,
      away_score: 2,
      winner: "draw",
      final_at: new Date(at - 3_600_000).toISOString(),
      corrected: true,
      corrected_at: new Date(at).toISOString(),
      previous: { home_score: 2, away_score: 1, winner: "home" }
    })
    assert.deepStrictEqual(corrected.settled, [
      result({
        homeScore: 2,
        awayScore: 2,
        winner: "draw",
        correctedAt: at,
        previous: { homeScore: 2, awayScore: 1, winner: "home" },
        answeredAt: at
      })
    ])
    assert.deepStrictEqual(corrected.records[0].finalAt, at - 3_600_000, "still final since it first was")
  })

  it("a result the service recorded before the stream saw the event final is sent as recorded", () => {
    // The result endpoint saw 2-1 and then 2-2 (a correction); the refresh sees the event final for the first time.
    const held = result({
      homeScore: 2,
      awayScore: 2,
      winner: "draw",
      correctedAt: at - 60_000,
      previous: { homeScore: 2, awayScore: 1, winner: "home" },
      answeredAt: at - 60_000
    })
    const live = event({ status: "live", score: "2-1", minute: 88 })
    const final = sent(live, { ...live, status: "final", score: "2-2", answeredAt: at }, { held })
    assert.deepStrictEqual(final.settled, [], "nothing new to record")
    assert.deepInclude(dataOf(final, "event"), { final_at: new Date(held.finalAt).toISOString() })
    assert.deepInclude(dataOf(final, "result"), {
      home_score: 2,
      away_score: 2,
      corrected: true,
      corrected_at: new Date(at - 60_000).toISOString(),
      previous: { home_score: 2, away_score: 1, winner: "home" }
    })
  })

  it("a status's reason is part of the event: a new reason is a status change", () => {
    const postponed = event({ status: "postponed", reason: { code: "PST", text: "Match Postponed" }, answeredAt: at })
    const outcome = sent(event(), postponed)
    assert.deepStrictEqual(kinds(outcome), [["event", ["status"]]])
    assert.deepInclude(dataOf(outcome, "event"), {
      status: "postponed",
      reason: { code: "PST", text: "Match Postponed" },
      final_at: null
    })
    const reworded = { ...postponed, reason: { code: "PST", text: "Postponed: weather" }, answeredAt: at + 1 }
    assert.deepStrictEqual(kinds(sent(postponed, reworded)), [["event", ["status"]]])
  })

  it("an answer older than what the log holds never undoes it", () => {
    const scored = event({ status: "live", score: "1-0", minute: 30, answeredAt: at })
    assert.deepStrictEqual(sent(scored, { ...scored, score: "0-0", minute: 29, answeredAt: at - 5_000 }), {
      changes: [],
      records: [],
      settled: []
    })
  })

  it("a full refresh that no longer lists an open event of its sports removes it", () => {
    const scope = { sportIds: [1], leagues: true, events: true, liveOnly: false }
    const previous = [
      event(),
      event({ eventId: "8", status: "final" }),
      event({ eventId: "9", sportId: 18 }),
      event({ eventId: "10", status: "postponed" })
    ]
    assert.deepStrictEqual(unlistedEvents(previous, new Set(), scope), ["7"])
    assert.deepStrictEqual(unlistedEvents(previous, new Set(), { ...scope, liveOnly: true }), [])
    const removed = eventChanges({
      previous: new Map([["7", event()]]),
      observed: [],
      unlisted: ["7"],
      results: new Map(),
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

describe("a change's data for a reader of another odds format", () => {
  const odds = JSON.stringify({
    event_id: "7",
    market_key: "1_1",
    changed: "prices",
    odds: [{ label: "Home", value: 2.5 }, { label: "Draw", value: 3.25 }]
  })

  it("a decimal reader, and any change without prices, gets the logged text itself", () => {
    assert.strictEqual(changeDataIn("decimal", "odds", odds), odds)
    const score = JSON.stringify({ event_id: "7", score: "1-0", minute: 2.5 })
    assert.strictEqual(changeDataIn("american", "score", score), score)
  })

  it("a closing line's prices in every market, in the format", () => {
    const closing = JSON.stringify({
      event_id: "7",
      source: "kick_off",
      markets: [{ key: "1_1", name: "Full Time Result", odds: [{ label: "Home", value: 2.5 }] }, {
        key: "1_2",
        name: "Handicap",
        odds: [{ label: "Home -0.5", value: 1.5 }]
      }]
    })
    assert.strictEqual(changeDataIn("decimal", "closing", closing), closing)
    assert.strictEqual(
      changeDataIn("fractional", "closing", closing),
      "{\"event_id\":\"7\",\"source\":\"kick_off\",\"markets\":[{\"key\":\"1_1\",\"name\":\"Full Time Result\",\"odds\":[{\"label\":\"Home\"," +
        "\"value\":\"3/2\"}]},{\"key\":\"1_2\",\"name\":\"Handicap\",\"odds\":[{\"label\":\"Home -0.5\",\"value\":\"1/2\"}]}]}"
    )
  })

  it("an odds change's prices in the format, every other field as logged and in its place", () => {
    assert.strictEqual(
      changeDataIn("american", "odds", odds),
      "{\"event_id\":\"7\",\"market_key\":\"1_1\",\"changed\":\"prices\",\"odds\":[{\"label\":\"Home\",\"value\":150}," +
        "{\"label\":\"Draw\",\"value\":225}]}"
    )
    assert.deepStrictEqual(JSON.parse(changeDataIn("fractional", "odds", odds)).odds, [
      { label: "Home", value: "3/2" },
      { label: "Draw", value: "9/4" }
    ])
    assert.deepStrictEqual(JSON.parse(changeDataIn("probability", "odds", odds)).odds.map((o: any) => o.value), [
      0.4,
      0.3077
    ])
  })
})
