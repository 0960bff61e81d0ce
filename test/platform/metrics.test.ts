import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Latch, Layer, Option, Redacted } from "effect"
import { execFile } from "node:child_process"
import { metricsRoutes } from "../../src/platform/MetricsRoute.ts"
import { ObservabilityConfig } from "../../src/platform/ObservabilityConfig.ts"
import { serveRoutes } from "../../src/platform/HttpServe.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { makeLogCapture } from "../support/LogCapture.ts"
import { type Family, parsePrometheusText } from "../support/PrometheusText.ts"
import {
  bearer,
  errorBody,
  givenPartner,
  givenSyncedCatalog,
  request,
  TestApp,
  testObservabilityConfig,
  textBody
} from "../support/TestApp.ts"
import { givenPlayer, givenWalletPartner, walletAnswer, walletCall, winBet } from "../support/WalletApp.ts"

const metricsToken = "metrics-secret-for-tests"
const books = new PartnerBooks()

/**
 * The service with a fake partner wallet but no notification worker: a win's notification stays in the
 * outbox, so the backlog gauges have something to count. Partners may send 2 requests a minute.
 */
const App = TestApp({
  partners: { rateLimitPerMinute: 2 },
  observability: { metricsToken: Option.some(Redacted.make(metricsToken)) }
}).pipe(Layer.provideMerge(FakeUpstream.layer(books.script)))

const scrape = request("GET", "/metrics", { headers: bearer(metricsToken) })

/** `promtool check metrics` on the text, when Prometheus' tool is installed on this machine. */
const promtool = (text: string) =>
  Effect.callback<{ readonly available: boolean; readonly code: number; readonly output: string }>((resume) => {
    const child = execFile("promtool", ["check", "metrics"], (error, stdout, stderr) => {
      const missing = (error as NodeJS.ErrnoException | null)?.code === "ENOENT"
      resume(Effect.succeed({
        available: !missing,
        code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
        output: stdout + stderr
      }))
    })
    child.stdin?.end(text)
  })

const family = (families: ReadonlyMap<string, Family>, name: string, type: Family["type"]) => {
  const found = families.get(name)
  assert.isDefined(found, `${name} is not exported`)
  assert.strictEqual(found!.type, type, name)
  assert.isNotEmpty(found!.help ?? "", `${name} has no HELP`)
  return found!
}

const valueOf = (found: Family, labels: Record<string, string>, sampleName = found.name) =>
  found.samples.find((sample) =>
    sample.name === sampleName && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)
  )?.value

