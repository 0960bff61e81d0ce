/**
 * The live change stream under load: N concurrent streams on one instance
 * (BENCH_STREAMS, default 1,000), all of one sport, and an odds read that
 * moves every price of BENCH_STREAM_MARKETS markets (default 334: 1,002
 * prices) in one commit. Measured: from the moment those changes were
 * written (under the log's lock, just before the commit) to the moment each
 * client has the last of them; the instance's resident memory before and at
 * its peak during the burst; and the requests a partner polling the odds
 * would need for the same freshness. The same burst to one stream first is
 * the baseline of the run. The clients run in this process (one socket
 * each), reading as an EventSource would need to: the last id of each chunk.
 */
import { Effect } from "effect"
import * as os from "node:os"
import { request as httpRequest } from "node:http"
import { type BenchContext, fakeBetsApi, memoryOf, type Scenario } from "./context.ts"
import { cpuMicrosOf } from "./harness.ts"

const streams = Number(process.env.BENCH_STREAMS ?? 1_000)
const markets = Number(process.env.BENCH_STREAM_MARKETS ?? 334)
const eventId = "5000000"
const idPrefix = Buffer.from("id: ")

interface Client {
  /** When it had each new last id, after the burst was set off. */
  readonly seen: Array<{ readonly at: number; readonly id: number }>
  connected: boolean
  bytes: number
  close(): void
}

