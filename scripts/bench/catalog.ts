/**
 * The sports catalog at scale: 1,000,000 events and 50,000 teams loaded
 * straight into the tables, then the feeds, the dynamic filters and the
 * catalog lists under load (each against a raw node:http server answering
 * the first request's body), and a 100,000-event refresh through the real
 * import path from a BetsAPI stand-in (catalog-refresh.ts).
 *
 * The synthetic catalog is shaped like one that has run for a year: 2,000
 * leagues of 25 teams over five sports and 60 countries; events spread over
 * the last 330 days (ended, kept as history) and the next 28 (prematch,
 * about 78,000), a couple of hundred in play.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { refreshScenario, type Revision } from "./catalog-refresh.ts"
import { type BenchContext, fetchText, fixedBodyProcess, type Scenario } from "./context.ts"
import { databaseTimes } from "./explain.ts"
import { baselineRevisions, number, recordGoal } from "./goals.ts"
import { compare, type Comparison, printTable, type Target } from "./harness.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
/** Fewer connections than the throughput scenarios: these figures are about latency at a steady load. */
const connections = Number(process.env.BENCH_CATALOG_CONNECTIONS ?? 10)
/**
 * The parts measured (`feeds`, `filters`, `lists`, `refresh`; all unless BENCH_CATALOG_PARTS lists some): one part
 * alone is a shorter run, and a profile (BENCH_CPU_PROF) of its requests only.
 */
const parts = new Set(
  (process.env.BENCH_CATALOG_PARTS ?? "feeds,filters,lists,refresh").split(",").map((part) => part.trim())
)

const countryCodes = [
  "ar",
  "at",
  "au",
  "be",
  "bg",
  "bo",
  "br",
  "ca",
  "ch",
  "cl",
  "cn",
  "co",
  "cr",
  "cy",
  "cz",
  "de",
  "dk",
  "ec",
  "eg",
  "en",
  "es",
  "fi",
  "fr",
  "gr",
  "hr",
  "hu",
  "id",
  "ie",
  "il",
  "in",
  "is",
  "it",
  "jp",
  "kr",
  "ma",
  "mx",
  "ng",
  "nl",
  "no",
  "nz",
  "pe",
  "pl",
  "pt",
  "py",
  "ro",
  "rs",
  "ru",
  "sa",
  "sc",
  "se",
  "si",
  "sk",
  "tr",
  "ua",
  "us",
  "uy",
  "ve",
  "wa",
  "za",
  "gb"
]

/**
 * The provider whose world the synthetic catalog is (sql/0037): BetsAPI's, the provider of the refresh measured into it
 * (catalog-refresh.ts), so that refresh writes beside the 1,000,000 events instead of replacing them, and the
 * instances that read it run as BetsAPI (an instance of another provider would find it empty and fill it at start).
 */
export const seededProvider = "betsapi"

