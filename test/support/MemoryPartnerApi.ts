/**
 * The casino and account groups of the partner API over memory: the real handlers, the real
 * authentication and request validation middleware, the real services, over in-memory repositories
 * and a casino gateway that answers at once. For the contract's rules without PostgreSQL
 * (HttpApiTest); the repositories' SQL, the launch against an aggregator over HTTP and the races
 * stay in the PostgreSQL tests.
 */
import { Effect, Layer } from "effect"
import { HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiMiddleware, HttpApiTest } from "effect/http-api"
import { PartnerApi } from "../../src/api/Api.ts"
import { PartnerAuth } from "../../src/api/Security.ts"
import { Casino } from "../../src/casino/Casino.ts"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { CasinoGateway, CasinoGatewayError } from "../../src/casino/CasinoGateway.ts"
import { CasinoStudioRepo } from "../../src/casino/CasinoStudioRepo.ts"
import * as CasinoGatewaySelection from "../../src/integrations/CasinoGatewaySelection.ts"
import { CasinoHandlers } from "../../src/casino/http.ts"
import { CallbackUrlPolicy } from "../../src/partners/CallbackUrlPolicy.ts"
import { AccountHandlers } from "../../src/partners/http.ts"
import * as PartnerAuthMiddleware from "../../src/partners/PartnerAuth.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRateLimit } from "../../src/partners/PartnerRateLimit.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { StatusReport } from "../../src/partners/StatusReport.ts"
import { AuthFailureLimit } from "../../src/platform/AuthFailureLimit.ts"
import { SharedStoresLive } from "../../src/server.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { SpecUpstreams } from "./SpecUpstreams.ts"
import { TestConfig, type TestSettings } from "./TestApp.ts"
import * as CasinoCatalogRepoMemory from "../../src/casino/CasinoCatalogRepoMemory.ts"

/** A game code the memory gateway cannot launch: the aggregator is unavailable for it. */
export const unlaunchableGame = "unlaunchable"

/** The aggregator, answering at once: a launch URL naming the user code and game, nothing to list. */
export const MemoryCasinoGateway = Layer.succeed(
  CasinoGateway,
  CasinoGateway.of({
    name: "sandbox",
    configured: true,
    serves: () => true,
    providers: Effect.succeed([]),
    games: () => Effect.succeed([]),
    launch: (request) =>
      request.gameCode === unlaunchableGame
        ? Effect.fail(new CasinoGatewayError({ reason: "Unavailable", message: "connection refused at 10.0.0.9" }))
        : Effect.succeed({ url: `https://play.example/${request.userCode}/${request.gameCode}`, response: {} })
  })
)

/** The gateway CASINO_GATEWAY names (the memory one in the sandbox's place), as the service selects it. */
const CasinoGatewayMemory = CasinoGatewaySelection.layer(MemoryCasinoGateway)

/** What /status reports: the selected casino gateway's configuration; the sports side is the sandbox's. */
const StatusReportMemory = Layer.effect(
  StatusReport,
  Effect.map(
    Effect.service(CasinoGateway),
    (gateway) =>
      StatusReport.of({
        aggregatorConfigured: gateway.configured,
        aggregators: () =>
          Effect.succeed([{
            name: gateway.name,
            configured: gateway.configured,
            lastCatalogSync: null,
            walletCalls: 0,
            lastWalletCall: null
          }]),
        sportsProvider: { name: "sandbox", configured: true }
      })
  )
)

/** The services the casino and account handlers and the partner middleware take, over memory. */
export const MemoryServices = (settings: TestSettings = {}) =>
  Layer.mergeAll(Casino.layer, StatusReportMemory, PartnerRateLimit.layer, AuthFailureLimit.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(
      CasinoCatalog.layerNoDeps.pipe(
        Layer.provideMerge(Layer.merge(CasinoCatalogRepoMemory.layerMemory, CasinoStudioRepo.layerMemory))
      ),
      Partners.layerNoDeps.pipe(Layer.provideMerge(Layer.merge(PartnerRepo.layerMemory, CallbackUrlPolicy.layer))),
      PartnerPlayers.layerMemory,
      CasinoGatewayMemory
    )),
    Layer.provideMerge(SharedStoresLive),
    Layer.provideMerge(TestConfig(settings))
  )

/** The casino and account handlers with their middleware, over MemoryServices; no socket. */
export const MemoryPartnerApi = (settings: TestSettings = {}) =>
  Layer.mergeAll(CasinoHandlers, AccountHandlers).pipe(
    Layer.provideMerge(Layer.mergeAll(PartnerAuthMiddleware.layer, SpecUpstreams, RequestValidationLive)),
    Layer.provideMerge(MemoryServices(settings)),
    Layer.provideMerge(HttpServer.layerServices)
  )

/** The typed client's side of PartnerAuth: send this token as a bearer. */
export const asPartner = (token: string) =>
  HttpApiMiddleware.layerClient(PartnerAuth, ({ next, request }) => next(HttpClientRequest.bearerToken(request, token)))

/** A typed client of the casino and account groups, in memory, carrying `token`. */
export const memoryClient = (token: string) =>
  HttpApiTest.groups(PartnerApi, ["casino", "account"]).pipe(Effect.provide(asPartner(token)))
