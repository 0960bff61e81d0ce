import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { EventRecord, MarketRecord } from "../../../src/domain/SportsChanges.ts"
import { StreamRecords } from "../../../src/sports/stream/StreamRecords.ts"

/**
 * What StreamRecords promises, whichever form keeps it: run over PostgreSQL and over memory by
 * stream-records.test.ts. Each test writes providers of its own; `now` is the time the form prunes by (the database's
 * clock, or the test's).
 */
export const streamRecordsSpec = <R>(
  it: Vitest.MethodsNonLive<StreamRecords | R>,
  now: Effect.Effect<number, never, R>
) => {
  // Lower-case letters and digits only, so the SQL's collation orders them as JavaScript does.
  const provider = () => `w${randomBytes(3).toString("hex")}`
  const hour = 3_600_000
  const event = (eventId: string, at: number, change: Partial<EventRecord> = {}): EventRecord => ({
    eventId,
    sportId: 1,
    leagueId: "l1",
    leagueName: "League One",
    homeName: "Home",
    awayName: "Away",
    startsAt: at + 2 * hour,
    status: "scheduled",
    reason: null,
    active: true,
    score: null,
    minute: null,
    finalAt: null,
    answeredAt: at,
    ...change
  })
  const market = (eventId: string, key: string, at: number, change: Partial<MarketRecord> = {}): MarketRecord => ({
    eventId,
    inPlay: false,
    key,
    name: `Market ${key}`,
    odds: [{ label: "1", value: 1.5 }, { label: "2", value: 2.75 }],
    suspended: false,
    reason: null,
    quotedAt: null,
    answeredAt: at,
    ...change
  })
  const byKey = (markets: ReadonlyArray<MarketRecord>) =>
    [...markets].sort((a, b) => `${a.eventId}${a.inPlay}${a.key}` < `${b.eventId}${b.inPlay}${b.key}` ? -1 : 1)

  it.effect("events are saved by provider and id; those whose facts moved (or unknown) are told with what was held", () =>
    Effect.gen(function*() {
      const records = yield* StreamRecords
      const [w, other] = [provider(), provider()]
      const at = yield* now
      assert.isFalse(yield* records.providerKnown(w))
      const [a, b] = [event("a", at), event("b", at, { status: "live", score: "1-0", minute: 12 })]
      const first = yield* records.eventRecords(w, [a, b], [])
      assert.deepStrictEqual([[...first.moved].sort(), first.previous.size], [["a", "b"], 0], "all new")
      yield* records.saveEvents(w, [a, b])
      assert.isTrue(yield* records.providerKnown(w))
      assert.isFalse(yield* records.providerKnown(other), "providers apart")
      const scored = { ...b, score: "2-0", answeredAt: at + 1_000 }
      const again = yield* records.eventRecords(w, [{ ...a, answeredAt: at + 1_000 }, scored], [])
      assert.deepStrictEqual([...again.moved], ["b"], "a's facts did not move (its answer time is not a fact)")
      assert.deepStrictEqual(again.previous.get("b"), b, "what the log held of it, as saved")
      yield* records.saveEvents(w, [scored])
      assert.deepStrictEqual((yield* records.eventRecords(w, [scored], [])).moved.size, 0)
      assert.deepStrictEqual(
        [...(yield* records.places(w, ["a", "b", "zz"])).entries()].sort(),
        [["a", { sportId: 1, leagueId: "l1" }], ["b", { sportId: 1, leagueId: "l1" }]]
      )
      assert.strictEqual((yield* records.places(other, ["a"])).size, 0)
    }))

  it.effect("an event's status, its reason and when it was final are kept as saved", () =>
    Effect.gen(function*() {
      const records = yield* StreamRecords
      const w = provider()
      const at = yield* now
      const walkover = event("w", at, {
        status: "final",
        reason: { code: "6", text: "Walkover" },
        score: "3-0",
        finalAt: at - 60_000
      })
      const postponed = event("p", at, { status: "postponed", reason: { code: "PST", text: "Match Postponed" } })
      yield* records.saveEvents(w, [walkover, postponed])
      const read = yield* records.eventRecords(w, [{ ...walkover, score: "3-1" }, { ...postponed, reason: null }], [])
      assert.deepStrictEqual([...read.moved].sort(), ["p", "w"], "a reason is one of its facts")
      assert.deepStrictEqual(read.previous.get("w"), walkover)
      assert.deepStrictEqual(read.previous.get("p"), postponed)
    }))

  it.effect("the open events of a refresh's sports it no longer lists are told too; ended ones and other sports' are not", () =>
    Effect.gen(function*() {
      const records = yield* StreamRecords
      const w = provider()
      const at = yield* now
      yield* records.saveEvents(w, [
        event("listed", at),
        event("gone", at),
        event("gonelive", at, { status: "live" }),
        event("ended", at, { status: "final" }),
        event("postponed", at, { status: "postponed" }),
        event("inactive", at, { active: false }),
        event("othersport", at, { sportId: 2 })
      ])
      const { moved, previous } = yield* records.eventRecords(w, [event("listed", at)], [1])
      assert.strictEqual(moved.size, 0)
      assert.deepStrictEqual([...previous.keys()].sort(), ["gone", "gonelive"])
      assert.strictEqual(
        (yield* records.eventRecords(w, [event("listed", at)], [])).previous.size,
        0,
        "no sports: none unlisted"
      )
    }))

  it.effect("markets are saved by event, phase and key; both phases are read back; odds as saved", () =>
    Effect.gen(function*() {
      const records = yield* StreamRecords
      const w = provider()
      const at = yield* now
      yield* records.saveEvents(w, [event("e1", at), event("e2", at)])
      const saved = [
        market("e1", "ml", at),
        market("e1", "ml", at, { inPlay: true, quotedAt: at - 5_000 }),
        market("e2", "ou", at, { suspended: true, reason: "withdrawn" })
      ]
      yield* records.saveMarkets(w, saved)
      assert.deepStrictEqual(byKey(yield* records.marketRecords(w, ["e1", "e2"])), byKey(saved))
      const repriced = market("e1", "ml", at + 1_000, { odds: [{ label: "1", value: 1.4 }, { label: "2", value: 3 }] })
      yield* records.saveMarkets(w, [repriced])
      const e1 = byKey(yield* records.marketRecords(w, ["e1"]))
      assert.deepStrictEqual(e1, byKey([repriced, saved[1]]), "the pre-match market replaced, the in-play one kept")
      assert.isEmpty(yield* records.marketRecords(provider(), ["e1"]))
    }))

  it.effect("stale markets are the open ones of known events no answer carried since, in provider, event, phase and key order", () =>
    Effect.gen(function*() {
      const records = yield* StreamRecords
      const w = provider()
      const at = (yield* now) - 1_000 * hour
      yield* records.saveEvents(w, [event("e1", at), event("e2", at, { sportId: 7, leagueId: "l9" })])
      yield* records.saveMarkets(w, [
        market("e2", "b", at),
        market("e1", "z", at, { inPlay: true }),
        market("e1", "z", at),
        market("e1", "fresh", at + 10 * hour),
        market("e1", "held", at, { suspended: true, reason: "stale" }),
        market("nobody", "x", at)
      ])
      const stale = (yield* records.staleMarkets(at + hour)).filter((entry) => entry.provider === w)
      assert.deepStrictEqual(
        stale.map((
          entry
        ) => [entry.market.eventId, entry.market.inPlay, entry.market.key, entry.sportId, entry.leagueId]),
        [
          ["e1", false, "z", 1, "l1"],
          ["e1", true, "z", 1, "l1"],
          ["e2", false, "b", 7, "l9"]
        ]
      )
    }))

  it.effect("pruning forgets markets unseen for a day and events ended or inactive for three", () =>
    Effect.gen(function*() {
      const records = yield* StreamRecords
      const w = provider()
      const at = yield* now
      const old = at - 4 * 24 * hour
      yield* records.saveEvents(w, [
        event("oldended", old, { status: "final" }),
        event("oldinactive", old, { active: false }),
        event("oldopen", old),
        event("newended", at - hour, { status: "final" })
      ])
      yield* records.saveMarkets(w, [market("oldopen", "old", at - 25 * hour), market("oldopen", "new", at - hour)])
      yield* records.prune
      assert.deepStrictEqual(
        [...(yield* records.places(w, ["oldended", "oldinactive", "oldopen", "newended"])).keys()].sort(),
        ["newended", "oldopen"]
      )
      assert.deepStrictEqual((yield* records.marketRecords(w, ["oldopen"])).map((m) => m.key), ["new"])
    }))
}
