/**
 * An event's life cycle beyond the provider's word, as pure rules: an event stuck in play is suspended (overdue),
 * never final; a final result is recorded once, and a different score from a newer answer is a correction that keeps
 * the result it replaced; an older answer never undoes the record.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import type { SportsEvent } from "../../src/domain/Sports.ts"
import { overdue, type ResultRecord, settledResult, settleResult } from "../../src/domain/SportsLifecycle.ts"

const at = Date.UTC(2026, 11, 1, 12)
const hour = 3_600_000

const inPlay: SportsEvent = {
  id: "7",
  sportId: 1,
  league: { id: "900", name: "Premier Division", sportId: 1, countryCode: "gb" },
  home: { id: "1", name: "Arsenal", countryCode: "gb" },
  away: { id: "2", name: "Chelsea", countryCode: "gb" },
  startsAt: new Date(at - 2 * hour),
  status: "live",
  score: "1-0",
  minute: 80,
  hasLineup: true,
  hasOdds: true
}

const record: ResultRecord = {
  eventId: "7",
  homeScore: 2,
  awayScore: 1,
  winner: "home",
  finalAt: at - hour,
  correctedAt: null,
  previous: null,
  answeredAt: at - hour
}

describe("an event's life cycle", () => {
  it("in play past the bound after kick-off: suspended, reason overdue, never final; within it, as given", () => {
    const bound = Duration.hours(6)
    assert.strictEqual(overdue(inPlay, at, bound), inPlay, "two hours in: as the provider gave it")
    const stuck = overdue(inPlay, at + 4 * hour + 1, bound)
    assert.deepInclude(stuck, { status: "suspended", score: "1-0" })
    assert.deepStrictEqual(stuck.reason, {
      code: "overdue",
      text: "Still in play by the provider's account 6h after kick-off: not final until the provider says so"
    })
    assert.strictEqual(overdue(inPlay, at + 4 * hour, bound), inPlay, "at the bound exactly: not yet")
    const final = { ...inPlay, status: "final" as const }
    assert.strictEqual(overdue(final, at + 100 * hour, bound), final, "only an event in play")
  })

  it("a final result: recorded once; a new score from a newer answer is a correction keeping the one it replaces", () => {
    const observed = (homeScore: number, awayScore: number, answeredAt: number) => ({
      eventId: "7",
      result: { homeScore, awayScore, winner: homeScore > awayScore ? "home" as const : "draw" as const },
      answeredAt
    })
    assert.deepStrictEqual(
      settleResult(undefined, observed(2, 1, at - hour), { seenAt: at, finalAt: at - hour }),
      record,
      "first seen: final at the time given"
    )
    assert.isUndefined(settleResult(record, observed(2, 1, at), { seenAt: at, finalAt: at }), "the same score")
    assert.isUndefined(
      settleResult(record, observed(2, 2, at - 2 * hour), { seenAt: at, finalAt: at }),
      "an older answer (a cache's) never undoes the record"
    )
    const corrected = settleResult(record, observed(2, 2, at), { seenAt: at + 5, finalAt: at + 5 })
    assert.deepStrictEqual(corrected, {
      ...record,
      homeScore: 2,
      awayScore: 2,
      winner: "draw",
      correctedAt: at + 5,
      previous: { homeScore: 2, awayScore: 1, winner: "home" },
      answeredAt: at
    })
    const again = settleResult(corrected, observed(3, 2, at + 1), { seenAt: at + 9, finalAt: at + 9 })
    assert.deepInclude(again, {
      finalAt: at - hour,
      correctedAt: at + 9,
      previous: { homeScore: 2, awayScore: 2, winner: "draw" }
    }, "the last correction, and the result it replaced")
  })

  it("the result answered: the provider's with the record's dates; the record's score where it holds a newer one", () => {
    const provider = { eventId: "7", homeScore: 2, awayScore: 1, winner: "home" as const }
    assert.deepStrictEqual(settledResult(provider, undefined), provider, "no record: as the provider gave it")
    assert.deepStrictEqual(settledResult(provider, record), {
      ...provider,
      settlement: { finalAt: new Date(at - hour), correctedAt: null, previous: null }
    })
    const corrected: ResultRecord = {
      ...record,
      homeScore: 2,
      awayScore: 2,
      winner: "draw",
      correctedAt: at,
      previous: { homeScore: 2, awayScore: 1, winner: "home" }
    }
    assert.deepStrictEqual(settledResult(provider, corrected), {
      eventId: "7",
      homeScore: 2,
      awayScore: 2,
      winner: "draw",
      settlement: {
        finalAt: new Date(at - hour),
        correctedAt: new Date(at),
        previous: { homeScore: 2, awayScore: 1, winner: "home" }
      }
    }, "a cache's older answer: the record's result, as every instance answers it")
  })
})
