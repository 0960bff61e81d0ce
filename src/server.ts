import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Duration, Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { CallbackAdmin } from "./changes/CallbackAdmin.ts"
import { CasinoAdmin } from "./changes/CasinoAdmin.ts"
import { CasinoSyncAdmin } from "./changes/CasinoSyncAdmin.ts"
import { CertificationAdmin } from "./changes/CertificationAdmin.ts"
import { PartnerAdmin } from "./changes/PartnerAdmin.ts"
import { SportsAdmin } from "./changes/SportsAdmin.ts"
import { AdminAccounts } from "./identity/AdminAccounts.ts"
import { AdminAccountRepo } from "./identity/AdminAccountRepo.ts"
import { AuditRepo } from "./identity/AuditRepo.ts"
import { LoginAttemptRepo } from "./identity/LoginAttemptRepo.ts"
import { PasswordHashing } from "./identity/Passwords.ts"
import { PartnerUserRepo } from "./identity/PartnerUserRepo.ts"
import { PartnerUsers } from "./identity/PartnerUsers.ts"
import { CallbackOutbox } from "./wallet/outbox/CallbackOutbox.ts"
import { CallbacksConfig } from "./wallet/CallbacksConfig.ts"
import { CallbackWorker } from "./wallet/outbox/CallbackWorker.ts"
import { CertificationRecovery } from "./wallet/certification/CertificationRecovery.ts"
import { CertificationPruning } from "./wallet/certification/CertificationPruning.ts"
import { Certifications } from "./wallet/certification/Certifications.ts"
import { StatementRepo } from "./wallet/statements/StatementRepo.ts"
import { Statements } from "./wallet/statements/Statements.ts"
import { OperatorAlerts } from "./wallet/stuck/OperatorAlerts.ts"
import { StuckAlertRepo } from "./wallet/stuck/StuckAlertRepo.ts"
import { UnreadableCallRepo } from "./wallet/stuck/UnreadableCallRepo.ts"
import { StuckItems } from "./wallet/stuck/StuckItems.ts"
import { WalletOperations } from "./wallet/WalletOperations.ts"
import { OutboxRepo } from "./wallet/outbox/OutboxRepo.ts"
import { PartnerCallbacks } from "./wallet/outbox/PartnerCallbacks.ts"
import { Wallet } from "./wallet/Wallet.ts"
import { TestData } from "./wallet/TestData.ts"
import { WalletCredentials } from "./integrations/playfiver/WalletCredentials.ts"
import { WalletLedger } from "./wallet/WalletLedger.ts"
import { WalletRecovery } from "./wallet/WalletRecovery.ts"
import { WalletRepo } from "./wallet/WalletRepo.ts"
import { Casino } from "./casino/Casino.ts"
import { WalletCallsByAggregator } from "./casino/AggregatorStates.ts"
import { CasinoCatalog } from "./casino/CasinoCatalog.ts"
import * as CasinoGatewaySelection from "./integrations/CasinoGatewaySelection.ts"
import { CatalogSync, CatalogSyncSchedule } from "./casino/CatalogSync.ts"
import * as TestCasino from "./casino/TestCasino.ts"
import { CatalogSchedule } from "./sports/catalog/CatalogSchedule.ts"
import { SportsCatalog } from "./sports/catalog/SportsCatalog.ts"
import { StatSamplesPruning } from "./sports/StatSamplesPruning.ts"
import { StatSamplesRepo } from "./sports/StatSamplesRepo.ts"
import { ChangeRecorder } from "./sports/stream/ChangeRecorder.ts"
import { askingClosingLines } from "./sports/stream/ClosingLineAsks.ts"
import { ClosingLinesPruning } from "./sports/stream/ClosingLinesPruning.ts"
import { ClosingLinesRepo } from "./sports/stream/ClosingLinesRepo.ts"
import { recordingOdds } from "./sports/stream/OddsReads.ts"
import { SportsChangeLog } from "./sports/stream/SportsChangeLog.ts"
import { SportsStream } from "./sports/stream/SportsStream.ts"
import { StreamLeases } from "./sports/stream/StreamLeases.ts"
import { recordingResults } from "./sports/stream/ResultReads.ts"
import { ResultRecords } from "./sports/stream/ResultRecords.ts"
import { StreamRecords } from "./sports/stream/StreamRecords.ts"
import { StreamSchedule } from "./sports/stream/StreamSchedule.ts"
import * as DemoPartner from "./partners/DemoPartner.ts"
import { PartnerPlayers } from "./partners/PartnerPlayers.ts"
import { PartnerRateLimit } from "./partners/PartnerRateLimit.ts"
import { Partners } from "./partners/Partners.ts"
import { AppConfig } from "./platform/AppConfig.ts"
import { AuthFailureLimit } from "./platform/AuthFailureLimit.ts"
import { SportsConfig } from "./sports/SportsConfig.ts"
import * as SportsProviderSelection from "./integrations/SportsProviderSelection.ts"
import * as TestSports from "./sports/TestSports.ts"
import { Upstreams } from "./upstreams/Upstreams.ts"
import * as Database from "./platform/Database.ts"
import { TracingLive } from "./platform/Tracing.ts"
import { createHttpServer, MaxBodySizeLive } from "./platform/HttpEdge.ts"
import { serveRoutes } from "./platform/HttpServe.ts"
import { SharedPersistence, SharedRateLimiterLive, SharedStoreLive } from "./platform/SharedStore.ts"
import {
  ConfiguredAgentCredentialsLive,
  SandboxAgentCredentialsLive,
  SandboxCasinoGatewayLive,
  SandboxSportsProviderLive,
  SandboxTestCasinoGatewayLive
} from "./integrations/sandbox/Sandbox.ts"

