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

/**
 * GET /metrics: every metric (see Metrics.ts) as Prometheus text, outside the
 * partner prefix. With METRICS_TOKEN set it asks for that token as a bearer
 * token (compared in constant time) and answers 401 in the error envelope
 * otherwise; without it, it is open. `beforeScrape` brings the gauges that are
 * read from the database up to date first (the outbox's backlog); if that
 * fails, the scrape still answers with what the service knows.
 */
export const metricsRoutes = <R>(beforeScrape: Effect.Effect<void, never, R>) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const config = yield* ObservabilityConfig
    const expected = Option.map(config.metricsToken, (token) => digest(Redacted.value(token)))
    const allowed = (request: HttpServerRequest.HttpServerRequest) =>
      Option.match(expected, {
        onNone: () => true,
        onSome: (want) => timingSafeEqual(digest(bearerToken(request.headers.authorization)), want)
      })
    const scrape = Effect.andThen(
      beforeScrape.pipe(Effect.timeout("5 seconds"), Effect.catchCause((cause) => Effect.logWarning("Metrics: a gauge could not be read", cause))),
      PrometheusMetrics.format()
    ).pipe(Effect.map((body) => HttpServerResponse.text(body, { contentType: "text/plain; version=0.0.4; charset=utf-8" })))
    yield* router.add(
      "GET",
      metricsPath,
      Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => allowed(request) ? scrape : Effect.succeed(unauthorized))
    )
  }))