/** Loads the synthetic catalog in place of whatever is there; returns the seconds it took. */
export const seedCatalog = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const started = performance.now()
    // A baseline revision from before 0037 has no provider on its rows.
    const [{ labelled }] = yield* sql<{ labelled: boolean }>`
      SELECT to_regclass('sports_catalog_world') IS NOT NULL AS labelled`
    const provider = labelled
      ? { column: sql`, provider`, value: sql`, ${seededProvider}::text` }
      : { column: sql``, value: sql`` }
    yield* sql`TRUNCATE sports_sports, sports_countries, sports_leagues, sports_teams, sports_events, sports_team_leagues`
    if (labelled) yield* sql`UPDATE sports_catalog_world SET provider = ${seededProvider}`
    yield* sql`
      INSERT INTO sports_sports (id, name)
      VALUES (1, 'Soccer'), (18, 'Basketball'), (13, 'Tennis'), (17, 'Ice Hockey'), (91, 'Volleyball')
    `
    yield* sql`
      INSERT INTO sports_countries (code, name)
      SELECT code, upper(code) FROM jsonb_array_elements_text(${JSON.stringify(countryCodes)}::jsonb) AS code
    `
    // Half the leagues are soccer; country n*7 mod 60, so every country has leagues of several sports.
    yield* sql`
      INSERT INTO sports_leagues (id, sport_id, country_code, name ${provider.column})
      SELECT 'bl' || n,
             (ARRAY[1, 1, 1, 1, 1, 18, 18, 13, 17, 91])[1 + n % 10],
             (SELECT array_agg(code ORDER BY code) FROM sports_countries)[1 + (n * 7) % 60],
             (ARRAY['Premier', 'Super', 'First', 'National', 'Pro', 'Elite', 'Regional', 'Championship', 'Cup', 'Open'])[1 + n % 10]
               || ' ' ||
             (ARRAY['League', 'Division', 'Series', 'Liga', 'Tour', 'Conference', 'Trophy', 'Serie', 'Ligue', 'Cup'])[1 + (n / 10) % 10]
               || ' ' || n ${provider.value}
      FROM generate_series(1, 2000) AS n
    `
    yield* sql`
      INSERT INTO sports_teams (id, sport_id, country_code, name ${provider.column})
      SELECT 'bt' || t, l.sport_id, l.country_code,
             (ARRAY['Atletico', 'Real', 'Sporting', 'United', 'City', 'Dynamo', 'Racing', 'Union', 'Olympic', 'Rovers',
                    'Wanderers', 'Athletic'])[1 + t % 12] || ' ' ||
             (ARRAY['North', 'South', 'East', 'West', 'Central', 'Harbor', 'Valley', 'River', 'Lake', 'Hill', 'Port',
                    'Forest', 'Bay'])[1 + (t / 12) % 13] || ' ' || t ${provider.value}
      FROM generate_series(0, 49999) AS t
      JOIN sports_leagues l ON l.id = 'bl' || (1 + t / 25)
    `
    // Event n: league n*7919 mod 2000 (scattered), a pair of that league's teams, a kick-off minute
    // spread evenly (in a scattered order) over [now - 330 days, now + 28 days).
    yield* sql`
      INSERT INTO sports_events (id, sport_id, country_code, league_id, league_name, home_team_id, home_name,
                                 away_team_id, away_name, starts_at, status, score, minute, has_odds ${provider.column})
      SELECT 'be' || e.n, l.sport_id, l.country_code, l.id, l.name, h.id, h.name, a.id, a.name, e.starts_at,
             CASE WHEN e.starts_at > now() THEN 'prematch'
                  WHEN e.starts_at > now() - interval '2 hours' THEN 'live'
                  ELSE 'ended' END,
             CASE WHEN e.starts_at > now() THEN NULL ELSE (e.n % 4) || '-' || (e.n % 3) END,
             CASE WHEN e.starts_at > now() OR e.starts_at < now() - interval '2 hours' THEN NULL
                  ELSE (extract(epoch FROM now() - e.starts_at) / 60)::int END,
             e.n % 7 <> 0 ${provider.value}
      FROM (
        SELECT n, (1 + (n::bigint * 7919) % 2000)::int AS league, (n / 2000) % 25 AS home,
               ((n / 2000) % 25 + 1 + (n / 50000) % 24) % 25 AS away,
               date_trunc('minute', now() - interval '330 days' + ((n::bigint * 104729) % 1000000) * interval '30.9312 seconds')
                 AS starts_at
        FROM generate_series(1, 1000000) AS n
      ) e
      JOIN sports_leagues l ON l.id = 'bl' || e.league
      JOIN sports_teams h ON h.id = 'bt' || ((e.league - 1) * 25 + e.home)
      JOIN sports_teams a ON a.id = 'bt' || ((e.league - 1) * 25 + e.away)
    `
    yield* sql`
      INSERT INTO sports_team_leagues (team_id, league_id ${provider.column})
      SELECT home_team_id, league_id ${provider.value} FROM sports_events
      UNION SELECT away_team_id, league_id ${provider.value} FROM sports_events
    `
    // What autovacuum does after a load: statistics, and the visibility map index-only scans rely on.
    yield* sql.unsafe(
      "VACUUM ANALYZE sports_sports, sports_countries, sports_leagues, sports_teams, sports_events, sports_team_leagues"
    )
    // The feeds' totals a publish keeps (sql/0040), written for the rows loaded here as a publish would.
    const [{ kept }] = yield* sql<{ kept: boolean }>`
      SELECT to_regproc('sports_feed_totals_keep') IS NOT NULL AS kept`
    if (kept) yield* sql`SELECT sports_feed_totals_keep(true)`
    const [counts] = yield* sql<{ events: number; teams: number; prematch: number; live: number }>`
      SELECT (SELECT count(*) FROM sports_events)::int AS events, (SELECT count(*) FROM sports_teams)::int AS teams,
             (SELECT count(*) FROM sports_events WHERE status = 'prematch')::int AS prematch,
             (SELECT count(*) FROM sports_events WHERE status = 'live')::int AS live
    `
    return { ...counts, seconds: (performance.now() - started) / 1000 }
  })

const utcDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10)

const sequentialTimes = (url: string, headers: Record<string, string>, count: number) =>
  Effect.promise(async () => {
    const times: Array<number> = []
    for (let i = 0; i < count; i++) {
      const started = performance.now()
      await fetch(url, { headers }).then((response) => response.arrayBuffer())
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    return { median: times[Math.floor(count / 2)], slowest: times[count - 1] }
  })

/** A service under measure: as configured (its read cache on) and another instance with the cache off. */
interface Instance {
  readonly label: string
  readonly cached: { readonly url: string; readonly pid: number }
  readonly uncached: { readonly url: string; readonly pid: number }
}

/**
 * Measures sets of requests taken in turn, in the same interleaved rounds: the raw baseline (the first
 * request's body), then each instance with its read cache and without. Returns each set's rows, in that order.
 */
const measure = (
  context: BenchContext,
  instances: ReadonlyArray<Instance>,
  title: string,
  sets: ReadonlyArray<{ readonly name: string; readonly paths: ReadonlyArray<string> }>
) =>
  Effect.gen(function*() {
    const headers = { authorization: `Bearer ${context.token}` }
    const targets: Array<Target> = []
    for (const set of sets) {
      for (const instance of instances) {
        for (const path of set.paths) {
          const response = yield* Effect.promise(() => fetch(instance.cached.url + path, { headers }))
          if (response.status !== 200) {
            return yield* Effect.die(
              `${path} answered ${response.status}: ${yield* Effect.promise(() => response.text())}`
            )
          }
          yield* Effect.promise(() => response.arrayBuffer())
        }
      }
      const requests = set.paths.map((path) => ({ method: "GET" as const, path }))
      const body = yield* fetchText(context.baseUrl + set.paths[0], { headers })
      const raw = yield* fixedBodyProcess("scripts/bench/raw-server.ts", body)
      targets.push({
        name: "raw node:http, first body",
        options: { url: raw.url, pid: raw.pid, requests, connections, seconds }
      })
      for (const instance of instances) {
        targets.push(
          {
            name: instance.label,
            options: { url: instance.cached.url, pid: instance.cached.pid, headers, requests, connections, seconds }
          },
          {
            name: `${instance.label}, no read cache`,
            options: { url: instance.uncached.url, pid: instance.uncached.pid, headers, requests, connections, seconds }
          }
        )
      }
    }
    // Every set is measured in the same interleaved rounds, then printed on its own against its baseline.
    const rows = yield* compare(targets)
    const perSet = 1 + 2 * instances.length
    const results: Array<ReadonlyArray<Comparison>> = []
    for (const [i, set] of sets.entries()) {
      const setRows = rows.slice(i * perSet, (i + 1) * perSet)
      results.push(setRows)
      printTable(
        `${title}${
          sets.length > 1 ? `, ${set.name}` : ""
        } (${set.paths.length} in turn, ${connections} connections, ${seconds} s per round)`,
        setRows
      )
      // Which request costs what, when nothing is cached: one at a time, so the figure is the request's own.
      const lines = ["  each request alone, no read cache (ms, median / slowest of 15):"]
      for (const path of set.paths) {
        const times = yield* sequentialTimes(instances[0].uncached.url + path, headers, 15)
        lines.push(
          `  ${times.median.toFixed(1).padStart(7)} / ${times.slowest.toFixed(1).padStart(6)}  ${
            path.replace("/api/partner/v1", "")
          }`
        )
      }
      console.log(lines.join("\n"))
    }
    return results
  })

/** PostgreSQL's own time for each path (explain.ts), printed; the slowest and the median. */
const databaseBaseline = (context: BenchContext, title: string, paths: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const times = yield* databaseTimes(context.databaseUrl, paths)
    console.log([
      "",
      `${title}: PostgreSQL's own time for the same statements (EXPLAIN ANALYZE, best of 3, summed per request; ms)`,
      ...times.map((t) =>
        `  ${t.millis.toFixed(1).padStart(7)}  ${t.path.replace("/api/partner/v1", "")}  (${
          t.statements.map((m) => m.toFixed(1)).join(" + ")
        })`
      )
    ].join("\n"))
    const sorted = times.map((t) => t.millis).sort((a, b) => a - b)
    return { slowest: sorted[sorted.length - 1], median: sorted[Math.floor(sorted.length / 2)] }
  })

