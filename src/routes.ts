/**
 * Every route the service answers, apart from the services behind them (src/server.ts builds those): the partner API's
 * handlers behind their middleware, the console's and the portal's APIs and pages, the docs, probes and metrics, the
 * aggregator's wallet URL and the sandbox's pages.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "./api/admin/AdminApi.ts"
import { apiPrefix, PartnerApi } from "./api/Api.ts"
import { ErrorMessages, ValidationFailed } from "./api/Errors.ts"
import { RequestValidation } from "./api/RequestValidation.ts"
import { PartnerAuth, PartnerUpstreams } from "./api/Security.ts"
import * as AdminAuth from "./admin/http/AdminAuth.ts"
import { AdminCasinoHandlers } from "./admin/http/Casino.ts"
import { AdminCertificationsHandlers } from "./admin/http/Certifications.ts"
import { AdminOpenApiRoute, PanelRoutes } from "./admin/http/Panel.ts"
import { AdminPartnersHandlers } from "./admin/http/Partners.ts"
import { AdminOperationsHandlers } from "./admin/http/Operations.ts"
import { AdminPartnerUsersHandlers } from "./admin/http/PartnerUsers.ts"
import { AdminLoginHandlers, AdminSessionHandlers } from "./admin/http/Session.ts"
import { AdminSystemHandlers } from "./admin/http/System.ts"
import { SystemStatus } from "./admin/SystemStatus.ts"
import { AdminWalletHandlers } from "./admin/http/Wallet.ts"
import { PortalApi } from "./api/portal/PortalApi.ts"
import { PortalTokensHandlers, PortalWebhooksHandlers } from "./portal/http/Integration.ts"
import { PortalCertificationsHandlers } from "./portal/http/Certifications.ts"
import { PortalUsageHandlers, PortalWalletHandlers } from "./portal/http/Data.ts"
import { PortalOpenApiRoute, PortalPanelRoutes } from "./portal/http/Panel.ts"
import * as PortalAuth from "./portal/http/PortalAuth.ts"
import { PortalLoginHandlers, PortalSessionHandlers } from "./portal/http/Session.ts"
import { PortalStatementsHandlers } from "./portal/http/Statements.ts"
import { PortalUsersHandlers } from "./portal/http/Users.ts"
import { AggregatorRoute } from "./integrations/playfiver/AggregatorRoute.ts"
import { Hub88WalletRouteWhenConfigured } from "./integrations/hub88/Hub88Wiring.ts"
import { WalletHandlers } from "./wallet/http.ts"
import { CertificationRepo } from "./wallet/certification/CertificationRepo.ts"
import { Certifications } from "./wallet/certification/Certifications.ts"
import { CertificationHandlers } from "./wallet/certification/http.ts"
import { StatementsHandlers } from "./wallet/statements/http.ts"
import { Statements } from "./wallet/statements/Statements.ts"
import { StuckItems } from "./wallet/stuck/StuckItems.ts"
import { OutboxRepo } from "./wallet/outbox/OutboxRepo.ts"
import { WalletLedger } from "./wallet/WalletLedger.ts"
import { CasinoHandlers } from "./casino/http.ts"
import { SportsCatalogHandlers } from "./sports/catalog/http.ts"
import { SportsStreamHandlers } from "./sports/stream/http.ts"
import { SportsStream } from "./sports/stream/SportsStream.ts"
import { ClosingLinesRepo } from "./sports/stream/ClosingLinesRepo.ts"
import * as PartnerAuthMiddleware from "./partners/PartnerAuth.ts"
import { AccountHandlers, answeredStatus } from "./partners/http.ts"
import { DirectAdmission } from "./partners/DirectAdmission.ts"
import { PartnerRateLimit } from "./partners/PartnerRateLimit.ts"
import { AppConfig } from "./platform/AppConfig.ts"
import { answeredOdds, SportsHandlers } from "./sports/http.ts"
import { apiDocsRoutes } from "./platform/ApiDocs.ts"
import { metricsRoutes } from "./platform/MetricsRoute.ts"
import { refreshOutboxGauges } from "./wallet/outbox/OutboxGauges.ts"
import { seeingOnly } from "./platform/HandlerContext.ts"
import { HealthRoutes, HttpEdgeMiddleware } from "./platform/HttpEdge.ts"
import { validateRequests } from "./platform/RequestRefusals.ts"
import { SandboxApiHandlers, SandboxDriver, SandboxDriverLive, SandboxRoutes } from "./integrations/sandbox/Sandbox.ts"
import * as PartnerUpstreamsMiddleware from "./upstreams/PartnerUpstreams.ts"
import { directPartnerAnswer } from "./upstreams/DirectPartnerAnswers.ts"
import { DirectAnswers } from "./platform/DirectAnswers.ts"

/** Request validation, failing with the contract's 422 naming every failing field. */
export const RequestValidationLive = Layer.succeed(
  RequestValidation,
  validateRequests((errors) => new ValidationFailed({ message: ErrorMessages.invalidData, errors }))
)