import { RoutesLive } from "./routes.ts"
import {
  CallbackTargetsLive,
  casinoSandboxSelected,
  ConfigLive,
  DemoPartnerWalletLive,
  SandboxCallbackUrlsLive
} from "./processLayers.ts"

// Where they were first defined; tests and the bench import them from here.
export { CallbackTargetsLive, ConfigLive, SandboxCallbackUrlsLive } from "./processLayers.ts"

/** The casino area: the gateways CASINO_GATEWAY lists, the local catalog, players and launches. */
export const CasinoLive = Layer.mergeAll(Casino.layer, CatalogSync.layer).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      CasinoCatalog.layer,
      CasinoGatewaySelection.layer(SandboxCasinoGatewayLive),
      WalletCallsByAggregator.layerSql
    )
  )
)

/**
 * The agents the aggregator's wallet calls must carry: the sandbox's own or the configured one (live),
 * and the sandbox's test agent (test launches).
 */
const WalletCredentialsLive = Layer.unwrap(
  Effect.map(
    casinoSandboxSelected,
    (selected): Layer.Layer<WalletCredentials, never, CallbacksConfig | SqlClient.SqlClient> =>
      selected ? SandboxAgentCredentialsLive : ConfiguredAgentCredentialsLive
  )
)

/**
 * The wallet: the aggregator's calls, the ledger and its reading, the partner callbacks and their outbox, the
 * daily statements and the stuck items, over a WalletRepo (PostgreSQL's; a test may wrap it to inject a fault).
 */
export const callbacksLayer = <E, R>(walletRepo: Layer.Layer<WalletRepo, E, R>) =>
  Layer.mergeAll(
    Wallet.layer,
    WalletLedger.layer,
    WalletCredentialsLive,
    Certifications.layer,
    Statements.layer,
    StuckItems.layer
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        walletRepo,
        CallbackOutbox.layer,
        StatementRepo.layerSql,
        StuckAlertRepo.layerSql,
        UnreadableCallRepo.layerSql,
        OperatorAlerts.layer
      )
    ),
    Layer.provideMerge(Layer.mergeAll(OutboxRepo.layerSql, PartnerCallbacks.layer, CallbackTargetsLive))
  )

/** The sports provider a live token streams: the one SPORTS_PROVIDER names (`betsapi`, `apifootball`, `sandbox`). */
const liveProvider = <A, E, R>(layer: (provider: string) => Layer.Layer<A, E, R>) =>
  Layer.unwrap(Effect.map(Effect.service(SportsConfig), (config) => layer(config.provider)))

/** The provider a test token streams, whatever SPORTS_PROVIDER says. */
const sandboxProvider = "sandbox"

/** A provider's reads recorded: its odds in the change stream, its results in the service's record of results. */
const recordingReads = (provider: string) => recordingResults(provider).pipe(Layer.provide(recordingOdds(provider)))

/**
 * The provider named `provider` with its reads recorded (recordingReads), and asked for the closing lines the
 * stream could not keep at kick-off.
 */
const recordingReadsAndClosings = (provider: string) =>
  Layer.merge(recordingReads(provider), askingClosingLines(provider))

/**
 * The provider SPORTS_PROVIDER selects: BetsAPI, API-Football or the sandbox's simulated sports data; its odds and
 * result reads recorded, its closing lines asked for, its statistics samples (a provider of running totals) kept.
 */
const SportsProviderLayer = liveProvider(recordingReadsAndClosings).pipe(
  Layer.provide(SportsProviderSelection.layer(SandboxSportsProviderLive)),
  Layer.provide(StatSamplesRepo.layer)
)

/** The live change stream: its log, what writes to it (closing lines too), the streams of this instance. */
const SportsStreamLive = Layer.mergeAll(SportsStream.layer, ChangeRecorder.layer).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      SportsChangeLog.layerSql,
      StreamRecords.layerSql,
      ResultRecords.layerSql,
      StreamLeases.layerSql,
      ClosingLinesRepo.layerSql
    )
  )
)

/** The live sports catalog, its refreshes recorded in the change stream of the live provider. */
const SportsLive = SportsCatalog.layer.pipe(Layer.provideMerge(liveProvider(ChangeRecorder.catalogChanges)))

