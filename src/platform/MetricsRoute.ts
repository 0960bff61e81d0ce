import { Effect, Option, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { hash, timingSafeEqual } from "node:crypto"
import { ObservabilityConfig } from "./ObservabilityConfig.ts"

export const metricsPath = "/metrics"

const digest = (text: string) => hash("sha256", text, "buffer")

/** The token of an `Authorization: Bearer <token>` header (scheme in any case), or "". */
const bearerToken = (header: string | undefined) => {
  const match = header === undefined ? null : /^bearer\s+(.+)$/i.exec(header.trim())
  return match === null ? "" : match[1].trim()
}

const unauthorized = HttpServerResponse.jsonUnsafe(
  { success: false, message: "A valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)." },
  { status: 401, headers: { "www-authenticate": "Bearer" } }
)

/** What an operator reads when neither METRICS_TOKEN nor METRICS_PUBLIC=true is set. */
export const metricsOffMessage =
  "GET /metrics is off: set METRICS_TOKEN (scrapers send it as Authorization: Bearer <token>), or METRICS_PUBLIC=true to serve it to anyone who reaches the service."

const refused = HttpServerResponse.jsonUnsafe({ success: false, message: metricsOffMessage }, { status: 403 })

/** Who may scrape: the bearer of METRICS_TOKEN, anyone (METRICS_PUBLIC=true without a token), or no one. */
type Access =
  | { readonly _tag: "Token"; readonly digest: Buffer }
  | { readonly _tag: "Public" }
  | { readonly _tag: "Off" }

const accessOf = (config: ObservabilityConfig["Service"]): Access =>
  Option.match(config.metricsToken, {
    onSome: (token) => ({ _tag: "Token", digest: digest(Redacted.value(token)) }),
    onNone: () => config.metricsPublic ? { _tag: "Public" } : { _tag: "Off" }
  })

/**
 * GET /metrics: every metric (see Metrics.ts) as Prometheus text, outside the
 * partner prefix. The metrics name every partner and its traffic, and a scrape
 * reads the database, so they are not served to just anyone: with
 * METRICS_TOKEN set it asks for that token as a bearer token (compared in
 * constant time; 401 in the error envelope otherwise); without it, it answers
 * 403 saying what to set, unless METRICS_PUBLIC=true opens it. A HOST on the
 * loopback opens nothing: a reverse proxy on the same machine forwards
 * /metrics from anywhere.
 *
 * `refreshGauges` brings the gauges read from the database up to date (the
 * outbox's backlog). It runs at most once per `metricsGaugeMaxAge`, and
 * scrapes that come while it runs wait for that run instead of starting one
 * each (effect's `cachedWithTTL`); if it fails, the scrape still answers with
 * what the service knows.
 */
export const metricsRoutes = <R>(refreshGauges: Effect.Effect<void, never, R>) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const config = yield* ObservabilityConfig
    const access = accessOf(config)
    if (access._tag === "Off") yield* Effect.logWarning(metricsOffMessage)
    if (access._tag === "Token" && config.metricsPublic) {
      yield* Effect.logWarning("METRICS_PUBLIC=true is ignored: METRICS_TOKEN is set, and /metrics asks for it")
    }
    const allowed = (request: HttpServerRequest.HttpServerRequest) =>
      access._tag === "Public" ||
      (access._tag === "Token" && timingSafeEqual(digest(bearerToken(request.headers.authorization)), access.digest))
    const gauges = yield* Effect.cachedWithTTL(
      refreshGauges.pipe(
        Effect.timeout("5 seconds"),
        Effect.catchCause((cause) => Effect.logWarning("Metrics: a gauge could not be read", cause))
      ),
      config.metricsGaugeMaxAge
    )
    const scrape = Effect.andThen(gauges, PrometheusMetrics.format()).pipe(
      Effect.map((body) => HttpServerResponse.text(body, { contentType: "text/plain; version=0.0.4; charset=utf-8" }))
    )
    yield* router.add(
      "GET",
      metricsPath,
      Effect.flatMap(
        Effect.service(HttpServerRequest.HttpServerRequest),
        (request) =>
          access._tag === "Off" ? Effect.succeed(refused) : allowed(request) ? scrape : Effect.succeed(unauthorized)
      )
    )
  }))
