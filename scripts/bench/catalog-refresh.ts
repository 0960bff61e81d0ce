/**
 * The catalog's refresh at scale: 100,000 upcoming events (BENCH_REFRESH_EVENTS) from a BetsAPI stand-in through the
 * real import path into the 1,000,000-event catalog, twice (all new, then none changed), against a COPY of the same
 * rows, and each BENCH_BASELINE revision's refresh in the same run.
 */
import { Effect } from "effect"
import { type BenchContext, type FakeBetsApi, fakeBetsApi, memoryOf, type ServiceInstance } from "./context.ts"
import { copyFloor } from "./copy-floor.ts"
import { recordGoal } from "./goals.ts"

const refreshEvents = Number(process.env.BENCH_REFRESH_EVENTS ?? 100_000)

const refreshEnv = (fake: string) => ({
  SPORTS_PROVIDER: "betsapi",
  BETSAPI_BASE_URL: fake,
  BETSAPI_TOKEN: "bench-token",
  SPORTS_PROVIDER_RATE_LIMIT: "100000000",
  SPORTS_PROVIDER_CACHE_TTL_MAX: "0 seconds",
  CATALOG_SPORT_IDS: "1"
})

/** Two refreshes through `service` from the stand-in: the first brings every event in, the second finds none changed. */
const refreshTwice = (context: BenchContext, service: ServiceInstance, { calls }: FakeBetsApi) =>
  Effect.gen(function*() {
    const refresh = Effect.gen(function*() {
      const before = yield* calls
      const loggedBefore = service.output.filter((line) => line.includes("\"Sports catalog refreshed\"")).length
      const started = performance.now()
      const response = yield* Effect.promise(() =>
        fetch(`${service.url}/api/partner/v1/sports/catalog/refresh`, {
          method: "POST",
          headers: { authorization: `Bearer ${context.token}`, "content-type": "application/json" },
          body: JSON.stringify({ sport_id: 1 })
        })
      )
      const body = (yield* Effect.promise(() => response.json())) as { message?: string }
      const elapsed = (performance.now() - started) / 1000
      if (response.status !== 200) {
        return yield* Effect.die(`refresh answered ${response.status}: ${JSON.stringify(body)}`)
      }
      // The service logs how the time split between fetching from the provider and publishing (a moment later).
      const refreshedLines = () => service.output.filter((line) => line.includes("\"Sports catalog refreshed\""))
      while (refreshedLines().length <= loggedBefore && performance.now() - started < elapsed * 1000 + 2_000) {
        yield* Effect.sleep("20 millis")
      }
      const logged = refreshedLines()[loggedBefore]
      const phases = logged === undefined ? {} : JSON.parse(logged) as { fetch_ms?: number; publish_ms?: number }
      return {
        elapsed,
        upstreamCalls: (yield* calls) - before,
        message: body.message ?? "",
        split: `fetch ${((phases.fetch_ms ?? NaN) / 1000).toFixed(1)} s + publish ${
          ((phases.publish_ms ?? NaN) / 1000).toFixed(1)
        } s`
      }
    })
    return { first: yield* refresh, second: yield* refresh, memory: yield* memoryOf(service.pid) }
  })

/**
 * The 100,000-event refresh into the catalog above, then the same rows written by COPY (copy-floor.ts); and
 * each BENCH_BASELINE revision's refresh into its own copy of the catalog, in the same run.
 */
export const refreshScenario = (context: BenchContext, revisions: ReadonlyArray<Revision>) =>
  Effect.gen(function*() {
    const fake = yield* fakeBetsApi({ CATALOG_EVENTS: String(refreshEvents) })
    // One refreshing instance at a time, each stopped after its refreshes: the database's connections are few.
    const { first, memory, second } = yield* Effect.scoped(
      Effect.flatMap(context.startService(refreshEnv(fake.url)), (service) => refreshTwice(context, service, fake))
    )
    const floor = yield* copyFloor(context.databaseUrl)
    const before = yield* Effect.forEach(revisions, (revision) =>
      Effect.scoped(Effect.gen(function*() {
        const instance = yield* revision.instance.startAgain(refreshEnv(fake.url))
        return { revision: revision.revision, ...(yield* refreshTwice(context, instance, fake)) }
      })))
    const count = refreshEvents.toLocaleString("en-US")
    console.log([
      "",
      `POST /sports/catalog/refresh {sport_id: 1}: ${count} upcoming events from a BetsAPI stand-in (50 a page), into the catalog above`,
      `  first (all new):       ${
        first.elapsed.toFixed(1)
      } s (${first.split}), ${first.upstreamCalls} upstream calls, ${
        Math.round(refreshEvents / first.elapsed).toLocaleString("en-US")
      } events/s`,
      `    ${first.message}`,
      `  again (none changed):  ${
        second.elapsed.toFixed(1)
      } s (${second.split}), ${second.upstreamCalls} upstream calls`,
      `    ${second.message}`,
      memory === null
        ? ""
        : `  service memory: ${memory.rss.toFixed(0)} MiB resident after, ${memory.peak.toFixed(0)} MiB at peak`,
      `  COPY of the same ${floor.rows.toLocaleString("en-US")} rows (${
        floor.events.toLocaleString("en-US")
      } events, their teams, ` +
      `leagues and memberships) into empty tables with the same indexes, one transaction: ${
        floor.seconds.toFixed(1)
      } s`,
      ...before.map((b) =>
        `  at ${b.revision}: first ${b.first.elapsed.toFixed(1)} s (${b.first.split}), again ${
          b.second.elapsed.toFixed(1)
        } s (${b.second.split})`
      )
    ].join("\n"))
    recordGoal({
      path: `catalog refresh, ${count} events (all new; again with none changed)`,
      baseline: `COPY of the same rows: ${floor.seconds.toFixed(1)} s`,
      service: `${first.elapsed.toFixed(1)} s (${first.split}); again ${second.elapsed.toFixed(1)} s`,
      figure: `${first.elapsed.toFixed(1)} s, ${(first.elapsed / floor.seconds).toFixed(1)} x the COPY`,
      goal: "< 15 s",
      met: first.elapsed < 15,
      revisions: before.map((b) => ({
        revision: b.revision,
        figure: `${b.first.elapsed.toFixed(1)} s; again ${b.second.elapsed.toFixed(1)} s`
      }))
    })
  }).pipe(Effect.scoped)

/** A BENCH_BASELINE revision with its own copy of the catalog. */
export interface Revision {
  readonly revision: string
  readonly instance: Effect.Success<ReturnType<BenchContext["startRevision"]>>
}
