/**
 * A fake API-Football (api-sports.io v3) on a real port, written from the upstream's public protocol
 * (docs: /work/shared/spec/api-football.md): the envelope on every path, the 403 for a missing key and the
 * HTTP 200 errors (wrong key, refused headers, quota), the day and minute counters with their headers, odds
 * 10 a page, the live-odds window, a fixture life cycle the test drives, and faults injected on demand
 * (a 204, a status, a dropped socket, an error envelope, a hold, a hang). Its clock is Date.now() plus an offset
 * the test sets; the world's kick-offs are placed around the clock when the world is made (start, reset).
 */
import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { route } from "./FakeApiFootballRoutes.ts"
import { DAY, type Fixture, makeWorld, MINUTE, score, setStatistic, setStatus } from "./FakeApiFootballWorld.ts"

export { oddsPageSize } from "./FakeApiFootballRoutes.ts"
export { bookmakers, fillerFixtures, fixtures, leagues, preMatchBookmaker } from "./FakeApiFootballWorld.ts"

export interface ApiFootballCall {
  readonly method: string
  readonly path: string
  readonly query: Record<string, string>
  readonly headers: IncomingHttpHeaders
  /** The fake's clock (epoch ms) when the call arrived. */
  readonly at: number
}

export type Injected =
  /** Never answers (until the server closes). */
  | { readonly kind: "hang" }
  /** Answers normally after a delay (quota checked and counted then): the provider holding requests. */
  | { readonly kind: "hold"; readonly millis: number }
  /** HTTP 204, empty body. */
  | { readonly kind: "noContent" }
  /** This status with a text body, e.g. 500. */
  | { readonly kind: "status"; readonly status: number }
  /** Destroys the socket. */
  | { readonly kind: "close" }
  /** HTTP 200 envelope with these errors, results 0, response []. */
  | { readonly kind: "error"; readonly errors: Record<string, string> | ReadonlyArray<string> }

export const validKey = "fake-apifootball-key-0123456789abcdef"
export const defaultLimits = { perDay: 7500, perMinute: 300 } as const

export const messages = {
  missingKey:
    "Missing application key, Go to https://www.api-football.com/documentation-v3 to learn how to get your API application key.",
  wrongKey:
    "Error/Missing application key. Go to https://www.api-football.com/documentation-v3 to learn how to get your API application key.",
  day: "You have reached the request limit for the day, Go to https://dashboard.api-football.com to upgrade your plan.",
  minute: "Too many requests. You have exceeded the limit of requests per minute of your subscription.",
  method: "This method is not allowed: the API only answers GET requests."
} as const

/** Request headers a fetch client adds on its own, which the upstream lets through. */
const allowedXHeaders = new Set(["x-apisports-key", "x-rapidapi-key", "x-rapidapi-host"])
const refusedHeader = (headers: IncomingHttpHeaders) =>
  Object.keys(headers).find((name) =>
    ["content-type", "traceparent", "tracestate", "b3"].includes(name) || name.startsWith("x-b3-") ||
    (name.startsWith("x-") && !allowedXHeaders.has(name))
  )

export class FakeApiFootball extends Context.Service<FakeApiFootball, {
  /** http://127.0.0.1:PORT, the "host": paths are /fixtures, /leagues, ... */
  readonly url: string
  /** The one valid key. */
  readonly key: string
  /** Every request received, in order (refused ones and /status included). */
  readonly calls: Array<ApiFootballCall>
  /** Calls counted against the quota (not /status, not refused for the key, headers, method or quota). */
  counted(): number
  /** The fake's clock (epoch ms): Date.now() + offset. */
  now(): number
  setNow(epochMillis: number): void
  /** Day and minute limits (defaults 7500 and 300); the day rolls at 00:00 UTC, the minute at each whole minute. */
  setLimits(limits: { perDay?: number; perMinute?: number }): void
  /** The next `times` (default 1) requests to any path but /status get this instead of a normal answer. */
  inject(injected: Injected, times?: number): void
  setStatus(fixtureId: number, short: string, elapsed?: number | null): void
  score(fixtureId: number, home: number, away: number): void
  setStatistics(fixtureId: number, side: "home" | "away", type: string, value: number | string | null): void
  /** A fixture's kick-off in the current world (epoch ms). */
  kickoff(fixtureId: number): number
  /** Moves a fixture's kick-off (to the whole minute), e.g. days back: a result that comes late. */
  setKickoff(fixtureId: number, epochMillis: number): void
  /** Default world restored (around the real clock), counters zeroed, injections and calls cleared, offset 0. */
  reset(): void
}>()("test/FakeApiFootball") {
  static readonly layer: Layer.Layer<FakeApiFootball> = Layer.effect(
    FakeApiFootball,
    Effect.acquireRelease(Effect.promise(() => start()), ({ close }) => Effect.promise(close)).pipe(
      Effect.map(({ service }) => FakeApiFootball.of(service))
    )
  )
}

