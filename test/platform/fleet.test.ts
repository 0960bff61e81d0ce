import { assert, describe, layer } from "@effect/vitest"
import { inject } from "vitest"
import { Context, Duration, Effect, Layer } from "effect"
import { Partners } from "../../src/partners/Partners.ts"
import { catalogProvider, providerEvents } from "../support/CatalogScripts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import {
  type Answer,
  baseUrlOf,
  FleetInstance,
  type FleetSettings,
  get,
  RedisProxy,
  scopedKeyPrefix,
  testRedisUrl
} from "../support/FleetApp.ts"
import { eventually, live } from "../support/live.ts"
import { TestDatabaseUrlLive } from "../support/TestDatabase.ts"

// Asked once per run by the global set-up, which says so when the fleet tests are skipped.
const redisUp = inject("redisAvailable")

const providerData = { events: providerEvents() }
const prefix = "/api/partner/v1"

/** Three instances (or `size`) on the test's database and one Redis, each with its own address. */
const fleet = (
  settings: Omit<FleetSettings, "redisUrl" | "keyPrefix"> & { readonly size?: number; readonly name: string }
) =>
  Effect.gen(function*() {
    const keyPrefix = yield* scopedKeyPrefix(settings.name)
    const instances: Array<{ readonly url: string; readonly context: Context.Context<Partners> }> = []
    for (let i = 0; i < (settings.size ?? 3); i++) {
      const context = yield* Layer.build(FleetInstance({ ...settings, redisUrl: testRedisUrl, keyPrefix }))
      instances.push({ url: yield* Effect.provide(baseUrlOf, context), context })
    }
    return instances
  })

const givenToken = (instance: { readonly context: Context.Context<Partners> }, name: string) =>
  Effect.map(
    Effect.orDie(Effect.flatMap(Effect.service(Partners), (partners) => partners.create({ name }))).pipe(
      Effect.provide(instance.context)
    ),
    (created) => created.token
  )

const callsTo = (fake: FakeUpstream["Service"], path: string) => fake.calls.filter((call) => call.path === path).length

