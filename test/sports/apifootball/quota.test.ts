/**
 * API-Football's two holds on the clock: after the day's quota is spent nothing is sent until 00:00 UTC, after the
 * minute's limit only for a minute; the minute's calls are counted before anything is sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import {
  daySpent,
  holdsOf,
  makeApiFootballQuota,
  nextUtcDay
} from "../../../src/integrations/apifootball/ApiFootballQuota.ts"
import { SharedRateLimiterLive, SharedStoreConfig, SharedStoreLive } from "../../../src/platform/SharedStore.ts"
import { testSharedStoreConfig } from "../../support/TestApp.ts"

const Stores = SharedRateLimiterLive.pipe(
  Layer.provideMerge(SharedStoreLive),
  Layer.provide(Layer.succeed(SharedStoreConfig, testSharedStoreConfig()))
)

/** 2026-11-29 23:58:00 UTC. */
const lateInTheDay = Date.UTC(2026, 10, 29, 23, 58)

const refusedWith = (exit: Exit.Exit<void, { readonly reason: string; readonly message: string }>) =>
  Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail"
    ? (exit.cause.reasons[0] as unknown as { error: { reason: string; message: string } }).error
    : undefined

describe("API-Football quota", () => {
  it("the holds an answer calls for, from its failures and its headers", () => {
    assert.deepStrictEqual(holdsOf([{ kind: "requests", message: "" }], {}), ["day"])
    assert.deepStrictEqual(holdsOf([{ kind: "rateLimit", message: "" }], {}), ["minute"])
    assert.deepStrictEqual(holdsOf([], { dayRemaining: 0, minuteRemaining: 5 }), ["day"])
    assert.deepStrictEqual(holdsOf([], { dayRemaining: 10, minuteRemaining: 0 }), ["minute"])
    assert.deepStrictEqual(holdsOf([{ kind: "plan", message: "" }], { dayRemaining: 3 }), [])
    assert.isTrue(daySpent({ plan: "Pro", active: true, dayUsed: 7500, dayLimit: 7500 }))
    assert.isFalse(daySpent({ plan: "Pro", active: true, dayUsed: 7499, dayLimit: 7500 }))
    assert.strictEqual(nextUtcDay(lateInTheDay), Date.UTC(2026, 10, 30))
  })

  it.effect("a day spent holds every call until 00:00 UTC, not a minute more", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(lateInTheDay)
      const quota = yield* makeApiFootballQuota({ callsPerMinute: 100 })
      yield* quota.observe([{ kind: "requests", message: "You have reached the request limit for the day" }], {})
      const refused = refusedWith(yield* Effect.exit(quota.take))
      assert.strictEqual(refused?.reason, "QuotaSpent")
      assert.include(refused?.message, "2026-11-30T00:00:00.000Z")
      yield* TestClock.adjust("90 seconds")
      assert.strictEqual(refusedWith(yield* Effect.exit(quota.take))?.reason, "QuotaSpent", "a minute is not enough")
      yield* TestClock.setTime(Date.UTC(2026, 10, 30, 0, 0, 1))
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(quota.take)), "the day turned")
    }).pipe(Effect.provide(Stores)))

  it.effect("a minute's limit holds calls for a minute; the day is not spent", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 29, 12, 0, 10))
      const quota = yield* makeApiFootballQuota({ callsPerMinute: 100 })
      yield* quota.observe([{ kind: "rateLimit", message: "Too many requests" }], {})
      const refused = refusedWith(yield* Effect.exit(quota.take))
      assert.strictEqual(refused?.reason, "RateLimited")
      assert.include(refused?.message, "2026-11-29T12:01:10.000Z")
      yield* TestClock.adjust("61 seconds")
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(quota.take)))
    }).pipe(Effect.provide(Stores)))

  it.effect("the minute's calls are counted before anything is sent", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 29, 12, 0, 0))
      const quota = yield* makeApiFootballQuota({ callsPerMinute: 3 })
      for (let i = 0; i < 3; i++) assert.isTrue(Exit.isSuccess(yield* Effect.exit(quota.take)))
      assert.strictEqual(refusedWith(yield* Effect.exit(quota.take))?.reason, "RateLimited")
      yield* TestClock.adjust("61 seconds")
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(quota.take)))
    }).pipe(Effect.provide(Stores)))

  it.effect("the account's figures of /status hold the day when it is used up", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(lateInTheDay)
      const quota = yield* makeApiFootballQuota({ callsPerMinute: 100 })
      yield* quota.observeAccount({ plan: "Free", active: true, dayUsed: 99, dayLimit: 100 })
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(quota.take)))
      yield* quota.observeAccount({ plan: "Free", active: true, dayUsed: 100, dayLimit: 100 })
      assert.strictEqual(refusedWith(yield* Effect.exit(quota.take))?.reason, "QuotaSpent")
    }).pipe(Effect.provide(Stores)))
})