/**
 * The handlers of every group of the partner API, with the middleware they
 * run behind. They are built seeing only the services they take (see
 * seeingOnly): a group carries what it sees into every request it serves.
 */
export const ApiHandlersLive = Layer.mergeAll(
  AccountHandlers,
  CasinoHandlers,
  SportsHandlers,
  SportsCatalogHandlers,
  SportsStreamHandlers,
  WalletHandlers,
  CertificationHandlers,
  StatementsHandlers,
  SandboxApiHandlers
).pipe(
  seeingOnly(
    AppConfig,
    SportsStream,
    ClosingLinesRepo,
    WalletLedger,
    Certifications,
    CertificationRepo,
    Statements,
    PartnerRateLimit,
    PartnerAuth,
    PartnerUpstreams,
    RequestValidation,
    SandboxDriver
  ),
  Layer.provideMerge(
    Layer.mergeAll(PartnerAuthMiddleware.layer, PartnerUpstreamsMiddleware.layer, RequestValidationLive)
  ),
  Layer.provide(SandboxDriverLive)
)

/** The operator console's API: its handlers behind the session middleware, with request validation. */
export const AdminHandlersLive = Layer.mergeAll(
  AdminLoginHandlers,
  AdminSessionHandlers,
  AdminPartnersHandlers,
  AdminPartnerUsersHandlers,
  AdminWalletHandlers,
  AdminCasinoHandlers,
  AdminSystemHandlers,
  AdminCertificationsHandlers,
  AdminOperationsHandlers
).pipe(Layer.provide(SystemStatus.layer), Layer.provideMerge(Layer.mergeAll(AdminAuth.layer, RequestValidationLive)))

/** The console: its API with its own OpenAPI document (for logged-in admins), and its pages. */
const AdminRoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(AdminApi).pipe(Layer.provide(AdminHandlersLive)),
  PanelRoutes,
  AdminOpenApiRoute
)

/**
 * The partner portal: its API (behind the portal's session middleware, with request validation) with its own OpenAPI
 * document (for logged-in partner users), and its pages.
 */
const PortalRoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(PortalApi).pipe(Layer.provide(
    Layer.mergeAll(
      PortalLoginHandlers,
      PortalSessionHandlers,
      PortalTokensHandlers,
      PortalWebhooksHandlers,
      PortalWalletHandlers,
      PortalStatementsHandlers,
      PortalUsageHandlers,
      PortalCertificationsHandlers,
      PortalUsersHandlers
    ).pipe(Layer.provideMerge(Layer.mergeAll(PortalAuth.layer, RequestValidationLive)))
  )),
  PortalPanelRoutes,
  PortalOpenApiRoute
)

/** GET /metrics, its outbox and stuck-item gauges read from the database by the scrapes (at most once every few seconds). */
const MetricsRoutesLive = Layer.unwrap(
  Effect.gen(function*() {
    const outbox = yield* OutboxRepo
    const stuck = yield* StuckItems
    return metricsRoutes(
      Effect.all([refreshOutboxGauges(outbox), stuck.refreshGauges], { concurrency: 2, discard: true })
    )
  })
)

/** The partner API's GET route patterns, from the contract: a direct answer leaves the router the paths they share. */
const partnerGetRoutes = Object.values(PartnerApi.groups).flatMap((group) =>
  Object.values(group.endpoints).filter((endpoint) => endpoint.method === "GET").map((endpoint) => endpoint.path)
)

/**
 * The hottest reads, `/status` and an event's pre-match odds, answered at the edge by their endpoints' own handlers
 * (platform/DirectAnswers) for the requests DirectAdmission admits; every other request for them goes the whole way.
 */
const DirectAnswersLive = Layer.mergeAll(
  directPartnerAnswer({
    endpoint: PartnerApi.groups.account.endpoints.status,
    others: partnerGetRoutes,
    handler: () => answeredStatus
  }),
  directPartnerAnswer({
    endpoint: PartnerApi.groups.sports.endpoints.odds,
    others: partnerGetRoutes,
    handler: (eventId) => answeredOdds(eventId!)
  })
).pipe(Layer.provide(DirectAdmission.layer))

/** Every route the service answers: the partner API, its OpenAPI documents and docs page, the probes and metrics, the sandbox's. */
export const RoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(PartnerApi).pipe(Layer.provide(ApiHandlersLive)),
  apiDocsRoutes(PartnerApi, apiPrefix),
  AdminRoutesLive,
  PortalRoutesLive,
  HealthRoutes,
  MetricsRoutesLive,
  AggregatorRoute,
  Hub88WalletRouteWhenConfigured,
  // Always: test launches play on the sandbox's game pages whatever CASINO_GATEWAY says.
  SandboxRoutes,
  HttpEdgeMiddleware,
  DirectAnswersLive
).pipe(Layer.provide(DirectAnswers.layer))