/**
 * The upstreams of each environment (src/upstreams): live, the ones above; test, always the sandboxes' (the
 * sandbox aggregator's test agent, the sandbox's sports provider and a catalog of its own, its refreshes, odds and
 * result reads recorded in the sandbox provider's change stream and record of results, its closing lines asked of
 * the sandbox).
 */
const UpstreamsLive = Upstreams.layer(Layer.merge(
  TestCasino.layer(SandboxTestCasinoGatewayLive),
  TestSports.layer(
    recordingReadsAndClosings(sandboxProvider).pipe(Layer.provide(SandboxSportsProviderLive)),
    ChangeRecorder.memoryCatalogChanges(sandboxProvider)
  )
))

/**
 * Identity (the console's accounts, the partners' portal users, the audit trail) and the audited changes the console,
 * the portal and the CLI make, over the domain services.
 */
const IdentityAndChangesLive = Layer.mergeAll(
  AdminAccounts.layerNoDeps,
  PartnerUsers.layerNoDeps,
  PartnerAdmin.layer,
  CasinoAdmin.layer,
  CasinoSyncAdmin.layer,
  CallbackAdmin.layer,
  SportsAdmin.layer,
  CertificationAdmin.layer
).pipe(
  Layer.provideMerge(Layer.merge(AuditRepo.layerSql, PasswordHashing.layer)),
  Layer.provide(Layer.mergeAll(AdminAccountRepo.layerSql, PartnerUserRepo.layerSql, LoginAttemptRepo.layerSql))
)

/** The domain services the routes use, the wallet over `walletRepo`. Needs the database and the configuration. */
export const servicesLayer = <E, R>(walletRepo: Layer.Layer<WalletRepo, E, R>) =>
  Layer.mergeAll(UpstreamsLive, IdentityAndChangesLive).pipe(
    Layer.provideMerge(
      Layer.mergeAll(CasinoLive, SportsLive, callbacksLayer(walletRepo)).pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            Partners.layer,
            PartnerPlayers.layerSql,
            TestData.layerSql,
            CallbackTargetsLive,
            SportsProviderLayer,
            PartnerRateLimit.layer,
            AuthFailureLimit.layer,
            StatSamplesRepo.layer
          )
        ),
        Layer.provideMerge(SportsStreamLive),
        Layer.provideMerge(DemoPartnerWalletLive),
        Layer.provide(SandboxCallbackUrlsLive)
      )
    ),
    Layer.provideMerge(SharedStoresLive)
  )

/**
 * What the instances of a fleet share (Redis with REDIS_URL, memory otherwise): the one RateLimiter every
 * limit of the service counts in (the provider's quota and each partner's allowance), and the store of the
 * provider's answers.
 */
export const SharedStoresLive = Layer.mergeAll(SharedRateLimiterLive, SharedPersistence.layer).pipe(
  Layer.provideMerge(SharedStoreLive)
)

export const ServicesLive = servicesLayer(WalletRepo.layerSql)

/** The services with their database (migrated), start-up data and background work. */
export const AppLive = Layer.mergeAll(
  DemoPartner.layer,
  CatalogSyncSchedule,
  CatalogSchedule,
  StreamSchedule,
  CallbackWorker,
  WalletRecovery,
  CertificationRecovery,
  WalletOperations,
  CertificationPruning,
  StatSamplesPruning,
  ClosingLinesPruning
).pipe(
  Layer.provideMerge(ServicesLive),
  Layer.provideMerge(Database.layer)
)

/** The HTTP server; at a stop, requests still in flight after half of SHUTDOWN_TIMEOUT are interrupted. */
const HttpServerLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  return NodeHttpServer.layer(createHttpServer, {
    port: config.port,
    host: config.host,
    gracefulShutdownTimeout: Duration.divideUnsafe(config.shutdownTimeout, 2)
  })
}))

/** A stop ends the change streams first (each with its retry hint), so the drain does not wait on them. */
const endStreams = Effect.flatMap(Effect.service(SportsStream), (streams) => streams.stop)

/** Every route served; at a stop the change streams end before the drain. */
export const serveApp = (options: { readonly disableListenLog?: boolean } = {}) =>
  serveRoutes(RoutesLive, { ...options, beforeDrain: endStreams })

/**
 * The whole service. Shutdown runs in reverse: the HTTP server stops
 * accepting and drains in-flight requests (for half of SHUTDOWN_TIMEOUT at
 * most), then background work stops (a scheduled refresh is interrupted, a
 * delivery in flight finishes) and the pool closes, then the embedded
 * database (if any) stops. main.ts bounds the whole of it by SHUTDOWN_TIMEOUT.
 */
export const ServerLive = serveApp().pipe(
  Layer.provide(MaxBodySizeLive),
  Layer.provide(HttpServerLive),
  Layer.provide(AppLive),
  Layer.provide(TracingLive),
  Layer.provide(ConfigLive)
)
