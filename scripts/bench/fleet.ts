/**
 * `npm run bench -- fleet`: one instance, then three on one database and one
 * Redis, doing the same work against a BetsAPI stand-in that counts its
 * calls: the same schedules (a full refresh every 10 s, the live one every
 * 2 s) and the same partner traffic (20 partners asking for the odds of 150
 * events, in the same order, spread over the instances). Prints the
 * provider calls of each and their ratio (the goal: at most 1.25), and the
 * partners' p50/p99 through each; then three without Redis, for comparison.
 * Provider answers live at most 5 s, so that work done twice shows.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { redisAnswers as redisAnswersAt, removeKeysUnder } from "../../test/support/RedisKeys.ts"
import { hashToken } from "../../src/partners/Partners.ts"
import { type BenchContext, fakeBetsApi, scopedDatabase, type ServiceInstance } from "./context.ts"

const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"
const seconds = Number(process.env.BENCH_FLEET_SECONDS ?? 30)
const requestsPerSecond = Number(process.env.BENCH_FLEET_RATE ?? 40)
const partners = 20
const events = 150

const redisAnswers = Effect.promise(() => redisAnswersAt(redisUrl))

/** Removes the run's keys. */
const dropKeys = (prefix: string) => Effect.promise(() => removeKeysUnder(redisUrl, prefix))

const tokenOf = (i: number) => `pak_bench_fleet_${String(i).padStart(2, "0")}_${"x".repeat(27)}`

/** A seeded pseudo-random sequence (mulberry32): every run spreads the same requests the same way. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/**
 * The same partner traffic for every run: request n asks for event (n * 37) mod 150, as partner
 * n mod 20, through an instance drawn from a seeded sequence (as a load balancer spreads them).
 */
const drive = (instances: ReadonlyArray<ServiceInstance>) =>
  Effect.promise(async () => {
    const latencies: Array<number> = []
    let failed = 0
    // Non-200 answers by status and message, so a failing run says what failed.
    const refusals = new Map<string, number>()
    const total = seconds * requestsPerSecond
    const gap = 1000 / requestsPerSecond
    const started = performance.now()
    const pending: Array<Promise<void>> = []
    const draw = seeded(42)
    for (let n = 0; n < total; n++) {
      const due = started + n * gap
      const wait = due - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const instance = instances[Math.floor(draw() * instances.length)]
      const at = performance.now()
      pending.push(
        fetch(`${instance.url}/api/partner/v1/sports/events/${5_000_000 + ((n * 37) % events)}/odds`, {
          headers: { authorization: `Bearer ${tokenOf(n % partners)}` }
        }).then(async (response) => {
          const body = await response.text()
          if (response.status !== 200) {
            failed++
            const what = `${response.status} ${body.slice(0, 160)}`
            refusals.set(what, (refusals.get(what) ?? 0) + 1)
          }
          latencies.push(performance.now() - at)
        })
      )
    }
    await Promise.all(pending)
    latencies.sort((a, b) => a - b)
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]
    return { requests: total, failed, refusals, p50: at(0.5), p99: at(0.99) }
  })

export const fleetScenario = (context: BenchContext) =>
  Effect.gen(function*() {
    if (!(yield* redisAnswers)) {
      console.log(`\n!!! fleet: no Redis answers at ${redisUrl} (BENCH_REDIS_URL): the scenario is SKIPPED !!!\n`)
      return
    }
    const { calls: callsSoFar, url: fake } = yield* fakeBetsApi({ CATALOG_EVENTS: "500", CATALOG_LEAGUES: "20" })

    const run = (size: number, redis: boolean) =>
      Effect.gen(function*() {
        const name = `${size}_${redis ? "redis" : "memory"}`
        const database = yield* scopedDatabase(context, `partner_api_bench_fleet_${process.pid}_${name}`)
        const prefix = `pag-bench-${process.pid}-${name}:`
        yield* Effect.addFinalizer(() => Effect.ignore(dropKeys(prefix)))
        const env = {
          DATABASE_URL: database,
          SPORTS_PROVIDER: "betsapi",
          BETSAPI_BASE_URL: fake,
          BETSAPI_TOKEN: "bench-token",
          SPORTS_PROVIDER_RATE_LIMIT: "1000000",
          // Shorter than the refresh interval, so that a refresh run twice reaches the provider twice.
          SPORTS_PROVIDER_CACHE_TTL_MAX: "5 seconds",
          CATALOG_SPORT_IDS: "1",
          CATALOG_REFRESH_INTERVAL: "10 seconds",
          CATALOG_LIVE_REFRESH_INTERVAL: "2 seconds",
          ...(redis ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, FLEET_SIZE: String(size) } : {})
        }
        const before = yield* callsSoFar
        const instances: Array<ServiceInstance> = []
        for (let i = 0; i < size; i++) instances.push(yield* context.startService(env))
        const sql = Context.get(
          yield* Layer.build(PgClient.layer({ url: Redacted.make(database), maxConnections: 1 })),
          SqlClient.SqlClient
        )
        for (let i = 0; i < partners; i++) {
          yield* sql`
            WITH p AS (INSERT INTO partners (name, slug) VALUES (${`Fleet ${i}`}, ${`fleet-${i}`}) RETURNING id),
                 e AS (INSERT INTO partner_environments (partner_id, environment) SELECT id, 'live' FROM p RETURNING partner_id)
            INSERT INTO partner_tokens (partner_id, environment, token_hash) SELECT partner_id, 'live', ${
            hashToken(tokenOf(i))
          } FROM e
          `
        }
        const traffic = yield* drive(instances)
        return { ...traffic, upstream: (yield* callsSoFar) - before }
      }).pipe(Effect.scoped)

    const one = yield* run(1, false)
    const three = yield* run(3, true)
    const threeAlone = yield* run(3, false)
    const ms = (value: number) => `${value.toFixed(1)} ms`
    console.log([
      "",
      `fleet: the same schedules (full refresh every 10 s over 500 events, live every 2 s) and the same partner traffic`,
      `(${requestsPerSecond} odds requests/s for ${seconds} s from ${partners} partners over ${events} events), one instance, then three on one Redis`,
      `  one instance:    upstream calls ${one.upstream}, partner p50 ${ms(one.p50)}, p99 ${
        ms(one.p99)
      }, non-200 ${one.failed} of ${one.requests}`,
      `  three instances: upstream calls ${three.upstream}, partner p50 ${ms(three.p50)}, p99 ${
        ms(three.p99)
      }, non-200 ${three.failed} of ${three.requests}`,
      `  ratio of upstream calls, three to one: ${
        (three.upstream / Math.max(1, one.upstream)).toFixed(2)
      } (goal: at most 1.25)`,
      `  for comparison, three instances without Redis (schedules still once per fleet, caches and quotas each its own):`,
      `                   upstream calls ${threeAlone.upstream} (ratio ${
        (threeAlone.upstream / Math.max(1, one.upstream)).toFixed(2)
      }), partner p99 ${ms(threeAlone.p99)}`
    ].join("\n"))
    for (
      const [label, traffic] of [["one instance", one], ["three on Redis", three], [
        "three without Redis",
        threeAlone
      ]] as const
    ) {
      for (const [what, count] of traffic.refusals) console.log(`  ${label}, non-200: ${count} x ${what}`)
    }
  }).pipe(Effect.scoped)
