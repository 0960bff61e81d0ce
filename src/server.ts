import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { createServer } from "node:http"
import { apiPrefix, PartnerApi } from "./api/Api.ts"
import { DemoPartnerLive } from "./partners/DemoPartner.ts"
import { PartnerAuthLive } from "./partners/PartnerAuthLive.ts"
import { Partners } from "./partners/Partners.ts"
import { AccountHandlers } from "./partners/http.ts"
import { AppConfig } from "./platform/AppConfig.ts"
import * as Database from "./platform/Database.ts"
import { HealthRoutes, HttpEdgeMiddleware, MaxBodySizeLive } from "./platform/HttpEdge.ts"
import { RequestValidationLive } from "./platform/RequestValidation.ts"

/** The handlers of every group of the partner API, with the middleware they run behind. */
export const ApiHandlersLive = Layer.mergeAll(AccountHandlers).pipe(
  Layer.provideMerge(Layer.mergeAll(PartnerAuthLive, RequestValidationLive))
)

/** Every route the service answers: the partner API, its OpenAPI document and docs page, and the probes. */
export const RoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(PartnerApi, { openapiPath: `${apiPrefix}/openapi.json` }).pipe(
    Layer.provide(ApiHandlersLive)
  ),
  HttpApiScalar.layer(PartnerApi, { path: "/docs", scalar: { withDefaultFonts: false } }),
  HealthRoutes,
  HttpEdgeMiddleware
)

/** The domain services the routes use, over the database. */
export const ServicesLive = Partners.layer

/** The services with their database (migrated) and start-up data. */
export const AppLive = DemoPartnerLive.pipe(
  Layer.provideMerge(ServicesLive),
  Layer.provideMerge(Database.layer)
)

const HttpServerLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  return NodeHttpServer.layer(createServer, { port: config.port, host: config.host })
}))

/**
 * The whole service. Shutdown runs in reverse: the HTTP server stops
 * accepting and drains in-flight requests, then the pool closes, then the
 * embedded database (if any) stops.
 */
export const ServerLive = HttpRouter.serve(RoutesLive, { disableLogger: true }).pipe(
  Layer.provide(MaxBodySizeLive),
  Layer.provide(HttpServerLive),
  Layer.provide(AppLive),
  Layer.provide(AppConfig.layer)
)