layer(App, live)("GET /metrics", (it) => {
  it.effect("with METRICS_TOKEN set, a scrape without it or with another token is a 401 envelope", () =>
    Effect.gen(function*() {
      for (
        const headers of [{}, bearer("wrong"), { authorization: `Basic ${metricsToken}` }, {
          "x-partner-key": metricsToken
        }]
      ) {
        const refused = yield* request("GET", "/metrics", { headers })
        assert.strictEqual(refused.status, 401, JSON.stringify(headers))
        assert.strictEqual(errorBody(refused).success, false)
        assert.match(errorBody(refused).message, /metrics token/)
      }
      const answered = yield* scrape
      assert.strictEqual(answered.status, 200)
      assert.include(answered.contentType, "text/plain")
      assert.include(answered.contentType, "version=0.0.4")
    }))

  it.effect("after traffic, the exposition parses strictly and carries every family with sensible values", () =>
    Effect.gen(function*() {
      // A casino sync, partner requests (one refused for its limit, one unknown route), a sports read
      // and a catalog refresh through the provider, wallet calls that leave a notification pending.
      yield* givenSyncedCatalog
      const busy = yield* givenPartner({ name: "Busy Metrics" })
      for (let i = 0; i < 3; i++) yield* request("GET", "/api/partner/v1/status", { headers: bearer(busy.token) })
      assert.strictEqual((yield* request("GET", "/api/partner/v1/status")).status, 401)
      yield* request("GET", "/no/such/route")
      const reader = yield* givenPartner({ name: "Sports Reader" })
      const odds = yield* request("GET", "/api/partner/v1/sports/events/upcoming?sport_id=1", {
        headers: bearer(reader.token)
      })
      assert.strictEqual(odds.status, 200)
      const rereader = yield* givenPartner({ name: "Sports Rereader" })
      const again = yield* request("GET", "/api/partner/v1/sports/events/upcoming?sport_id=1", {
        headers: bearer(rereader.token)
      })
      assert.strictEqual(again.headers["x-cache"], "HIT")
      const refresh = yield* request("POST", "/api/partner/v1/sports/catalog/refresh", {
        headers: bearer(reader.token),
        json: { sport_id: 1, import_events: false }
      })
      assert.strictEqual(refresh.status, 200, JSON.stringify(refresh.body))
      const looker = yield* givenPartner({ name: "Event Looker" })
      yield* request("GET", "/api/partner/v1/sports/events/no-such-event/result", { headers: bearer(looker.token) })
      const wallet = yield* givenWalletPartner(books)
      const player = yield* givenPlayer(books, wallet.partner.id, "metrics-player", 100)
      assert.strictEqual(
        walletAnswer(yield* winBet(player.internalUserId, "metrics-txn-1", { bet: 5, win: 8 })).msg,
        ""
      )
      assert.strictEqual(walletAnswer(yield* walletCall({ type: "Balance", user_code: 987654321 })).msg, "INVALID_USER")
      assert.strictEqual(
        (yield* request("POST", "/aggregator/wallet", { json: { agent_code: "x", agent_secret: "y" } })).status,
        401
      )

      const scraped = yield* scrape
      assert.strictEqual(scraped.status, 200)
      const families = parsePrometheusText(textBody(scraped))

      const requests = family(families, "http_requests_total", "counter")
      // Labelled by the route's pattern and the partner's slug, never the raw path.
      assert.strictEqual(
        valueOf(requests, {
          route: "/api/partner/v1/status",
          method: "GET",
          status: "200",
          partner: busy.partner.slug,
          environment: "live"
        }),
        2
      )
      assert.strictEqual(
        valueOf(requests, {
          route: "/api/partner/v1/status",
          method: "GET",
          status: "429",
          partner: busy.partner.slug,
          environment: "live"
        }),
        1
      )
      assert.isAtLeast(
        valueOf(requests, { route: "unmatched", status: "404", partner: "none", environment: "none" }) ?? 0,
        1
      )
      // A refusal by auth is counted under its route, with no partner.
      assert.isAtLeast(
        valueOf(requests, { route: "/api/partner/v1/status", status: "401", partner: "none", environment: "none" }) ??
          0,
        1
      )
      assert.isTrue(requests.samples.every((sample) => !sample.labels.route.includes("?")))
      assert.isFalse(requests.samples.some((sample) => sample.labels.route === "/no/such/route"))
      assert.isAtLeast(
        valueOf(requests, { route: "/api/partner/v1/sports/events/:eventId/result", partner: looker.partner.slug }) ??
          0,
        1
      )
      assert.isFalse(requests.samples.some((sample) => sample.labels.route.includes("no-such-event")))

      const latency = family(families, "http_request_duration_seconds", "histogram")
      const statusCount = valueOf(
        latency,
        { route: "/api/partner/v1/status", method: "GET" },
        "http_request_duration_seconds_count"
      )
      assert.isAtLeast(statusCount ?? 0, 3)
      const statusSum = valueOf(
        latency,
        { route: "/api/partner/v1/status", method: "GET" },
        "http_request_duration_seconds_sum"
      )
      assert.isAbove(statusSum ?? 0, 0)
      assert.isBelow(statusSum ?? Infinity, 60)

      const refusals = family(families, "partner_rate_limit_refusals_total", "counter")
      assert.strictEqual(valueOf(refusals, { partner: busy.partner.slug, environment: "live" }), 1)

      const decisions = family(families, "wallet_decisions_total", "counter")
      // Labelled with the player's currency code (BRL here), `none` when no player was found or the call not read.
      assert.isAtLeast(valueOf(decisions, { call: "WinBet", outcome: "OK", currency: "BRL" }) ?? 0, 1)
      assert.isAtLeast(valueOf(decisions, { call: "Balance", outcome: "INVALID_USER", currency: "none" }) ?? 0, 1)
      assert.isAtLeast(valueOf(decisions, { call: "unread", outcome: "INVALID_AGENT", currency: "none" }) ?? 0, 1)
      assert.isTrue(
        decisions.samples.every((sample) => /^(none|[A-Za-z][A-Za-z0-9]{1,9})$/.test(sample.labels.currency))
      )

      // The win waits in the outbox: no worker runs in this app.
      const pending = family(families, "callback_outbox_pending", "gauge")
      assert.isAtLeast(pending.samples[0].value, 1)
      const oldest = family(families, "callback_outbox_oldest_pending_age_seconds", "gauge")
      assert.isAtLeast(oldest.samples[0].value, 0)
      assert.isBelow(oldest.samples[0].value, 600)
      family(families, "callback_outbox_failed", "gauge")

      const refreshes = family(families, "refresh_duration_seconds", "histogram")
      assert.isAtLeast(
        valueOf(refreshes, { refresh: "casino_sync", outcome: "success" }, "refresh_duration_seconds_count") ?? 0,
        1
      )
      assert.isAtLeast(
        valueOf(refreshes, { refresh: "catalog_full", outcome: "success" }, "refresh_duration_seconds_count") ?? 0,
        1
      )

      const providerCalls = family(families, "sports_provider_calls_total", "counter")
      assert.isAtLeast(providerCalls.samples.filter((sample) => sample.labels.outcome === "success").length, 1)

      const cache = family(families, "sports_provider_cache_total", "counter")
      assert.isAtLeast(valueOf(cache, { result: "miss" }) ?? 0, 1)
      assert.isAtLeast(valueOf(cache, { result: "hit" }) ?? 0, 1)
      const quota = family(families, "sports_provider_quota_remaining", "gauge")
      assert.isAtLeast(quota.samples[0].value, 0)
      assert.isBelow(quota.samples[0].value, 3600)

      const checked = yield* promtool(textBody(scraped))
      if (checked.available) assert.strictEqual(checked.code, 0, checked.output)
    }))

  it.effect("the strict reader refuses what the format forbids", () =>
    Effect.sync(() => {
      const broken = [
        "a_total 1",
        "# TYPE a counter\na 1\n# TYPE b gauge\nb 2\na 3\n",
        "# TYPE a counter\na{x=\"1\"} 1\na{x=\"1\"} 2\n",
        "# TYPE a counter\na{x=1} 1\n",
        "# TYPE a counter\na -1\n",
        "a 1\n# TYPE a counter\n",
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n"
      ]
      for (const text of broken) assert.throws(() => parsePrometheusText(text), undefined, undefined, text)
      const fine = parsePrometheusText("# HELP a Things.\n# TYPE a counter\na{x=\"q\\\"\"} 1\n")
      assert.strictEqual(fine.get("a")?.samples[0].labels.x, "q\"")
    }))
})

