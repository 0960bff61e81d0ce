import autocannon from "autocannon"
import { Effect } from "effect"
import { readdir, readFile } from "node:fs/promises"

export { freePort } from "./processes.ts"

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
  readonly total: number
  /**
   * CPU time the serving process spent per request (user + system, from
   * /proc), when its pid is known. Unlike req/s this barely moves when other
   * work shares the machine, so it compares targets on a noisy host.
   */
  readonly cpuMicrosPerRequest?: number | undefined
  /**
   * CPU time the PostgreSQL backends serving the target's database spent per request, when the database is named:
   * on a machine whose cores the service and the database share, the database's work is the service's cost too.
   */
  readonly databaseCpuMicrosPerRequest?: number | undefined
}

export interface LoadOptions {
  readonly url: string
  readonly method?: "GET" | "POST"
  readonly headers?: Record<string, string>
  readonly body?: string
  /** Requests taken in turn; `setupRequest` may rewrite each one (e.g. a different player per launch). */
  readonly requests?: ReadonlyArray<autocannon.Request>
  readonly connections?: number
  readonly seconds?: number
  /** The serving process, to measure its CPU time per request (Linux). */
  readonly pid?: number
  /** The database the target works in, to measure its PostgreSQL backends' CPU time per request (Linux). */
  readonly database?: string
}

/** User + system CPU time of a process so far, in microseconds (Linux /proc; undefined elsewhere). */
export const cpuMicrosOf = async (pid: number | undefined): Promise<number | undefined> => {
  if (pid === undefined) return undefined
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces, hence the last ")"): utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticksPerSecond = 100 // USER_HZ, 100 on every Linux this runs on
    return (Number(fields[11]) + Number(fields[12])) * (1_000_000 / ticksPerSecond)
  } catch {
    return undefined
  }
}

/** A backend's process title: `postgres: [cluster: ]user database host(port) activity`. */
const backendTitle = /^postgres: (?:\S+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/

/**
 * User + system CPU time of each PostgreSQL backend connected to `database` now, in microseconds by pid (Linux
 * /proc; undefined elsewhere).
 */
export const databaseCpuMicrosOf = async (
  database: string | undefined
): Promise<ReadonlyMap<number, number> | undefined> => {
  if (database === undefined) return undefined
  try {
    const backends = new Map<number, number>()
    for (const pid of await readdir("/proc")) {
      if (!/^\d+$/.test(pid)) continue
      const title = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")
      if (backendTitle.exec(title)?.[1] !== database) continue
      const micros = await cpuMicrosOf(Number(pid))
      if (micros !== undefined) backends.set(Number(pid), micros)
    }
    return backends
  } catch {
    return undefined
  }
}

/**
 * What the backends spent between two readings: a backend that started meanwhile counts whole; one that ended
 * meanwhile (a pool letting an idle connection go) is missed, so the figure errs low.
 */
const spentBetween = (
  before: ReadonlyMap<number, number> | undefined,
  after: ReadonlyMap<number, number> | undefined
) => {
  if (before === undefined || after === undefined) return undefined
  let spent = 0
  for (const [pid, micros] of after) spent += micros - (before.get(pid) ?? 0)
  return spent
}

/** One autocannon run; a short warm-up first so JIT and caches are settled. */
export const load = (options: LoadOptions) =>
  Effect.promise(async (): Promise<LoadResult> => {
    const run = (duration: number) =>
      autocannon({
        url: options.url,
        method: options.method ?? "GET",
        headers: options.headers ?? {},
        ...(options.body === undefined ? {} : { body: options.body }),
        ...(options.requests === undefined ? {} : { requests: [...options.requests] }),
        connections: options.connections ?? 50,
        duration
      })
    await run(2)
    const cpuBefore = await cpuMicrosOf(options.pid)
    const databaseBefore = await databaseCpuMicrosOf(options.database)
    const result = await run(options.seconds ?? 10)
    const cpuAfter = await cpuMicrosOf(options.pid)
    const databaseAfter = await databaseCpuMicrosOf(options.database)
    const perRequest = (spent: number | undefined) =>
      spent === undefined || result.requests.total === 0 ? undefined : spent / result.requests.total
    return {
      cpuMicrosPerRequest: perRequest(
        cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore
      ),
      databaseCpuMicrosPerRequest: perRequest(spentBetween(databaseBefore, databaseAfter)),
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      total: result.requests.total
    }
  })

export interface Target {
  readonly name: string
  readonly options: LoadOptions
  /** Runs before each of this target's rounds: e.g. waits until what an earlier target left behind is done. */
  readonly settle?: Effect.Effect<void, unknown>
}

export interface Comparison {
  readonly name: string
  /** Median over the rounds. */
  readonly result: LoadResult
  readonly rounds: ReadonlyArray<LoadResult>
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const medianOf = (values: ReadonlyArray<number | undefined>) =>
  values.every((value) => value !== undefined) && values.length > 0 ? median(values as Array<number>) : undefined

/** How many rounds each comparison measures (BENCH_ROUNDS, 3). */
export const benchRounds = Number(process.env.BENCH_ROUNDS ?? 3)

/**
 * Measures every target once per round, interleaved, and keeps the median
 * of each: on a shared machine the load drifts between runs, so targets are
 * compared within the same minutes, never across.
 */
export const compare = (targets: ReadonlyArray<Target>, rounds = benchRounds) =>
  Effect.gen(function*() {
    const results = targets.map(() => [] as Array<LoadResult>)
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        if (targets[i].settle !== undefined) yield* Effect.orDie(targets[i].settle!)
        results[i].push(yield* load(targets[i].options))
      }
    }
    return targets.map((target, i): Comparison => ({
      name: target.name,
      rounds: results[i],
      result: {
        requestsPerSecond: median(results[i].map((r) => r.requestsPerSecond)),
        p50: median(results[i].map((r) => r.p50)),
        p99: median(results[i].map((r) => r.p99)),
        errors: results[i].reduce((sum, r) => sum + r.errors, 0),
        non2xx: results[i].reduce((sum, r) => sum + r.non2xx, 0),
        total: results[i].reduce((sum, r) => sum + r.total, 0),
        cpuMicrosPerRequest: medianOf(results[i].map((r) => r.cpuMicrosPerRequest)),
        databaseCpuMicrosPerRequest: medianOf(results[i].map((r) => r.databaseCpuMicrosPerRequest))
      }
    }))
  })

