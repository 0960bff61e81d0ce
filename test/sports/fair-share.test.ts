import { assert, describe, it, layer } from "@effect/vitest"
import { inject } from "vitest"
import { Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { RateLimiter } from "effect/persistence"
import { SharedStoreConfig } from "../../src/platform/SharedStore.ts"
import { SharedStoresLive } from "../../src/server.ts"
import { ProviderCaller, providerQuota, quotaShares } from "../../src/sports/ProviderQuota.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { SportsProvider } from "../../src/sports/SportsProvider.ts"
import { betsApiToken, healthyBetsApi } from "../support/BetsApiScripts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { scopedKeyPrefix, testRedisUrl } from "../support/FleetApp.ts"
import { eventually, live } from "../support/live.ts"
import { givenPartner, TestAppWith, testSharedStoreConfig, testSportsConfig } from "../support/TestApp.ts"

/** One instance (memory stores) over the fake BetsAPI with the given budget and shares. */
const app = (sports: Partial<SportsConfig["Service"]>) =>
  TestAppWith(
    Layer.effect(
      SportsConfig,
      Effect.map(Effect.service(FakeUpstream), (fake) =>
        testSportsConfig({
          provider: "betsapi",
          timeout: Duration.millis(400),
          betsapi: { baseUrl: fake.url, token: Option.some(Redacted.make(betsApiToken)) },
          ...sports
        }))
    )
  ).pipe(Layer.provideMerge(FakeUpstream.layer(healthyBetsApi)))

/** A GET with its headers (the shared `request` helper keeps only the body). */
const get = (token: string, path: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.get(`/api/partner/v1${path}`, { headers: { authorization: `Bearer ${token}` } })
    const body = yield* response.json
    return { status: response.status, headers: response.headers, body: body as any }
  }).pipe(Effect.orDie)

describe("the hourly budget's shares", () => {
  it("a partner gets its share, partners together what the reserve leaves, never less than one call", () => {
    const shares = (rateLimitPerHour: number, partnerQuotaShare: number, scheduledReserve: number) =>
      quotaShares(testSportsConfig({ rateLimitPerHour, partnerQuotaShare, scheduledReserve }))
    assert.deepStrictEqual(shares(3600, 0.25, 0.25), {
      wholePerHour: 3600,
      partnersPerHour: 2700,
      perPartnerPerHour: 900
    })
    // A share above what partners together may spend is capped there.
    assert.deepStrictEqual(shares(3600, 1, 0.5), { wholePerHour: 3600, partnersPerHour: 1800, perPartnerPerHour: 1800 })
    assert.deepStrictEqual(shares(10, 0.01, 0.99), { wholePerHour: 10, partnersPerHour: 1, perPartnerPerHour: 1 })
    // Fractions are read as the decimals they are written as: 600 x (1 - 0.9) is 60 calls.
    assert.strictEqual(shares(600, 1, 0.9).partnersPerHour, 60)
  })
})

layer(app({ rateLimitPerHour: 3600, partnerQuotaShare: 0.001, scheduledReserve: 0.25 }), live)(
  "a partner past its share",
  (it) => {
    it.effect("gets the 502 of an exhausted quota, and another partner is answered", () =>
      Effect.gen(function*() {
        const flooder = yield* givenPartner({ name: "Flooder" })
        const other = yield* givenPartner({ name: "Other" })
        // 3 calls an hour: a burst of one. Each unknown event costs a call (then remembered as not found).
        const answers = yield* Effect.forEach(
          [9001, 9002, 9003, 9004],
          (id) => get(flooder.token, `/sports/events/${id}/odds`)
        )
        assert.deepStrictEqual(answers.map((answer) => answer.status), [404, 502, 502, 502])
        assert.strictEqual(
          answers[1].body.message,
          "The sports provider could not be queried: Your share of the sports provider's hourly quota (3 calls) is in use; retry shortly."
        )
        assert.strictEqual(answers[1].body.provider_response.error, "RateLimited")
        // What is cached costs no share.
        assert.strictEqual((yield* get(flooder.token, "/sports/events/9001/odds")).status, 404)

        const first = yield* get(other.token, "/sports/events/1002/odds")
        assert.strictEqual(first.status, 200)
        assert.deepStrictEqual([first.headers["x-cache"], first.headers["age"]], ["MISS", "0"])
        // Read again until the kept answer is a second old: every read a HIT, on no share of the quota.
        const again = yield* eventually(
          get(other.token, "/sports/events/1002/odds"),
          (answer) => Number(answer.headers["age"]) >= 1,
          "the kept answer a second old"
        )
        assert.strictEqual(again.headers["x-cache"], "HIT")
      }))
  }
)