/** One stream on a socket of its own, keeping the last id of every chunk (an id split across chunks is joined). */
const openClient = (url: string, token: string): Promise<Client> =>
  new Promise((resolve, reject) => {
    const client: Client = { seen: [], connected: false, bytes: 0, close: () => request.destroy() }
    let tail = Buffer.alloc(0)
    const request = httpRequest(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`))
      response.on("data", (chunk: Buffer) => {
        client.bytes += chunk.length
        // Bytes, not text: the last whole "id: …" line of the chunk; only when none is whole in it, the end of the
        // one before is joined to its start (an id cut in two).
        let bytes = chunk
        let at = bytes.lastIndexOf(idPrefix)
        let end = at === -1 ? -1 : bytes.indexOf(10, at)
        if (end === -1) {
          bytes = Buffer.concat([tail, chunk.subarray(0, 24)])
          at = bytes.lastIndexOf(idPrefix)
          end = at === -1 ? -1 : bytes.indexOf(10, at)
        }
        tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - 24)))
        if (end === -1) return
        const id = Number(bytes.toString("latin1", at + 4, end))
        if (!client.connected) {
          client.connected = true
          resolve(client)
          return
        }
        client.seen.push({ at: Date.now(), id })
      })
    })
    request.on("error", reject)
    request.end()
  })

/** CPU time a process has used (user + system), in milliseconds (Linux /proc; NaN elsewhere). */
const cpuMillisOf = (pid: number) =>
  Effect.promise(() => cpuMicrosOf(pid)).pipe(Effect.map((micros) => (micros ?? Number.NaN) / 1000))

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

/** Opens `count` streams, moves every price once, and measures how long until each client has it all. */
const burst = (
  context: BenchContext,
  options: { readonly service: string; readonly pid: number; readonly fake: string; readonly count: number }
) =>
  Effect.gen(function*() {
    const url = `${options.service}/api/partner/v1/sports/stream?sport_id=1&kinds=odds`
    const idle = yield* memoryOf(options.pid)
    const clients: Array<Client> = []
    // Opened a hundred at a time, as a fleet of partner processes would reconnect.
    for (let i = 0; i < options.count; i += 100) {
      clients.push(
        ...(yield* Effect.promise(() =>
          Promise.all(Array.from({ length: Math.min(100, options.count - i) }, () => openClient(url, context.token)))
        ))
      )
    }
    const before = yield* memoryOf(options.pid)
    let peak = before?.rss ?? 0
    const sampling = setInterval(() => {
      void Effect.runPromise(memoryOf(options.pid)).then((memory) => (peak = Math.max(peak, memory?.rss ?? 0)))
    }, 20)
    const [{ head }] = yield* context.sql<
      { head: string }
    >`SELECT coalesce(max(position), 0)::text AS head FROM sports_changes`
    const cpuBefore = { service: yield* cpuMillisOf(options.pid), clients: process.cpuUsage() }
    yield* Effect.promise(() => fetch(`${options.fake}/__odds_bump`).then((r) => r.text()))
    yield* Effect.promise(() =>
      fetch(`${options.service}/api/partner/v1/sports/events/${eventId}/odds`, {
        headers: { authorization: `Bearer ${context.token}` }
      })
        .then((r) => r.text())
    )
    // The burst is written once the log holds a change for every market past the head.
    const written = Effect.gen(function*() {
      const [row] = yield* context.sql<{ n: number; last: string; at: number }>`
        SELECT count(*)::int AS n, coalesce(max(position), 0)::text AS last,
               coalesce(extract(epoch FROM max(recorded_at)) * 1000, 0)::float8 AS at
        FROM sports_changes WHERE provider = 'betsapi' AND kind = 'odds' AND position > ${Number(head)}
      `
      return row
    })
    let log = yield* written
    const started = Date.now()
    while (log.n < markets && Date.now() - started < 60_000) {
      yield* Effect.sleep("20 millis")
      log = yield* written
    }
    const last = Number(log.last)
    while (clients.some((client) => (client.seen.at(-1)?.id ?? 0) < last) && Date.now() - started < 60_000) {
      yield* Effect.sleep("20 millis")
    }
    clearInterval(sampling)
    const clientsCpu = process.cpuUsage(cpuBefore.clients)
    const cpu = {
      service: (yield* cpuMillisOf(options.pid)) - cpuBefore.service,
      clients: (clientsCpu.user + clientsCpu.system) / 1000
    }
    const after = yield* memoryOf(options.pid)
    const latencies = clients
      .map((client) => client.seen.find((seen) => seen.id >= last)?.at)
      .map((at) => (at === undefined ? Number.POSITIVE_INFINITY : at - log.at))
      .sort((a, b) => a - b)
    const bytes = clients.reduce((sum, client) => sum + client.bytes, 0)
    for (const client of clients) client.close()
    return {
      changes: log.n,
      latencies,
      rssIdle: idle?.rss ?? Number.NaN,
      rssBefore: before?.rss ?? Number.NaN,
      rssPeak: Math.max(peak, after?.rss ?? 0),
      megabytesSent: bytes / 1024 / 1024,
      cpu
    }
  })

export const streamScenario: Scenario = (context) =>
  Effect.gen(function*() {
    const { url: fake } = yield* fakeBetsApi({
      CATALOG_EVENTS: "50",
      CATALOG_LEAGUES: "10",
      ODDS_MARKETS: String(markets)
    })
    const { pid, url: service } = yield* context.startService({
      SPORTS_PROVIDER: "betsapi",
      BETSAPI_BASE_URL: fake,
      BETSAPI_TOKEN: "bench-token",
      SPORTS_PROVIDER_CACHE_TTL_MAX: "0 seconds",
      CATALOG_SPORT_IDS: "1",
      STREAM_MAX_CONNECTIONS_PER_PARTNER: String(streams + 10),
      STREAM_STALE_AFTER: "1 hour"
    })
    const headers = { authorization: `Bearer ${context.token}` }
    // The catalog (the log's baseline), then the markets opened, before any stream listens.
    yield* Effect.promise(() =>
      fetch(`${service}/api/partner/v1/sports/catalog/refresh`, { method: "POST", headers }).then((r) => r.text())
    )
    yield* Effect.promise(() =>
      fetch(`${service}/api/partner/v1/sports/events/${eventId}/odds`, { headers }).then((r) => r.text())
    )

    const one = yield* burst(context, { service, pid, fake, count: 1 })
    const many = yield* burst(context, { service, pid, fake, count: streams })
    const p = (result: typeof one, q: number) => percentile(result.latencies, q)
    const p99 = p(many, 99)
    const row = (name: string, result: typeof one) =>
      `${name.padEnd(22)}${String(result.changes).padStart(8)}${Math.round(p(result, 50)).toString().padStart(9)}${
        Math.round(p(result, 99)).toString().padStart(9)
      }${Math.round(result.latencies.at(-1)!).toString().padStart(9)}${result.rssIdle.toFixed(0).padStart(10)}${
        result.rssBefore.toFixed(0).padStart(10)
      }${result.rssPeak.toFixed(0).padStart(10)}${(result.rssPeak - result.rssIdle).toFixed(0).padStart(8)}${
        result.megabytesSent.toFixed(1).padStart(9)
      }`
    const pollsPerSecond = 1000 / p99
    console.log([
      "",
      `Live change stream: one odds read moving ${
        (markets * 3).toLocaleString("en-US")
      } prices (${markets} markets) in one commit, streams of sport 1`,
      `${"".padEnd(22)}${"changes".padStart(8)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"max ms".padStart(9)}${
        "RSS idle".padStart(10)
      }${"streaming".padStart(10)}${"peak".padStart(10)}${"MiB +".padStart(8)}${"MiB out".padStart(9)}`,
      "  (RSS in MiB: before the streams opened, with them open, at the peak of the burst; + is the peak over idle)",
      row("1 stream (baseline)", one),
      row(`${streams.toLocaleString("en-US")} streams`, many),
      `  CPU during the burst (ms): the service ${one.cpu.service} for 1 stream, ${many.cpu.service} for ${
        streams.toLocaleString("en-US")
      } ` +
      `(the clients, in this process: ${Math.round(one.cpu.clients)} and ${
        Math.round(many.cpu.clients)
      }); machine load ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`,
      `  p99 vs baseline: ${
        (p99 / Math.max(1, p(one, 99))).toFixed(1)
      }x; latency from the changes' write (just before the commit) to each client's last event`,
      `  A partner polling this event's odds to learn of a change within ${Math.round(p99)} ms makes ${
        pollsPerSecond.toFixed(1)
      } requests a second: ${Math.round(pollsPerSecond * streams).toLocaleString("en-US")} a second (${
        Math.round(pollsPerSecond * streams * 3600).toLocaleString("en-US")
      } an hour) for ${streams.toLocaleString("en-US")} such clients, per event watched; the streams made ${
        streams.toLocaleString("en-US")
      } requests in all.`
    ].join("\n"))
  }).pipe(Effect.scoped)