const pad = (text: string, width: number) => text.padStart(width)
const number = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

/**
 * Prints medians, each row's ratio to the first (the baseline), and the per-round spread.
 * With CPU figures: each row's CPU time per request, and the first row's over it (the
 * throughput ratio the row would reach if CPU were all that limited both); with the
 * database's, its backends' CPU time per request too.
 */
export const printTable = (title: string, rows: ReadonlyArray<Comparison>) => {
  const withCpu = rows.some((row) => row.result.cpuMicrosPerRequest !== undefined)
  const withDatabase = rows.some((row) => row.result.databaseCpuMicrosPerRequest !== undefined)
  const micros = (value: number | undefined, width: number) => pad(value === undefined ? "-" : number(value, 1), width)
  const lines = [
    "",
    title,
    `${"".padEnd(34)}${pad("req/s", 9)}${pad("p50 ms", 8)}${pad("p99 ms", 8)}${pad("failed", 8)}${pad("vs first", 10)}${
      withCpu ? `${pad("cpu us/req", 12)}${pad("cpu vs first", 14)}` : ""
    }${withDatabase ? pad("db cpu us/req", 15) : ""}  rounds (req/s)`
  ]
  const baseline = rows[0]?.result
  for (const { name, result, rounds } of rows) {
    const ratio = baseline === undefined ? 1 : result.requestsPerSecond / baseline.requestsPerSecond
    const cpu = result.cpuMicrosPerRequest
    const cpuRatio = cpu === undefined || baseline?.cpuMicrosPerRequest === undefined
      ? undefined
      : baseline.cpuMicrosPerRequest / cpu
    lines.push(
      `${name.padEnd(34)}${pad(number(result.requestsPerSecond), 9)}${pad(number(result.p50, 1), 8)}${
        pad(number(result.p99, 1), 8)
      }${pad(number(result.non2xx + result.errors), 8)}${pad(ratio.toFixed(2), 10)}${
        withCpu
          ? `${micros(cpu, 12)}${pad(cpuRatio === undefined ? "-" : cpuRatio.toFixed(2), 14)}`
          : ""
      }${withDatabase ? micros(result.databaseCpuMicrosPerRequest, 15) : ""}  ${
        rounds.map((r) => number(r.requestsPerSecond)).join(" / ")
      }`
    )
  }
  console.log(lines.join("\n"))
}
