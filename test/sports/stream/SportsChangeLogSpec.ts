import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect, Exit, Ref } from "effect"
import { randomBytes } from "node:crypto"
import type { ChangeKind, ChangeRecord } from "../../../src/domain/SportsChanges.ts"
import type { StreamFilter } from "../../../src/domain/SportsStream.ts"
import { SportsChangeLog } from "../../../src/sports/stream/SportsChangeLog.ts"

/**
 * What SportsChangeLog promises, whichever form keeps it: run over PostgreSQL and over memory by
 * sports-change-log.test.ts. The log is one for the file's tests (each writes providers of its own, and pruning, which
 * reaches every provider, comes last). `pass` lets time pass for every change logged (the SQL moves their times back,
 * memory moves the test's clock on).
 */
export const sportsChangeLogSpec = <R>(
  it: Vitest.MethodsNonLive<SportsChangeLog | R>,
  pass: (by: Duration.Duration) => Effect.Effect<void, never, R>
) => {
  const provider = () => `provider-${randomBytes(3).toString("hex")}`
  const change = (
    eventId: string,
    kind: ChangeKind = "odds",
    sportId = 1,
    leagueId = "L1",
    data = `{"event": "${eventId}",  "kind":"${kind}"}`
  ): ChangeRecord => ({
    kind,
    eventId,
    sportId,
    leagueId,
    data
  })
  const filter = (parts: Partial<Omit<StreamFilter, "key">>): StreamFilter => ({
    kinds: null,
    sportIds: null,
    leagueIds: null,
    eventIds: null,
    ...parts,
    key: JSON.stringify(parts, (_, value) => value instanceof Set ? [...value] : value)
  })
  const read = (
    w: string,
    options: Partial<{ after: number; through: number | null; filter: StreamFilter | null; limit: number }> = {}
  ) =>
    Effect.flatMap(
      Effect.service(SportsChangeLog),
      (log) => log.read(w, { after: 0, through: null, filter: null, limit: 1_000, ...options })
    )
  const realPause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 20)))

  it.effect("changes are read back in order, as written, each provider apart, after a position and up to another, a page at a time", () =>
    Effect.gen(function*() {
      const log = yield* SportsChangeLog
      const [w, other] = [provider(), provider()]
      const start = yield* log.head
      yield* log.withLog(log.append(w, [change("e1", "event"), change("e2", "score"), change("e3")]))
      yield* log.withLog(log.append(other, [change("x1")]))
      yield* log.withLog(log.append(w, []))
      const all = (yield* read(w)).changes
      assert.deepStrictEqual(all.map((c) => c.eventId), ["e1", "e2", "e3"])
      assert.isTrue(all[0].position > start && all[0].position < all[1].position && all[1].position < all[2].position)
      assert.deepStrictEqual(all[0], {
        position: all[0].position,
        kind: "event",
        eventId: "e1",
        sportId: 1,
        leagueId: "L1",
        data: `{"event": "e1",  "kind":"event"}`
      })
      assert.deepStrictEqual((yield* read(w, { after: all[0].position })).changes.map((c) => c.eventId), ["e2", "e3"])
      assert.deepStrictEqual(
        (yield* read(w, { after: all[0].position, through: all[1].position })).changes.map((c) => c.eventId),
        ["e2"]
      )
      assert.deepStrictEqual((yield* read(w, { limit: 2 })).changes.map((c) => c.eventId), ["e1", "e2"])
      assert.deepStrictEqual((yield* read(other)).changes.map((c) => c.eventId), ["x1"])
      assert.isEmpty((yield* read(provider())).changes, "a provider never written has nothing")
      assert.strictEqual(
        yield* log.head,
        (yield* read(other)).changes[0].position,
        "the head is the last position of any provider"
      )
    }))

  it.effect("a filter narrows by kind, sport, league and event; an empty set of sports matches nothing", () =>
    Effect.gen(function*() {
      const log = yield* SportsChangeLog
      const w = provider()
      yield* log.withLog(
        log.append(w, [
          change("a", "odds", 1, "L1"),
          change("b", "score", 2, "L2"),
          change("c", "result", 1, "L3"),
          change("d", "odds", 3, "L1")
        ])
      )
      const ids = (f: StreamFilter) => Effect.map(read(w, { filter: f }), (page) => page.changes.map((c) => c.eventId))
      assert.deepStrictEqual(yield* ids(filter({ kinds: new Set(["odds"]) })), ["a", "d"])
      assert.deepStrictEqual(yield* ids(filter({ sportIds: new Set([1, 2]) })), ["a", "b", "c"])
      assert.deepStrictEqual(yield* ids(filter({ leagueIds: new Set(["L1"]), kinds: new Set(["odds", "score"]) })), [
        "a",
        "d"
      ])
      assert.deepStrictEqual(yield* ids(filter({ eventIds: new Set(["c", "zz"]) })), ["c"])
      assert.deepStrictEqual(yield* ids(filter({ sportIds: new Set() })), [])
      assert.deepStrictEqual(
        (yield* read(w, { filter: filter({ kinds: new Set(["odds"]) }), limit: 1 })).changes.map((c) => c.eventId),
        ["a"],
        "the limit counts matches"
      )
    }))

  it.effect("a withLog that fails keeps none of its changes; positions are not reused; one inside another works", () =>
    Effect.gen(function*() {
      const log = yield* SportsChangeLog
      const w = provider()
      yield* log.withLog(log.append(w, [change("kept")]))
      const failed = yield* Effect.exit(
        log.withLog(Effect.andThen(log.append(w, [change("lost")]), Effect.fail("refresh failed" as const)))
      )
      assert.isTrue(Exit.isFailure(failed))
      yield* log.withLog(log.withLog(log.append(w, [change("after")])))
      const changes = (yield* read(w)).changes
      assert.deepStrictEqual(changes.map((c) => c.eventId), ["kept", "after"])
      assert.isTrue(changes[1].position > changes[0].position)
      assert.isTrue(
        Exit.isFailure(yield* Effect.exit(log.withLog(log.append(w, [change("bad", "odds", 1, "L1", "not json")])))),
        "a change's text is JSON"
      )
    }))

  it.effect("positions drawn for records: in a row, after every one given, before every one after; the head counts them", () =>
    Effect.gen(function*() {
      const log = yield* SportsChangeLog
      const w = provider()
      yield* log.withLog(log.append(w, [change("before")]))
      const [before] = (yield* read(w)).changes
      const first = yield* log.withLog(log.draw(3))
      assert.strictEqual(first, before.position + 1)
      assert.deepStrictEqual(yield* log.bounds, { head: first + 2, floor: (yield* read(w)).floor })
      assert.strictEqual(yield* log.head, first + 2, "no change is logged there, the head is past them")
      yield* log.withLog(log.append(w, [change("after")]))
      const [, after] = (yield* read(w)).changes
      assert.strictEqual(after.position, first + 3)
      assert.deepStrictEqual((yield* read(w, { after: first })).changes.map((c) => c.eventId), ["after"])
      // Drawn by a withLog that fails: not reused, and the head does not count them.
      const head = yield* log.head
      assert.isTrue(Exit.isFailure(yield* Effect.exit(log.withLog(Effect.andThen(log.draw(2), Effect.fail("no"))))))
      assert.strictEqual(yield* log.head, head)
      assert.isAbove(yield* log.withLog(log.draw(1)), head + 2)
    }))

  it.effect("a listener is told after changes are appended, for as long as its scope lives", () =>
    Effect.gen(function*() {
      const log = yield* SportsChangeLog
      const told = yield* Ref.make(0)
      const w = provider()
      // The SQL's listener starts listening on a fiber of its own: append until it has heard one.
      yield* Effect.scoped(Effect.gen(function*() {
        yield* log.onAppend(Ref.update(told, (n) => n + 1))
        for (let i = 0; i < 250 && (yield* Ref.get(told)) === 0; i++) {
          yield* log.withLog(log.append(w, [change(`e${i}`)]))
          yield* realPause
        }
      }))
      assert.isAbove(yield* Ref.get(told), 0)
      const before = yield* Ref.get(told)
      yield* log.withLog(log.append(w, [change("unheard")]))
      yield* realPause
      assert.strictEqual(yield* Ref.get(told), before, "its scope closed: no longer told")
    }))

  it.effect("pruning removes the changes older than the retention, every provider's, and raises the floor; the head stays", () =>
    Effect.gen(function*() {
      const log = yield* SportsChangeLog
      const w = provider()
      yield* log.withLog(log.append(w, [change("old-1"), change("old-2")]))
      const [, oldLast] = (yield* read(w)).changes
      yield* pass(Duration.hours(2))
      yield* log.withLog(log.append(w, [change("new")]))
      assert.strictEqual(yield* log.prune(Duration.hours(3)), 0, "nothing is that old")
      const pruned = yield* log.prune(Duration.hours(1))
      assert.isAtLeast(pruned, 2)
      const page = yield* read(w)
      assert.deepStrictEqual([page.floor, page.changes.map((c) => c.eventId)], [oldLast.position, ["new"]])
      assert.strictEqual(yield* log.prune(Duration.hours(1)), 0)
      yield* pass(Duration.hours(2))
      yield* log.withLog(log.prune(Duration.hours(1)))
      const empty = yield* read(w)
      assert.deepStrictEqual(empty.changes, [])
      assert.strictEqual(yield* log.head, empty.floor, "pruned to nothing, the head is the floor")
      assert.isAbove(empty.floor, oldLast.position)
    }))
}