describe.skipIf(!redisUp)("a fleet of instances on one database and one Redis", () => {
  layer(Layer.mergeAll(FakeUpstream.layer(catalogProvider(providerData)), TestDatabaseUrlLive), {
    ...live,
    timeout: 120_000
  })(
    "behaves as one toward the provider",
    (it) => {
      it.effect(
        "runs each scheduled refresh once per interval across the fleet",
        () =>
          Effect.scoped(Effect.gen(function*() {
            const fake = yield* FakeUpstream
            yield* fleet({
              name: "schedule",
              scheduled: true,
              // Answers never reused: every refresh that runs reaches the fake.
              sports: { cacheTtlMax: Duration.zero },
              catalog: { refreshInterval: Duration.seconds(1), liveRefreshInterval: Duration.hours(1) }
            })
            // One full refresh asks for the league list once: its count is the number of refreshes.
            const before = callsTo(fake, "/v1/league")
            const started = performance.now()
            // Four refreshes, however long a busy machine takes to run them (no fixed wait)...
            yield* eventually(
              Effect.sync(() => callsTo(fake, "/v1/league") - before),
              (n) => n >= 4,
              "four scheduled refreshes"
            )
            const refreshes = callsTo(fake, "/v1/league") - before
            const intervals = (performance.now() - started) / 1_000
            // ...and no more than one per interval across the fleet: three instances on their own would have run
            // about three a second. A slow machine only runs fewer, so only the upper bound is asserted.
            assert.isAtMost(refreshes, Math.ceil(intervals) + 1, `${refreshes} refreshes in ${intervals.toFixed(1)} s`)
          })),
        60_000
      )

      it.effect("an identical partner request sent to every instance reaches the provider once", () =>
        Effect.scoped(Effect.gen(function*() {
          const fake = yield* FakeUpstream
          const instances = yield* fleet({ name: "single-flight" })
          const token = yield* givenToken(instances[0], "Acme")
          const path = `${prefix}/sports/events/70007/odds`
          const oddsCalls = () =>
            fake.calls.filter((call) => call.path === "/v2/event/odds" && call.query.event_id === "70007").length

          const first = yield* Effect.forEach(instances, (instance) => get(instance.url, path, token), {
            concurrency: "unbounded"
          })
          assert.deepStrictEqual(first.map((answer) => answer.status), [200, 200, 200])
          assert.strictEqual(oddsCalls(), 1)
          assert.deepStrictEqual(first.map((answer) => answer.headers.get("x-cache")).sort(), ["HIT", "HIT", "MISS"])

          // Read again until the kept answer is a second old on every instance: each read a HIT of the one call.
          const again = yield* eventually(
            Effect.forEach(instances, (instance) => get(instance.url, path, token)),
            (answers) => answers.every((answer) => Number(answer.headers.get("age")) >= 1),
            "an answer a second old on every instance"
          )
          assert.strictEqual(oddsCalls(), 1)
          assert.deepStrictEqual(again.map((answer) => answer.headers.get("x-cache")), ["HIT", "HIT", "HIT"])
        })))

      it.effect("holds the hourly quota fleet-wide", () =>
        Effect.scoped(Effect.gen(function*() {
          const fake = yield* FakeUpstream
          // 100 calls an hour: a burst of 10, then one every 40 s.
          const instances = yield* fleet({ name: "quota", sports: { rateLimitPerHour: 100 } })
          const token = yield* givenToken(instances[0], "Busy")
          const before = fake.calls.length
          const answers = yield* Effect.forEach(
            Array.from({ length: 30 }, (_, i) => i),
            (i) => get(instances[i % 3].url, `${prefix}/sports/events/${70_030 + i}/odds`, token),
            { concurrency: 6 }
          )
          const reached = fake.calls.length - before
          // Each instance on its own would have let 10 through: 30 in all.
          assert.isAtMost(reached, 11)
          const refused = answers.filter((answer) => answer.status === 502)
          assert.isAtLeast(refused.length, 15)
          assert.match(refused[0].body.message, /hourly quota/)
        })))

      it.effect("counts an address's invalid tokens fleet-wide", () =>
        Effect.scoped(Effect.gen(function*() {
          const instances = yield* fleet({ name: "invalid-tokens", app: { authFailureLimit: 3 } })
          const guesses = yield* Effect.forEach(
            Array.from({ length: 6 }, (_, i) => i),
            (i) => get(instances[i % 3].url, `${prefix}/status`, `pak_fleet_guess_${i}_${"x".repeat(30)}`),
            { concurrency: 1 }
          )
          // Each instance on its own would have answered all six 401 (three each at most 2).
          assert.deepStrictEqual(guesses.map((answer) => answer.status), [401, 401, 401, 429, 429, 429])
          assert.match(guesses[3].headers.get("retry-after") ?? "", /^[1-9][0-9]*$/)
        })))

      it.effect("one partner's flood starves neither another partner nor the live refresh", () =>
        Effect.scoped(Effect.gen(function*() {
          const fake = yield* FakeUpstream
          const instances = yield* fleet({
            name: "fair-share",
            scheduled: true,
            // One partner: 3 calls an hour (a burst of 1); partners together: half of the 36,000.
            // Answers never reused, so that each live refresh reaches the fake.
            sports: {
              rateLimitPerHour: 36_000,
              partnerQuotaShare: 0.0001,
              scheduledReserve: 0.5,
              cacheTtlMax: Duration.zero
            },
            catalog: { refreshInterval: Duration.hours(1), liveRefreshInterval: Duration.millis(500) }
          })
          const flooder = yield* givenToken(instances[0], "Flooder")
          const other = yield* givenToken(instances[1], "Other")
          const flood = yield* Effect.forEach(
            Array.from({ length: 30 }, (_, i) => i),
            (i) => get(instances[i % 3].url, `${prefix}/sports/events/${70_060 + i}/result`, flooder),
            { concurrency: 6 }
          )
          const refused = flood.filter((answer: Answer) => answer.status === 502)
          assert.isAtLeast(refused.length, 28)
          assert.match(refused[0].body.message, /Your share of the sports provider's hourly quota/)

          const answer = yield* get(instances[2].url, `${prefix}/sports/events/70095/result`, other)
          assert.strictEqual(answer.status, 404, "the other partner reaches the provider (the event has no result yet)")

          const inPlay = callsTo(fake, "/v3/events/inplay")
          yield* eventually(
            Effect.sync(() => callsTo(fake, "/v3/events/inplay")),
            (n) => n >= inPlay + 2,
            "live refreshes after the flood"
          )
        })))

      it.effect("keeps answering while its Redis is down, says so on /ready, and shares again once it is back", () =>
        Effect.scoped(Effect.gen(function*() {
          const fake = yield* FakeUpstream
          const proxy = yield* RedisProxy()
          const keyPrefix = yield* scopedKeyPrefix("outage")
          const context = yield* Layer.build(FleetInstance({ redisUrl: proxy.url, keyPrefix }))
          const url = yield* Effect.provide(baseUrlOf, context)
          const token = yield* givenToken({ context }, "Steady")
          const ready = () => Effect.map(get(url, "/ready"), (answer) => answer.body.shared_store)

          assert.strictEqual(yield* ready(), "redis")
          assert.strictEqual((yield* get(url, `${prefix}/sports/events/70100/odds`, token)).status, 200)

          yield* proxy.cut
          const readiness = yield* get(url, "/ready")
          assert.deepStrictEqual([readiness.status, readiness.body.shared_store], [200, "redis-unreachable"])
          const before = fake.calls.length
          const during = yield* get(url, `${prefix}/sports/events/70101/odds`, token)
          assert.strictEqual(during.status, 200)
          assert.strictEqual(during.headers.get("x-cache"), "MISS")
          assert.isAbove(fake.calls.length, before, "answered from the provider")

          yield* proxy.restore
          yield* eventually(ready(), (state) => state === "redis", "Redis shared again")
        })))

      it.effect("starts while its Redis is down, says so on /ready, and shares once Redis answers", () =>
        Effect.scoped(Effect.gen(function*() {
          const proxy = yield* RedisProxy()
          yield* proxy.cut
          const keyPrefix = yield* scopedKeyPrefix("down-at-start")
          const context = yield* Layer.build(FleetInstance({ redisUrl: proxy.url, keyPrefix }))
          const url = yield* Effect.provide(baseUrlOf, context)
          const token = yield* givenToken({ context }, "Early")
          const ready = () => Effect.map(get(url, "/ready"), (answer) => answer.body.shared_store)

          const readiness = yield* get(url, "/ready")
          assert.deepStrictEqual([readiness.status, readiness.body.shared_store], [200, "redis-unreachable"])
          const during = yield* get(url, `${prefix}/sports/events/70110/odds`, token)
          assert.strictEqual(during.status, 200, "answered from the provider")

          yield* proxy.restore
          yield* eventually(ready(), (state) => state === "redis", "Redis shared once it answers")
          // Shared: what this instance fetches now, another instance on the same Redis finds there.
          const other = yield* Layer.build(FleetInstance({ redisUrl: testRedisUrl, keyPrefix }))
          const otherUrl = yield* Effect.provide(baseUrlOf, other)
          const fetched = yield* get(url, `${prefix}/sports/events/70111/odds`, token)
          assert.deepStrictEqual([fetched.status, fetched.headers.get("x-cache")], [200, "MISS"])
          const found = yield* get(otherUrl, `${prefix}/sports/events/70111/odds`, token)
          assert.deepStrictEqual([found.status, found.headers.get("x-cache")], [200, "HIT"])
        })))
    }
  )
})
