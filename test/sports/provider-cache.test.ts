import { assert, describe, it, layer } from "@effect/vitest"
import { ByteSize, Duration, Effect, Equal } from "effect"
import * as ByteBoundedCache from "../../src/platform/ByteBoundedCache.ts"
import { canonicalId } from "../../src/domain/Sports.ts"
import { eventCall, listCall } from "../../src/sports/ProviderCall.ts"
import { BetsApiApp } from "../support/BetsApiApp.ts"
import { healthyBetsApi } from "../support/BetsApiScripts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { ProviderUnavailable } from "../../src/client/PartnerClient.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import { bearer, givenPartner, request } from "../support/TestApp.ts"

/** A GET over the wire, for query spellings (`sport_id=01`) the typed client does not send. */
const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

const givenClient = Effect.flatMap(givenPartner(), (given) => partnerClient(given.token))

describe("provider cache keys", () => {
  it("numeric ids lose their leading zeros; other ids stay as given", () => {
    assert.deepStrictEqual(["94", "094", "0094", "0", "000", " 7 "].map(canonicalId), ["94", "94", "94", "0", "0", "7"])
    assert.deepStrictEqual(["L1", "0x10", "a-01"].map(canonicalId), ["L1", "0x10", "a-01"])
  })

  it("one call, however spelled, is one key; another call is another", () => {
    const list = (leagueId: string) => listCall("upcoming", { sportId: 1, page: 1, leagueId })
    assert.isTrue(Equal.equals(list("94"), list("094")))
    assert.isFalse(Equal.equals(list("94"), list("95")))
    assert.isFalse(Equal.equals(list("94"), listCall("ended", { sportId: 1, page: 1, leagueId: "94" })))
    assert.isTrue(Equal.equals(eventCall("event", "01001"), eventCall("event", "1001")))
  })
})

describe("the bound in bytes", () => {
  it.effect("past it, the least recently used answers go first, across caches; what is left is looked up again", () =>
    Effect.gen(function*() {
      const budget = ByteBoundedCache.makeBudget(1_000)
      const held = Effect.map(budget.usage, (usage) => usage.bytes)
      const lookups: Array<string> = []
      let clock = 0
      const cacheOf = () =>
        budget.cache({
          lookup: (key: string) =>
            Effect.sync(() => {
              lookups.push(key)
              return { bytes: 400, storedAt: ++clock }
            }),
          timeToLive: Duration.hours(1),
          sizeOf: (answer) => answer.bytes,
          capacity: 100
        })
      const first = (yield* cacheOf()).get
      const second = (yield* cacheOf()).get
      yield* first("a")
      yield* second("b")
      assert.strictEqual(yield* held, 800)
      yield* first("c") // 1,200 bytes: "a", the oldest, goes
      assert.strictEqual(yield* held, 800)
      yield* second("b")
      yield* first("c")
      assert.deepStrictEqual(lookups, ["a", "b", "c"], "b and c are still cached")
      yield* first("a")
      assert.deepStrictEqual(lookups, ["a", "b", "c", "a"], "a was evicted, so it is looked up again")
    }))

  it.effect("an answer larger than the bound is answered, not kept", () =>
    Effect.gen(function*() {
      const budget = ByteBoundedCache.makeBudget(100)
      const held = Effect.map(budget.usage, (usage) => usage.bytes)
      let lookups = 0
      const cache = (yield* budget.cache({
        lookup: (_: string) => Effect.sync(() => ({ bytes: 700_000, storedAt: ++lookups })),
        timeToLive: () => Duration.hours(1),
        sizeOf: (answer) => answer.bytes,
        capacity: 100
      })).get
      assert.strictEqual((yield* cache("big")).bytes, 700_000)
      assert.strictEqual(yield* held, 0)
      yield* cache("big")
      assert.strictEqual(lookups, 2)
    }))
})

