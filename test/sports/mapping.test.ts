import { assert, describe, it } from "@effect/vitest"
import { Duration, Schema } from "effect"
import * as BetsApi from "../../src/integrations/betsapi/BetsApi.ts"
import { timeToLive } from "../../src/integrations/betsapi/BetsApiAnswers.ts"

const decode = <A>(schema: Schema.Codec<A, unknown>, value: unknown) => Schema.decodeUnknownSync(schema)(value)

describe("BetsAPI mapping", () => {
  it("odds values: numbers and numeric strings above 1; anything else is no value", () => {
    assert.strictEqual(BetsApi.oddsValue("1.833"), 1.833)
    assert.strictEqual(BetsApi.oddsValue(2.5), 2.5)
    for (const raw of ["EVS", "-", "", " ", null, undefined, "NaN", "Infinity", "0.9", 1, {}]) {
      assert.isUndefined(BetsApi.oddsValue(raw), JSON.stringify(raw))
    }
  })

  it("labels handicap and total markets from the home side's line, quarter lines included", () => {
    const odds = (entry: Record<string, unknown>) =>
      BetsApi.toOdds(decode(BetsApi.OddsAnswer, { results: { odds: { "1_2": [{ ...entry, ss: null }] } } }), false)[0]
        ?.odds
    assert.deepStrictEqual(odds({ home_od: "1.9", handicap: "-0.5", away_od: "1.9" })?.map((o) => o.label), [
      "Home -0.5",
      "Away +0.5"
    ])
    assert.deepStrictEqual(odds({ home_od: "1.9", handicap: "+1.0", away_od: "1.9" })?.map((o) => o.label), [
      "Home +1.0",
      "Away -1.0"
    ])
    assert.deepStrictEqual(
      odds({ home_od: "1.9", handicap: "0.0,-0.5", away_od: "1.9" })?.map((o) => o.label),
      ["Home 0.0,-0.5", "Away 0.0,+0.5"]
    )
    assert.deepStrictEqual(odds({ over_od: "1.8", handicap: "2.5", under_od: "2.05" }), [
      { label: "Over 2.5", value: 1.8 },
      { label: "Under 2.5", value: 2.05 }
    ])
  })

  it("maps every time_status to the life cycle, with the code's meaning as its reason where it says more", () => {
    const lifeCycleOf = (timeStatus: string) => {
      const event = BetsApi.toEvent(
        decode(BetsApi.ViewAnswer, {
          results: [{
            id: 1,
            sport_id: "1",
            time: "1700000000",
            time_status: timeStatus,
            league: { id: 1, name: "L" },
            home: { id: 1, name: "H" },
            away: { id: 2, name: "A" }
          }]
        }).results[0]
      )
      return [event.status, event.reason?.text ?? null, event.reason?.code ?? null]
    }
    assert.deepStrictEqual(
      ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "99", "42"].map(lifeCycleOf),
      [
        ["scheduled", null, null],
        ["live", null, null],
        ["scheduled", "To be fixed", "2"],
        ["final", null, null],
        ["postponed", "Postponed", "4"],
        ["cancelled", "Cancelled", "5"],
        ["final", "Walkover", "6"],
        ["suspended", "Interrupted", "7"],
        ["abandoned", "Abandoned", "8"],
        ["abandoned", "Retired", "9"],
        ["cancelled", "Removed", "99"],
        ["suspended", "Status not documented", "42"]
      ]
    )
  })

  it("a result: the final score and the winner, a draw included", () => {
    const result = (ss: string, status = "3") =>
      BetsApi.toResult(decode(BetsApi.ResultAnswer, { results: [{ id: "9", time_status: status, ss }] }))
    assert.deepStrictEqual(result("1-1"), {
      _tag: "Result",
      result: { eventId: "9", homeScore: 1, awayScore: 1, winner: "draw" }
    })
    const away = result("0-2")
    assert.strictEqual(away._tag === "Result" ? away.result.winner : away._tag, "away")
    assert.deepStrictEqual(result("1-0", "1"), { _tag: "NotFinished", status: "live", reason: undefined })
    assert.deepStrictEqual(result("1-1", "8"), {
      _tag: "NotFinished",
      status: "abandoned",
      reason: { code: "8", text: "Abandoned" }
    })
    assert.deepInclude(result("3-0", "6"), { _tag: "Result" }, "a walkover with a score is final")
    assert.deepStrictEqual(BetsApi.toResult({ results: [] }), { _tag: "Unknown" })
  })
})

describe("cache lifetimes", () => {
  it("fit the data: seconds in play, minutes for lists, a day for a final result, briefly for 'not found'", () => {
    const toMillis = (path: string, raw: unknown) => Duration.toMillis(timeToLive(path, raw))
    assert.strictEqual(
      toMillis(BetsApi.paths.odds, { success: 1, results: { odds: { "1_1": [{ ss: "1-0" }] } } }),
      5_000
    )
    assert.strictEqual(
      toMillis(BetsApi.paths.odds, { success: 1, results: { odds: { "1_1": [{ ss: null }] } } }),
      60_000
    )
    assert.strictEqual(toMillis(BetsApi.paths.leagues, { success: 1 }), 30 * 60_000)
    assert.strictEqual(toMillis(BetsApi.paths.result, { success: 1, results: [{ time_status: "3" }] }), 24 * 3_600_000)
    assert.strictEqual(toMillis(BetsApi.paths.result, { success: 1, results: [{ time_status: "1" }] }), 30_000)
    assert.strictEqual(toMillis(BetsApi.paths.view, { success: 0, error: "NOT_FOUND" }), 30_000)
  })
})
