/** The read cache's bound in bytes, its structural keys and its lifetimes, without a database. */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import * as ByteBoundedCache from "../../src/platform/ByteBoundedCache.ts"

/** A cache whose answers are `size` bytes, counting its look-ups per key. */
const counting = (
  options: { readonly maxBytes: number; readonly timeToLive?: Duration.Input; readonly size?: (key: string) => number }
) =>
  Effect.gen(function*() {
    const lookups = new Map<string, number>()
    const cache = yield* ByteBoundedCache.make({
      lookup: (key: { readonly name: string }) =>
        Effect.sync(() => {
          lookups.set(key.name, (lookups.get(key.name) ?? 0) + 1)
          return key.name
        }),
      timeToLive: Duration.fromInputUnsafe(options.timeToLive ?? "1 hour"),
      maxBytes: options.maxBytes,
      sizeOf: options.size ?? (() => 100)
    })
    return { cache, lookups, get: (name: string) => cache.get({ name }) }
  })

describe("ByteBoundedCache", () => {
  it.effect("keys are compared by content: equal keys built apart share one entry and one look-up", () =>
    Effect.gen(function*() {
      const { get, lookups } = yield* counting({ maxBytes: 10_000 })
      yield* Effect.all([get("a"), get("a"), get("a")], { concurrency: "unbounded" })
      yield* get("a")
      assert.strictEqual(lookups.get("a"), 1)
    }))

  it.effect("keeps what it holds within the budget, dropping the least recently used first", () =>
    Effect.gen(function*() {
      const { cache, get, lookups } = yield* counting({ maxBytes: 1_000 })
      for (const name of ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"]) yield* get(name)
      yield* get("k0") // used again: now the most recent
      for (const name of ["n0", "n1", "n2"]) yield* get(name)
      const usage = yield* cache.usage
      assert.isAtMost(usage.bytes, 1_000)
      assert.strictEqual(usage.bytes, usage.entries * 100)
      yield* get("k0")
      assert.strictEqual(lookups.get("k0"), 1, "the recently used entry stayed")
      yield* get("k1")
      assert.strictEqual(lookups.get("k1"), 2, "the least recently used went")
    }))

  it.effect("answers an answer larger than the whole budget without keeping it", () =>
    Effect.gen(function*() {
      const { cache, get, lookups } = yield* counting({
        maxBytes: 1_000,
        size: (key) => (key === "huge" ? 5_000 : 100)
      })
      yield* get("small")
      assert.strictEqual(yield* get("huge"), "huge")
      yield* get("huge")
      assert.strictEqual(lookups.get("huge"), 2)
      assert.deepStrictEqual(yield* cache.usage, { entries: 1, bytes: 100 })
    }))

  it("sizes answers by their encoded bytes unless told otherwise", () => {
    const small = ByteBoundedCache.encodedBytes({ names: ["a"] })
    const large = ByteBoundedCache.encodedBytes({ names: Array.from({ length: 1_000 }, (_, i) => `Team ${i}`) })
    assert.isAbove(large, 1_000 * 6)
    assert.isBelow(small, 100)
  })

  it.effect("forgets an entry after its time to live, and every entry when told to", () =>
    Effect.gen(function*() {
      const { cache, get, lookups } = yield* counting({ maxBytes: 10_000, timeToLive: "10 seconds" })
      yield* get("a")
      yield* TestClock.adjust("9 seconds")
      yield* get("a")
      assert.strictEqual(lookups.get("a"), 1)
      yield* TestClock.adjust("2 seconds")
      yield* get("a")
      assert.strictEqual(lookups.get("a"), 2)
      yield* cache.invalidateAll
      yield* get("a")
      assert.strictEqual(lookups.get("a"), 3)
    }))

  it.effect("does not keep failures", () =>
    Effect.gen(function*() {
      let calls = 0
      const cache = yield* ByteBoundedCache.make({
        lookup: (_: string) => Effect.suspend(() => (++calls === 1 ? Effect.fail("down") : Effect.succeed("up"))),
        timeToLive: Duration.hours(1),
        maxBytes: 10_000
      })
      assert.strictEqual(yield* Effect.flip(cache.get("x")), "down")
      assert.strictEqual(yield* cache.get("x"), "up")
      assert.strictEqual(yield* cache.get("x"), "up")
      assert.strictEqual(calls, 2)
    }))

  it.effect("with a time to live of zero, keeps nothing: every get looks up", () =>
    Effect.gen(function*() {
      const { get, lookups } = yield* counting({ maxBytes: 10_000, timeToLive: 0 })
      yield* get("a")
      yield* get("a")
      assert.strictEqual(lookups.get("a"), 2)
    }))
})
