/**
 * Three instances with Redis in front of one API-Football: the same partner reads, spread over the three at once,
 * spend no more calls than one instance alone; the minute's calls are counted once for the fleet, and a day spent
 * seen by one instance holds the others.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { Partners } from "../../../src/partners/Partners.ts"
import { FakeApiFootball, fixtures } from "../../support/FakeApiFootball.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { baseUrlOf, FleetInstance, get, scopedKeyPrefix, testRedisUrl } from "../../support/FleetApp.ts"
import { live } from "../../support/live.ts"
import { TestDatabaseUrlLive } from "../../support/TestDatabase.ts"

/** The reads a partner's pages make of one match day. */
const reads = [
  "/sports/leagues?sport_id=1",
  "/sports/events/live?sport_id=1",
  `/sports/events/live/${fixtures.live}`,
  `/sports/events/${fixtures.live}/lineup`,
  `/sports/events/${fixtures.live}/stats-trend`,
  `/sports/events/${fixtures.finished}/result`,
  `/sports/events/${fixtures.tomorrow}/odds`,
  `/sports/events/${fixtures.live}/odds/live`
].map((path) => `/api/partner/v1${path}`)

/** `count` instances on one Redis prefix of their own, each with its address and a partner token valid on all. */
const fleetOf = (count: number, callsPerMinute = 300) =>
  Effect.gen(function*() {
    const fake = yield* FakeApiFootball
    const keyPrefix = yield* scopedKeyPrefix("apifootball")
    const instances = yield* Effect.forEach(Array.from({ length: count }, (_, i) => i), () =>
      Effect.gen(function*() {
        const scope = yield* Effect.scope
        const context = yield* Layer.buildWithScope(
          FleetInstance({
            redisUrl: testRedisUrl,
            keyPrefix,
            fleetSize: count,
            sports: {
              provider: "apifootball",
              cacheTtlMax: Duration.minutes(5),
              apifootball: {
                baseUrl: fake.url,
                key: Option.some(Redacted.make(fake.key)),
                bookmakerId: 8,
                callsPerMinute
              }
            }
          }),
          scope
        )
        return { context, url: yield* Effect.provide(baseUrlOf, context) }
      }))
    const created = yield* Effect.flatMap(Effect.service(Partners), (partners) => partners.create({ name: "Fleet" }))
      .pipe(
        Effect.orDie,
        Effect.provide(instances[0].context)
      )
    return { urls: instances.map((instance) => instance.url), token: created.token }
  })

/** Every read, each sent to every instance of the fleet at once; answers' statuses. */
const readAll = (urls: ReadonlyArray<string>, token: string) =>
  Effect.forEach(reads, (path) => Effect.forEach(urls, (url) => get(url, path, token), { concurrency: "unbounded" }), {
    concurrency: "unbounded"
  }).pipe(Effect.map((answers) => answers.flat().map((answer) => answer.status)))

const Fakes = Layer.mergeAll(
  FakeApiFootball.layer,
  FakeUpstream.layer(() => ({ kind: "json", body: {} })),
  TestDatabaseUrlLive
)

layer(Fakes, { ...live, timeout: 60_000 })("API-Football behind a fleet", (it) => {
  it.effect("three instances spend no more calls than one", () =>
    Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      const alone = yield* Effect.scoped(Effect.gen(function*() {
        fake.reset()
        const { token, urls } = yield* fleetOf(1)
        const statuses = yield* readAll(urls, token)
        assert.isTrue(statuses.every((status) => status === 200), statuses.join(","))
        return fake.counted()
      }))
      const three = yield* Effect.scoped(Effect.gen(function*() {
        fake.reset()
        const { token, urls } = yield* fleetOf(3)
        const statuses = yield* readAll(urls, token)
        assert.isTrue(statuses.every((status) => status === 200), statuses.join(","))
        return fake.counted()
      }))
      assert.isAbove(alone, 0)
      assert.isAtMost(three, alone, `one instance: ${alone} calls, three: ${three}`)
    }))

  it.effect("the minute's calls are the fleet's: three instances bursting send no more than the limit", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      fake.reset()
      const { token, urls } = yield* fleetOf(3, 4)
      const days = Array.from(
        { length: 5 },
        (_, i) => new Date(Date.now() - (i + 2) * 86_400_000).toISOString().slice(0, 10).replaceAll("-", "")
      )
      yield* Effect.forEach(
        urls.flatMap((url) =>
          days.map((day) => get(url, `/api/partner/v1/sports/events/ended?sport_id=1&day=${day}`, token))
        ),
        (read) => read,
        { concurrency: "unbounded" }
      )
      assert.isAtMost(fake.counted(), 4)
    })))

  it.effect("a day spent that one instance sees holds the others", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* FakeApiFootball
      fake.reset()
      const { token, urls } = yield* fleetOf(3)
      fake.inject({ kind: "error", errors: { requests: "You have reached the request limit for the day" } })
      const spent = yield* get(urls[0], "/api/partner/v1/sports/events/live?sport_id=1", token)
      assert.strictEqual(spent.status, 502)
      const sent = fake.calls.length
      for (const url of urls.slice(1)) {
        const held = yield* get(url, `/api/partner/v1/sports/events/${fixtures.finished}/result`, token)
        assert.strictEqual(held.status, 502)
        assert.strictEqual(held.body.provider_response.error, "QuotaSpent")
      }
      assert.strictEqual(fake.calls.length, sent)
    })))
})