const ms = (value: number) => `${number(value, value < 10 ? 1 : 0)} ms`

/**
 * An instance of the seeded catalog's provider, which never calls it (the catalog is not empty for it, and its
 * refreshes are pushed out of the run).
 */
const asSeededProvider = {
  SPORTS_PROVIDER: seededProvider,
  BETSAPI_TOKEN: "bench-token",
  BETSAPI_BASE_URL: "http://127.0.0.1:9"
}

export const catalogScenario: Scenario = (context) =>
  Effect.gen(function*() {
    const seeded = yield* seedCatalog(context.sql)
    console.log([
      "",
      `Sports catalog: loaded ${seeded.events.toLocaleString("en-US")} events (${
        seeded.prematch.toLocaleString("en-US")
      } prematch, ${seeded.live.toLocaleString("en-US")} live) and ${seeded.teams.toLocaleString("en-US")} teams in ${
        seeded.seconds.toFixed(0)
      } s`
    ].join("\n"))
    const revisions: Array<Revision> = yield* Effect.forEach(baselineRevisions, (revision) =>
      Effect.gen(function*() {
        const instance = yield* context.startRevision(revision, {})
        yield* seedCatalog(instance.sql)
        return { revision, instance }
      }))
    yield* Effect.scoped(Effect.gen(function*() {
      // BENCH_CATALOG_PARTS=refresh: the refresh alone (below), for work on it, without the reads' instances.
      if (!["feeds", "filters", "lists"].some((part) => parts.has(part))) return
      // The instances without a read cache live as long as the reads are measured.
      const uncached = yield* context.startService({ CATALOG_CACHE_TTL: "0 seconds", ...asSeededProvider })
      const instances: ReadonlyArray<Instance> = [
        { label: "service", cached: { url: context.baseUrl, pid: context.pid }, uncached },
        ...(yield* Effect.forEach(revisions, (r) =>
          Effect.map(
            r.instance.startAgain({ CATALOG_CACHE_TTL: "0 seconds", ...asSeededProvider }),
            (revisionUncached): Instance => ({
              label: `service at ${r.revision}`,
              cached: r.instance,
              uncached: revisionUncached
            })
          )))
      ]
      const tomorrow = utcDay(1)
      const feed = "/api/partner/v1/sports/feed"
      const catalog = "/api/partner/v1/sports/catalog"
      const feedPaths = [
        `${feed}/prematch?sport_id=1`,
        `${feed}/prematch?sport_id=1&date=${tomorrow}`,
        `${feed}/prematch?country=es&sort_by=league_name`,
        `${feed}/prematch?league_id=bl7`,
        `${feed}/prematch?has_odds=true&date_from=${tomorrow}&date_to=${
          utcDay(3)
        }&sort_by=home_name&sort_direction=desc`,
        `${feed}/prematch?team_id=bt1234`,
        `${feed}/prematch?sport_id=1&search=united`,
        `${feed}/prematch?sport_id=1&page=20`,
        `${feed}/live?sport_id=1&sort_by=last_update&sort_direction=desc`
      ]
      // The widest: every soccer team with a fixture in the next four weeks (about 25,000 names).
      const widest = `${catalog}/filters?source=prematch&sport_id=1`

      if (parts.has("feeds")) {
        const feedDatabase = yield* databaseBaseline(context, "Feeds", feedPaths)
        const [feeds] = yield* measure(context, instances, "Feeds over 1,000,000 events, typical filters and sorts", [{
          name: "feeds",
          paths: feedPaths
        }])
        recordCatalogGoals.feeds(feeds, feedDatabase, revisions.map((r) => r.revision))
      }
      if (parts.has("filters")) {
        const widestDatabase = yield* databaseBaseline(context, "Dynamic filters, all soccer", [widest])
        const [, allSoccer] = yield* measure(context, instances, "Dynamic filters over 1,000,000 events", [
          {
            name: "typical",
            paths: [
              `${catalog}/filters?source=prematch&sport_id=1&date=${tomorrow}`,
              `${catalog}/filters?source=prematch&country=es`,
              `${catalog}/filters?source=prematch&league_id=bl7`,
              `${catalog}/filters?source=prematch&sport_id=18&has_odds=true`,
              `${catalog}/filters?source=live`
            ]
          },
          { name: "all soccer", paths: [widest] }
        ])
        recordCatalogGoals.widest(allSoccer, widestDatabase, revisions.map((r) => r.revision))
      }
      if (parts.has("lists")) {
        yield* measure(context, instances, "Catalog lists with search over 2,000 leagues and 50,000 teams", [{
          name: "lists",
          paths: [
            `${catalog}/leagues?search=premier`,
            `${catalog}/leagues?search=league%2012`,
            `${catalog}/leagues?search=cup&sport_id=1`,
            `${catalog}/leagues?search=zzz`,
            `${catalog}/teams?search=united`,
            `${catalog}/teams?search=rovers%20north&sport_id=1`
          ]
        }])
      }
    }))
    if (parts.has("refresh")) yield* refreshScenario(context, revisions)
  }).pipe(Effect.scoped)

