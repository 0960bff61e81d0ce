/** Reading the catalog since a position of the change log: the rules, without a database. */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import {
  checkedSince,
  feedsChanged,
  mapEntries,
  nextSince,
  openFeedOf,
  positionsFor,
  positionsFrom,
  type RecordPosition,
  syncedChanges
} from "../../src/domain/SportsCatalogSync.ts"

const bounds = { head: 500, floor: 200 }
const page = { page: 1, perPage: 3 }

describe("since a position of the change log", () => {
  it("is answered from the floor to the head; otherwise lost, in the stream's words", () => {
    for (const since of [200, 350, 500]) assert.deepStrictEqual(checkedSince(since, bounds), Result.succeed(since))
    assert.deepStrictEqual(checkedSince(0, { head: 10, floor: 0 }), Result.succeed(0), "the log's start, none pruned")
    const lost = (since: number) => {
      const checked = checkedSince(since, bounds)
      return Result.isFailure(checked) ? checked.failure : assert.fail(`${since} was answered`)
    }
    assert.deepInclude(lost(199), { reason: "expired", since: 199 })
    assert.deepInclude(lost(0), { reason: "expired", since: 0 })
    assert.match(
      lost(199).message,
      /no longer kept .*re-read the list without since, then go on from its meta\.next_since/
    )
    assert.deepInclude(lost(501), { reason: "unknown_position", since: 501 })
  })

  it("goes on from a full page's last position, from the head read before a short page's rows", () => {
    assert.strictEqual(nextSince(page, [{ position: 210 }, { position: 230 }, { position: 260 }], 500), 260)
    assert.strictEqual(nextSince(page, [{ position: 210 }], 500), 500)
    assert.strictEqual(nextSince(page, [], 500), 500)
    const answer = syncedChanges(page, {
      results: [
        { record: { id: "a" }, position: 210, listed: true },
        { record: { id: "b" }, position: 220, listed: false }
      ],
      total: 2
    }, 500)
    assert.deepStrictEqual(answer, {
      results: [{ id: "a", removed: false }, { id: "b", removed: true }],
      page: 1,
      perPage: 3,
      total: 2,
      next: 500
    })
    assert.deepStrictEqual(
      mapEntries(answer, (entry) => ({ name: entry.id.toUpperCase() })).results,
      [{ name: "A", removed: false }, { name: "B", removed: true }],
      "an entry's mark is kept as it is written for the wire"
    )
  })

  it("an event's change is a change of the feed it is open in, and of one it left; never of one it was not in", () => {
    const was = (listed: Partial<Record<"prematch" | "live", boolean>>) => (feed: "prematch" | "live") =>
      listed[feed] === undefined ? undefined : { position: 1, listed: listed[feed] } satisfies RecordPosition
    assert.strictEqual(openFeedOf({ active: true, status: "live" }), "live")
    assert.strictEqual(openFeedOf({ active: false, status: "prematch" }), null)
    assert.strictEqual(openFeedOf({ active: true, status: "ended" }), null)
    assert.deepStrictEqual(feedsChanged("prematch", was({})), ["prematch"], "a new event")
    assert.deepStrictEqual(feedsChanged("live", was({ prematch: true })), ["prematch", "live"], "kick-off")
    assert.deepStrictEqual(feedsChanged("live", was({ prematch: false, live: true })), ["live"], "its minute")
    assert.deepStrictEqual(feedsChanged(null, was({ prematch: false, live: true })), ["live"], "the final whistle")
    assert.deepStrictEqual(feedsChanged(null, was({ prematch: false, live: false })), [], "ended, and corrected")
  })

  it("each record written takes a position of its own, kind by kind, ids in order; an event one per feed", () => {
    const written = { sport: ["18", "1"], country: ["gb"], league: [], team: ["t2", "t1"], event: ["e2", "e1"] }
    assert.strictEqual(positionsFor(written), 5 + 2 * 2)
    assert.deepStrictEqual(positionsFrom(written, 100), {
      records: [
        { kind: "sport", id: "1", position: 100 },
        { kind: "sport", id: "18", position: 101 },
        { kind: "country", id: "gb", position: 102 },
        { kind: "team", id: "t1", position: 103 },
        { kind: "team", id: "t2", position: 104 }
      ],
      events: [{ id: "e1", prematch: 105, live: 106 }, { id: "e2", prematch: 107, live: 108 }]
    })
  })
})
