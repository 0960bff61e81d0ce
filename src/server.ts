import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { createServer } from "node:http"
import { apiPrefix, PartnerApi } from "./api/Api.ts"
import { RequestValidation } from "./api/RequestValidation.ts"
import { PartnerAuth } from "./api/Security.ts"
import { CallbackOutbox } from "./callbacks/CallbackOutbox.ts"
import { CallbacksConfig } from "./callbacks/CallbacksConfig.ts"
import { CallbackWorker } from "./callbacks/CallbackWorker.ts"
import { WalletRoutes } from "./callbacks/http.ts"
import { PartnerCallbacks } from "./callbacks/PartnerCallbacks.ts"
import { SandboxPartnerWallet } from "./callbacks/SandboxPartnerWallet.ts"
import { Wallet } from "./callbacks/Wallet.ts"
import { WalletCredentials } from "./callbacks/WalletCredentials.ts"
import { Casino } from "./casino/Casino.ts"
import { CasinoCatalog } from "./casino/CasinoCatalog.ts"
import { CasinoConfig } from "./casino/CasinoConfig.ts"
import { CasinoGateway } from "./casino/CasinoGateway.ts"
import { CasinoGatewayLive } from "./casino/CasinoGatewayLive.ts"
import { CatalogSync, CatalogSyncSchedule } from "./casino/CatalogSync.ts"
import { CasinoHandlers } from "./casino/http.ts"
import { PartnerPlayers } from "./casino/PartnerPlayers.ts"
import { SandboxPages } from "./casino/SandboxPages.ts"
import { SandboxPlay } from "./casino/SandboxPlay.ts"
import { Catalog } from "./catalog/Catalog.ts"
import { CatalogConfig } from "./catalog/CatalogConfig.ts"
import { CatalogSchedule } from "./catalog/CatalogSchedule.ts"
import { CatalogHandlers } from "./catalog/http.ts"
import { DemoPartnerLive } from "./partners/DemoPartner.ts"
import { PartnerAuthLive } from "./partners/PartnerAuthLive.ts"
import { Partners } from "./partners/Partners.ts"
import { AccountHandlers } from "./partners/http.ts"
import { AppConfig } from "./platform/AppConfig.ts"
import { SportsHandlers } from "./sports/http.ts"
import { SportsConfig } from "./sports/SportsConfig.ts"
import { SportsProvider } from "./sports/SportsProvider.ts"
import { SportsProviderLive } from "./sports/SportsProviderLive.ts"
import * as Database from "./platform/Database.ts"
import { seeingOnly } from "./platform/HandlerContext.ts"
import { HealthRoutes, HttpEdgeMiddleware, MaxBodySizeLive } from "./platform/HttpEdge.ts"
import { RequestValidationLive } from "./platform/RequestValidation.ts"

/**
 * The handlers of every group of the partner API, with the middleware they
 * run behind. They are built seeing only the services they take (see
 * seeingOnly): a group carries what it sees into every request it serves.
 */
export const ApiHandlersLive = Layer.mergeAll(AccountHandlers, CasinoHandlers, SportsHandlers, CatalogHandlers).pipe(
  seeingOnly(CasinoGateway, CasinoCatalog, Casino, SportsProvider, Catalog, PartnerAuth, RequestValidation),
  Layer.provideMerge(Layer.mergeAll(PartnerAuthLive, RequestValidationLive))
)

/** Every route the service answers: the partner API, its OpenAPI document and docs page, the probes, the sandbox. */
export const RoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(PartnerApi, { openapiPath: `${apiPrefix}/openapi.json` }).pipe(
    Layer.provide(ApiHandlersLive)
  ),
  HttpApiScalar.layer(PartnerApi, { path: "/docs", scalar: { withDefaultFonts: false } }),
  HealthRoutes,
  WalletRoutes,
  SandboxPages,
  SandboxPlay,
  SandboxPartnerWallet,
  HttpEdgeMiddleware
)

/** The casino area: the gateway CASINO_GATEWAY selects, the local catalog, players and launches. */
export const CasinoLive = Layer.mergeAll(Casino.layer, CatalogSync.layer).pipe(
  Layer.provideMerge(Layer.mergeAll(CasinoCatalog.layer, PartnerPlayers.layer, CasinoGatewayLive))
)

/** The wallet: the aggregator's calls, the ledger, the partner callbacks and their outbox. */
export const CallbacksLive = Layer.mergeAll(Wallet.layer, WalletCredentials.layer).pipe(
  Layer.provideMerge(CallbackOutbox.layer),
  Layer.provideMerge(PartnerCallbacks.layer)
)

/** The domain services the routes use. Needs the database and the configuration. */
export const ServicesLive = Layer.mergeAll(Partners.layer, CasinoLive, Catalog.layer, CallbacksLive).pipe(
  Layer.provideMerge(SportsProviderLive)
)

/** Every setting, read from the environment. */
export const ConfigLive = Layer.mergeAll(
  AppConfig.layer,
  CasinoConfig.layer,
  SportsConfig.layer,
  CatalogConfig.layer,
  CallbacksConfig.layer
)

/** The services with their database (migrated), start-up data and background work. */
export const AppLive = Layer.mergeAll(DemoPartnerLive, CatalogSyncSchedule, CatalogSchedule, CallbackWorker).pipe(
  Layer.provideMerge(ServicesLive),
  Layer.provideMerge(Database.layer)
)

const HttpServerLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  return NodeHttpServer.layer(createServer, { port: config.port, host: config.host })
}))

/**
 * The whole service. Shutdown runs in reverse: the HTTP server stops
 * accepting and drains in-flight requests, then background work stops and
 * the pool closes, then the embedded database (if any) stops.
 */
export const ServerLive = HttpRouter.serve(RoutesLive, { disableLogger: true }).pipe(
  Layer.provide(MaxBodySizeLive),
  Layer.provide(HttpServerLive),
  Layer.provide(AppLive),
  Layer.provide(ConfigLive)
)