layer(app({ rateLimitPerHour: 600, partnerQuotaShare: 0.05, scheduledReserve: 0.9 }), live)("the reserve", (it) => {
  it.effect("partners together cannot spend it: the service's own calls still go through", () =>
    Effect.gen(function*() {
      // Each partner may spend 30 an hour (a burst of 3); partners together 60 (a burst of 6).
      const partners = yield* Effect.forEach(["A", "B", "C"], (name) => givenPartner({ name: `Greedy ${name}` }))
      const ask = (token: string, ids: ReadonlyArray<number>) =>
        Effect.forEach(ids, (id) => get(token, `/sports/events/${id}/odds`))
      const first = yield* ask(partners[0].token, [9100, 9101, 9102])
      const second = yield* ask(partners[1].token, [9103, 9104, 9105])
      assert.deepStrictEqual([...first, ...second].map((answer) => answer.status), [404, 404, 404, 404, 404, 404])
      const third = yield* ask(partners[2].token, [9106])
      assert.strictEqual(third[0].status, 502)
      assert.match(third[0].body.message, /The partners' part of the sports provider's hourly quota \(60 calls\)/)
      // The scheduled refreshes (the service's own calls) are not counted against partners.
      const provider = yield* SportsProvider
      const leagues = yield* provider.leagues({ sportId: 1, page: 1 })
      assert.strictEqual(leagues.value.results.length, 3)
    }))
})

/** The provider's quota under `sports`, counted in `limiter`'s store; `name` keeps its keys apart from other tests'. */
const quotaIn = (
  limiter: Layer.Layer<RateLimiter.RateLimiter>,
  sports: Partial<SportsConfig["Service"]>,
  name: string
) => providerQuota(name).pipe(Effect.provideService(SportsConfig, testSportsConfig(sports)), Effect.provide(limiter))

const asPartner = (partnerId: number) => Effect.provideService(ProviderCaller, { _tag: "Partner", partnerId })

/** Takes from `quota` until it refuses, and returns that refusal. */
const takeUntilRefused = <E>(quota: (attempt: number) => Effect.Effect<void, E>) =>
  Effect.gen(function*() {
    for (let attempt = 1; attempt <= 10_000; attempt++) {
      const exit = yield* Effect.exit(quota(attempt))
      if (Exit.isFailure(exit)) return { attempt, error: yield* Effect.flip(Effect.failCause(exit.cause)) }
    }
    return yield* Effect.die("the quota never refused")
  })

/**
 * A partner's call is counted against its share, then partners' part, then the whole quota. When a later
 * one refuses, the tokens the earlier ones gave are given back: the call was not made. Each partner's share
 * here is one call every half hour, so a share that was not given back shows for the rest of the test.
 */
const refusalsGiveBack = (limiter: Layer.Layer<RateLimiter.RateLimiter>) =>
  Effect.gen(function*() {
    // The whole quota (a burst of 60, then one a second) emptied by the service's own calls.
    const whole = yield* quotaIn(
      limiter,
      { rateLimitPerHour: 3600, partnerQuotaShare: 0.001, scheduledReserve: 0 },
      "refund-whole"
    )
    yield* takeUntilRefused(() => whole)
    const refusedByWhole = yield* Effect.flip(asPartner(1)(whole))
    assert.match(refusedByWhole.message, /^The sports provider's hourly quota/)
    // Its share and partners' part were given back: once the whole quota has a token again, the call goes through.
    yield* eventually(
      Effect.exit(asPartner(1)(whole)),
      Exit.isSuccess,
      "the partner's call once the whole quota has a token"
    )

    // Partners' part (a burst of 60, then one a second) emptied by partners calling once each.
    const parts = yield* quotaIn(limiter, {
      rateLimitPerHour: 36_000,
      partnerQuotaShare: 0.0001,
      scheduledReserve: 0.9
    }, "refund-partners")
    const { attempt: lastPartner, error: refusedByPart } = yield* takeUntilRefused((partner) =>
      asPartner(partner)(parts)
    )
    assert.match(refusedByPart.message, /^The partners' part of the sports provider's hourly quota/)
    // That partner's share was given back: once partners' part has a token again, its call goes through.
    yield* eventually(
      Effect.exit(asPartner(lastPartner)(parts)),
      Exit.isSuccess,
      "the partner's call once partners' part has a token"
    )
  })

describe("a call refused by a later budget", () => {
  it.live(
    "gives back what the earlier budgets gave (memory)",
    () => refusalsGiveBack(RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))),
    30_000
  )

  it.live.skipIf(!inject("redisAvailable"))(
    "gives back what the earlier budgets gave (Redis)",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const keyPrefix = yield* scopedKeyPrefix("refund")
        const stores = SharedStoresLive.pipe(Layer.provide(Layer.succeed(
          SharedStoreConfig,
          testSharedStoreConfig({
            redisUrl: Option.some(Redacted.make(testRedisUrl)),
            keyPrefix
          })
        )))
        const limiter = yield* Layer.build(stores)
        yield* refusalsGiveBack(Layer.succeedContext(limiter))
      })),
    30_000
  )
})