layer(BetsApiApp(), live)("BetsAPI provider: cache keys and retries", (it) => {
  it.effect("sport_id=1, 01 and 001 are one upstream call; league_id=94 and 094 too", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const { token } = yield* givenPartner()
      fake.reset()
      for (const sportId of ["1", "01", "001"]) {
        assert.strictEqual((yield* get(token, `/sports/leagues?sport_id=${sportId}`)).status, 200)
      }
      assert.strictEqual(fake.calls.filter((call) => call.path === "/v1/league").length, 1)
      const client = yield* partnerClient(token)
      for (const leagueId of ["94", "094"]) {
        const answered = yield* client.sports.upcoming({ query: { league_id: leagueId } })
        assert.isArray(answered.data.results, leagueId)
      }
      const upcoming = fake.calls.filter((call) => call.path === "/v3/events/upcoming")
      assert.strictEqual(upcoming.length, 1)
      assert.strictEqual(upcoming[0].query.league_id, "94")
    }))

  it.effect("an event id with leading zeros is the same event, and the same upstream call", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const client = yield* givenClient
      fake.reset()
      const padded = yield* client.sports.result({ params: { eventId: "01003" }, query: {} })
      const plain = yield* client.sports.result({ params: { eventId: "1003" }, query: {} })
      assert.deepStrictEqual(padded.data, plain.data)
      assert.deepStrictEqual(fake.calls.map((call) => call.query.event_id), ["1003"])
    }))

  it.effect("a GET that fails transiently (503, then a dropped connection) is tried again and answers", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const client = yield* givenClient
      fake.reset()
      const failures = [
        { kind: "json", status: 503, body: { success: 0, error: "UNDER_MAINTENANCE" } } as const,
        { kind: "close" } as const
      ]
      fake.script((call) => failures.shift() ?? healthyBetsApi(call))
      const response = yield* client.sports.leagues({ query: { sport_id: 18 } })
      assert.strictEqual(response.data.provider, "betsapi")
      assert.strictEqual(fake.calls.length, 3)
      fake.reset()
    }))

  it.effect("an answer the provider refuses in its envelope (a 4xx) is not tried again", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const client = yield* givenClient
      fake.reset()
      fake.script(() => ({ kind: "json", status: 429, body: { success: 0, error: "TOO_MANY_REQUESTS" } }))
      const refused = yield* failsWith(ProviderUnavailable)(client.sports.leagues({ query: { sport_id: 91 } })) // a 502
      assert.match(refused.message, /TOO_MANY_REQUESTS/)
      assert.strictEqual(fake.calls.length, 1)
      fake.reset()
    }))
})

layer(BetsApiApp({ rateLimitPerHour: 20 }), live)("BetsAPI provider: retries within the hourly quota", (it) => {
  it.effect("each retry spends the quota: with two calls left, a failing call is sent twice and refused", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const client = yield* givenClient
      fake.reset()
      // A quota of 20 an hour starts with a burst of 2.
      fake.script(() => ({ kind: "json", status: 502, body: { success: 0 } }))
      const refused = yield* failsWith(ProviderUnavailable)(client.sports.leagues({ query: { sport_id: 13 } })) // a 502
      assert.match(refused.message, /hourly quota/)
      assert.strictEqual(fake.calls.length, 2)
      fake.reset()
    }))
})

layer(BetsApiApp({ cacheMaxSize: ByteSize.bytes(1_200) }), live)("BetsAPI provider under a small cache bound", (it) => {
  it.effect("answers past the bound are evicted, oldest first, and fetched again when asked", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const client = yield* givenClient
      fake.reset()
      const leagueCalls = () => fake.calls.filter((call) => call.path === "/v1/league").length
      const leagues = client.sports.leagues({ query: { sport_id: 1 } })
      yield* leagues
      yield* leagues
      assert.strictEqual(leagueCalls(), 1, "a league list (about 400 bytes) fits")
      // Two event lists (about 700 bytes each) push the league list out.
      yield* client.sports.upcoming({ query: { sport_id: 1 } })
      yield* client.sports.live({ query: { sport_id: 1 } })
      yield* leagues
      assert.strictEqual(leagueCalls(), 2)
    }))
})