/** Rows of a set: the raw baseline, then each instance as configured and without its read cache. */
const recordCatalogGoals = {
  feeds: (
    rows: ReadonlyArray<Comparison>,
    database: { readonly slowest: number; readonly median: number },
    revisions: ReadonlyArray<string>
  ) => {
    const [raw, cached, uncached, ...before] = rows
    const ratio = (row: Comparison) => row.result.requestsPerSecond / raw.result.requestsPerSecond
    recordGoal({
      path: `cached feed reads, 9 kinds in turn (${connections} connections)`,
      baseline: `raw node:http, first body: ${number(raw.result.requestsPerSecond)} req/s`,
      service: `${number(cached.result.requestsPerSecond)} req/s`,
      figure: `${ratio(cached).toFixed(2)} of raw`,
      goal: ">= 0.35 of raw",
      met: ratio(cached) >= 0.35,
      revisions: revisions.map((revision, i) => ({ revision, figure: `${ratio(before[2 * i]).toFixed(2)} of raw` }))
    })
    recordGoal({
      path: `prematch and live feeds, uncached, 1M events (${connections} connections)`,
      baseline: `PostgreSQL alone (EXPLAIN ANALYZE): slowest ${ms(database.slowest)}, median ${ms(database.median)}`,
      service: `p99 ${ms(uncached.result.p99)}, p50 ${ms(uncached.result.p50)}, ${
        number(uncached.result.requestsPerSecond)
      } req/s`,
      figure: `p99 ${ms(uncached.result.p99)}`,
      goal: "p99 < 25 ms",
      met: uncached.result.p99 < 25,
      revisions: revisions.map((revision, i) => ({ revision, figure: `p99 ${ms(before[2 * i + 1].result.p99)}` }))
    })
  },
  widest: (
    rows: ReadonlyArray<Comparison>,
    database: { readonly slowest: number },
    revisions: ReadonlyArray<string>
  ) => {
    const [raw, cached, uncached, ...before] = rows
    recordGoal({
      path: `widest filter, 25,000 teams (${connections} connections)`,
      baseline: `PostgreSQL alone (EXPLAIN ANALYZE): ${ms(database.slowest)}; raw node:http, same body: p99 ${
        ms(raw.result.p99)
      }`,
      service: `p99 ${ms(cached.result.p99)} (no read cache: ${ms(uncached.result.p99)})`,
      figure: `p99 ${ms(cached.result.p99)}`,
      goal: "p99 < 50 ms",
      met: cached.result.p99 < 50,
      revisions: revisions.map((revision, i) => ({
        revision,
        figure: `p99 ${ms(before[2 * i].result.p99)} (no read cache: ${ms(before[2 * i + 1].result.p99)})`
      }))
    })
  }
}