const start = () =>
  new Promise<{ service: FakeApiFootball["Service"]; close: () => Promise<void> }>((resolve) => {
    const calls: Array<ApiFootballCall> = []
    let offset = 0
    let limits: { perDay: number; perMinute: number } = { ...defaultLimits }
    let day = { key: 0, count: 0 }
    let minute = { key: 0, count: 0 }
    let counted = 0
    let injections: Array<Injected> = []
    let world = makeWorld(Date.now())
    const open = new Set<ServerResponse>()
    const timers = new Set<ReturnType<typeof setTimeout>>()
    const now = () => Date.now() + offset

    /** The counters as of the clock: each rolls over when its UTC day or minute is not the one it counted in. */
    const roll = () => {
      const t = now()
      if (Math.floor(t / DAY) !== day.key) day = { key: Math.floor(t / DAY), count: 0 }
      if (Math.floor(t / MINUTE) !== minute.key) minute = { key: Math.floor(t / MINUTE), count: 0 }
    }
    const count = () => {
      roll()
      day.count++
      minute.count++
      counted++
    }
    const rateHeaders = () => {
      roll()
      return {
        "x-ratelimit-requests-limit": String(limits.perDay),
        "x-ratelimit-requests-remaining": String(Math.max(0, limits.perDay - day.count)),
        "X-RateLimit-Limit": String(limits.perMinute),
        "X-RateLimit-Remaining": String(Math.max(0, limits.perMinute - minute.count))
      }
    }
    const fixture = (id: number): Fixture => {
      const found = world.get(id)
      if (found === undefined) throw new Error(`FakeApiFootball: no fixture ${id} in the world`)
      return found
    }

    const server = createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        const url = new URL(request.url ?? "/", "http://fake")
        const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : url.pathname
        const query = Object.fromEntries(url.searchParams)
        const call: ApiFootballCall = {
          method: request.method ?? "GET",
          path,
          query,
          headers: request.headers,
          at: now()
        }
        calls.push(call)
        const get = path.replace(/^\//, "")
        const send = (
          status: number,
          body: {
            errors?: Record<string, string> | ReadonlyArray<string>
            response?: unknown
            paging?: { current: number; total: number } | null
            get?: string
          },
          headers: Record<string, string> = {}
        ) => {
          const payload = body.response ?? []
          response.writeHead(status, {
            "content-type": "application/json",
            "cache-control": "private, max-age=0, no-store, no-cache",
            ...headers
          })
          response.end(JSON.stringify({
            get: body.get ?? get,
            parameters: Object.keys(query).length === 0 ? [] : query,
            errors: body.errors ?? [],
            results: Array.isArray(payload) ? payload.length : 1,
            ...(body.paging === null ? {} : { paging: body.paging ?? { current: 1, total: 1 } }),
            response: payload
          }))
        }

        if (call.method !== "GET") return send(405, { errors: { method: messages.method } })
        const given = [request.headers["x-apisports-key"], request.headers["x-rapidapi-key"]].filter((key) =>
          key !== undefined
        )
        if (given.length === 0) return send(403, { get: "", errors: { token: messages.missingKey } })
        if (!given.includes(validKey)) return send(200, { errors: { token: messages.wrongKey } })
        const refused = refusedHeader(request.headers)
        if (refused !== undefined) {
          return send(200, { errors: { headers: `Header ${refused} is not allowed` } }, rateHeaders())
        }
        if (path === "/status") {
          roll()
          return send(200, {
            paging: null,
            response: {
              account: { firstname: "Fake", lastname: "Football", email: "fake@example.test" },
              subscription: {
                plan: "Pro",
                end: `${new Date(now() + 365 * DAY).toISOString().slice(0, 19)}+00:00`,
                active: true
              },
              requests: { current: day.count, limit_day: limits.perDay }
            }
          }, rateHeaders())
        }

        /** The normal way: the quota (day first, then minute), then the path's answer. */
        const answer = () => {
          roll()
          if (day.count >= limits.perDay) return send(200, { errors: { requests: messages.day } }, rateHeaders())
          if (minute.count >= limits.perMinute) {
            return send(200, { errors: { rateLimit: messages.minute } }, rateHeaders())
          }
          count()
          const routed = route(world, path, query, now())
          send(200, routed, rateHeaders())
        }

        const injected = injections.shift()
        if (injected === undefined) {
          return answer()
        }
        if (injected.kind === "hold") {
          open.add(response)
          const timer = setTimeout(() => {
            timers.delete(timer)
            open.delete(response)
            answer()
          }, injected.millis)
          timers.add(timer)
          return
        }
        const token = injected.kind === "error" && !Array.isArray(injected.errors) && "token" in injected.errors
        if (!token) count()
        switch (injected.kind) {
          case "hang":
            open.add(response)
            return
          case "noContent":
            response.writeHead(204, rateHeaders())
            return response.end()
          case "status":
            response.writeHead(injected.status, { "content-type": "text/html", ...rateHeaders() })
            return response.end(`<html><body>${injected.status} Server Error</body></html>`)
          case "close":
            return request.socket.destroy()
          case "error":
            return send(200, { errors: injected.errors }, token ? {} : rateHeaders())
        }
      })
    })

    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        service: {
          url: `http://127.0.0.1:${port}`,
          key: validKey,
          calls,
          counted: () => counted,
          now,
          setNow: (epochMillis) => {
            offset = epochMillis - Date.now()
          },
          setLimits: (given) => {
            limits = { ...limits, ...given }
          },
          inject: (injected, times = 1) => {
            for (let i = 0; i < times; i++) injections.push(injected)
          },
          setStatus: (id, short, elapsed) => setStatus(fixture(id), short, elapsed, now()),
          score: (id, home, away) => score(fixture(id), home, away),
          setStatistics: (id, side, type, value) => setStatistic(fixture(id), side, type, value),
          kickoff: (id) => fixture(id).kickoff,
          setKickoff: (id, epochMillis) => {
            world.set(id, { ...fixture(id), kickoff: Math.floor(epochMillis / MINUTE) * MINUTE })
          },
          reset: () => {
            offset = 0
            world = makeWorld(Date.now())
            limits = { ...defaultLimits }
            day = { key: 0, count: 0 }
            minute = { key: 0, count: 0 }
            counted = 0
            injections = []
            calls.length = 0
          }
        },
        close: () =>
          new Promise<void>((done) => {
            for (const timer of timers) clearTimeout(timer)
            for (const pending of open) pending.destroy()
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