/**
 * GET /metrics alone on a real socket, under the settings `observability`, its gauges brought up to date
 * by `refreshGauges`, its start-up logs in `logs`. Built in the test's scope.
 */
const metricsAlone = (
  observability: Partial<ObservabilityConfig["Service"]>,
  refreshGauges: Effect.Effect<void> = Effect.void,
  logs = makeLogCapture()
) =>
  Layer.build(
    serveRoutes(metricsRoutes(refreshGauges), { disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layerTest),
      Layer.provide(Layer.succeed(ObservabilityConfig, testObservabilityConfig(observability))),
      Layer.provide(logs.layer)
    )
  )

describe("who may scrape, and what a scrape costs", () => {
  it.live("with neither METRICS_TOKEN nor METRICS_PUBLIC, a scrape is refused with 403 saying what to set, and reads nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const logs = makeLogCapture()
      let refreshes = 0
      const context = yield* metricsAlone({ metricsPublic: false }, Effect.sync(() => void refreshes++), logs)
      for (const headers of [{}, bearer("anything")]) {
        const refused = yield* Effect.provide(request("GET", "/metrics", { headers }), context)
        assert.strictEqual(refused.status, 403)
        assert.strictEqual(errorBody(refused).success, false)
        assert.match(errorBody(refused).message, /set METRICS_TOKEN .*METRICS_PUBLIC=true/)
      }
      assert.strictEqual(refreshes, 0, "a refused scrape runs no query")
      // Said once at start, where the operator looks.
      const warnings = logs.entries.filter((entry) =>
        entry.level === "WARN" && String(entry.message).includes("METRICS_PUBLIC=true")
      )
      assert.strictEqual(warnings.length, 1, JSON.stringify(logs.entries))
    })))

  it.live("METRICS_PUBLIC=true serves it without a token; with METRICS_TOKEN set too, the token is still asked for", () =>
    Effect.scoped(Effect.gen(function*() {
      const open = yield* metricsAlone({ metricsPublic: true })
      const answered = yield* Effect.provide(request("GET", "/metrics"), open)
      assert.strictEqual(answered.status, 200)
      assert.include(answered.contentType, "version=0.0.4")

      const both = yield* metricsAlone({ metricsPublic: true, metricsToken: Option.some(Redacted.make(metricsToken)) })
      assert.strictEqual((yield* Effect.provide(request("GET", "/metrics"), both)).status, 401)
      assert.strictEqual((yield* Effect.provide(scrape, both)).status, 200)
    })))

  it.live("scrapes that come while the gauges are read wait for that one reading, and later ones reuse it while it is fresh", () =>
    Effect.scoped(Effect.gen(function*() {
      const reading = yield* Latch.make()
      let refreshes = 0
      const refreshGauges = Effect.andThen(Effect.sync(() => void refreshes++), reading.await)
      const context = yield* metricsAlone({ metricsPublic: true, metricsGaugeMaxAge: Duration.hours(1) }, refreshGauges)
      const scrapes = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 5 }), () => request("GET", "/metrics"), { concurrency: "unbounded" }).pipe(
          Effect.provide(context)
        )
      )
      // The first scrape is reading the gauges, and holds there until the latch opens.
      yield* eventually(Effect.sync(() => refreshes), (n) => n >= 1, "the gauges being read")
      yield* reading.open
      const answers = yield* Fiber.join(scrapes)
      assert.deepStrictEqual(answers.map((answer) => answer.status), [200, 200, 200, 200, 200])
      assert.strictEqual((yield* Effect.provide(request("GET", "/metrics"), context)).status, 200)
      assert.strictEqual(refreshes, 1, "one reading of the gauges for six scrapes")
    })))
})
