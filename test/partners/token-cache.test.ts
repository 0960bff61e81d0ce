/**
 * What an instance remembers of tokens, as pure rules: an entry until its own
 * moment (a token valid for less than the cache lifetime is remembered no
 * longer than that), the least recently read out first past the capacity,
 * everything gone at a change.
 */
import { assert, describe, it } from "@effect/vitest"
import { makeTokenCache } from "../../src/partners/TokenCache.ts"

describe("TokenCache", () => {
  it("answers an entry until its moment, and not at or after it", () => {
    const cache = makeTokenCache<string>(10)
    cache.set("a", "partner a", 1_000)
    assert.strictEqual(cache.get("a", 999), "partner a")
    assert.isTrue(cache.has("a", 999))
    assert.isUndefined(cache.get("a", 1_000))
    assert.isFalse(cache.has("a", 1_000), "gone once its moment came")
  })

  it("keeps each entry to its own moment: one valid for less than another is forgotten first", () => {
    const cache = makeTokenCache<string>(10)
    cache.set("cache lifetime", "x", 5_000)
    cache.set("expires sooner", "y", 2_000)
    assert.isUndefined(cache.get("expires sooner", 2_500))
    assert.strictEqual(cache.get("cache lifetime", 2_500), "x")
  })

  it("past its capacity, forgets the least recently read", () => {
    const cache = makeTokenCache<number>(2)
    cache.set("a", 1, Infinity)
    cache.set("b", 2, Infinity)
    assert.strictEqual(cache.get("a", 0), 1, "a read last: b is now the oldest")
    cache.set("c", 3, Infinity)
    assert.isUndefined(cache.get("b", 0))
    assert.strictEqual(cache.get("a", 0), 1)
    assert.strictEqual(cache.get("c", 0), 3)
  })

  it("has() does not count as a read, set() replaces, clear() forgets everything", () => {
    const cache = makeTokenCache<number>(2)
    cache.set("a", 1, Infinity)
    cache.set("b", 2, Infinity)
    assert.isTrue(cache.has("a", 0))
    cache.set("c", 3, Infinity)
    assert.isFalse(cache.has("a", 0), "a was only looked at, so it was the oldest")
    cache.set("c", 4, Infinity)
    assert.strictEqual(cache.get("c", 0), 4)
    cache.clear()
    assert.isFalse(cache.has("b", 0))
    assert.isFalse(cache.has("c", 0))
  })
})
