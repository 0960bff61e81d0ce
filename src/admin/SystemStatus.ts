/** The console's system page: health, version, a configuration summary (no secrets), backlogs and jobs. */
import { Context, Duration, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { readFileSync } from "node:fs"
import { CallbackOutbox } from "../wallet/outbox/CallbackOutbox.ts"
import { CallbacksConfig } from "../wallet/CallbacksConfig.ts"
import { WalletLedger } from "../wallet/WalletLedger.ts"
import { CasinoCatalog } from "../casino/CasinoCatalog.ts"
import { CasinoConfig } from "../casino/CasinoConfig.ts"
import { type AggregatorState, aggregatorStates, WalletCallsByAggregator } from "../casino/AggregatorStates.ts"
import { CasinoGateways } from "../casino/CasinoGateway.ts"
import { SportsCatalog } from "../sports/catalog/SportsCatalog.ts"
import { SportsCatalogConfig } from "../sports/catalog/SportsCatalogConfig.ts"
import { AppConfig, publicBaseUrl } from "../platform/AppConfig.ts"
import * as DatabaseHealth from "../platform/DatabaseHealth.ts"
import { SportsConfig } from "../sports/SportsConfig.ts"
import { SportsProvider } from "../sports/SportsProvider.ts"
import { IdentityConfig } from "../identity/IdentityConfig.ts"
import { OperationsConfig } from "../wallet/stuck/OperationsConfig.ts"

const version =
  (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version
const startedAt = new Date()
const duration = (value: Duration.Duration) => Duration.format(value)

export interface SystemReport {
  readonly version: string
  readonly startedAt: Date
  readonly database: { readonly ok: boolean; readonly embedded: boolean }
  readonly casino: {
    /** CASINO_GATEWAY's names, comma-separated. */
    readonly gateway: string
    /** Every aggregator listed is configured. */
    readonly configured: boolean
    /** Each aggregator's state; its wallet calls are the live ones. */
    readonly aggregators: ReadonlyArray<AggregatorState>
    readonly providers: number
    readonly games: number
  }
  readonly sports: {
    readonly provider: string
    readonly configured: boolean
    readonly rateLimitPerHour: number
    readonly catalog: {
      readonly sports: number
      readonly countries: number
      readonly leagues: number
      readonly teams: number
      readonly events: number
    }
  }
  readonly wallet: { readonly pendingBets: number; readonly failedCallbacks: number; readonly pendingCallbacks: number }
  /** The players' delivery queues (under the name the console's API has always given them). */
  readonly jobs: { readonly queued: number; readonly locked: number; readonly failing: number }
  readonly configuration: Readonly<Record<string, string>>
}

/** The settings an operator may want to see, and none that is a secret (no URL with a password, token or key). */
const configuration = Effect.gen(function*() {
  const app = yield* AppConfig
  const casino = yield* CasinoConfig
  const sports = yield* SportsConfig
  const catalog = yield* SportsCatalogConfig
  const callbacks = yield* CallbacksConfig
  const identity = yield* IdentityConfig
  const operations = yield* OperationsConfig
  return {
    PUBLIC_URL: publicBaseUrl(app),
    DATABASE_URL: Option.isSome(app.databaseUrl) ? "set (not shown)" : `unset: embedded under ${app.dataDir}`,
    LOG_LEVEL: app.logLevel,
    AUTH_CACHE_TTL: `${app.authCacheTtlMillis} ms`,
    CASINO_GATEWAY: casino.gateways.join(","),
    CASINO_SYNC_INTERVAL: duration(casino.syncInterval),
    PLAYFIVER_BASE_URL: casino.playfiver.baseUrl,
    PLAYFIVER_AGENT_TOKEN: Option.isSome(casino.playfiver.agentToken) ? "set (not shown)" : "unset",
    SPORTS_PROVIDER: sports.provider,
    SPORTS_PROVIDER_RATE_LIMIT: `${sports.rateLimitPerHour} calls an hour`,
    BETSAPI_TOKEN: Option.isSome(sports.betsapi.token) ? "set (not shown)" : "unset",
    CATALOG_SPORT_IDS: catalog.sportIds.join(","),
    CATALOG_REFRESH_INTERVAL: duration(catalog.refreshInterval),
    CATALOG_LIVE_REFRESH_INTERVAL: duration(catalog.liveRefreshInterval),
    PARTNER_CALLBACK_TIMEOUT: duration(callbacks.timeout),
    PARTNER_CALLBACK_MAX_ATTEMPTS: String(callbacks.maxAttempts),
    PARTNER_CALLBACK_WORKERS: String(callbacks.workers),
    WALLET_PENDING_TIMEOUT: duration(callbacks.pendingTimeout),
    WALLET_STUCK_ROUND_AFTER: duration(operations.stuckRoundAfter),
    // A webhook URL often carries its own key (chat webhooks do): shown as set, like the tokens.
    OPERATOR_ALERT_URL: Option.isSome(operations.alertUrl) ? "set (not shown)" : "unset: no alert is sent",
    ADMIN_SESSION_TTL: duration(identity.sessionTtl),
    ADMIN_LOGIN_MAX_FAILURES: String(identity.loginMaxFailures),
    ADMIN_LOGIN_LOCKOUT: duration(identity.loginLockout),
    ADMIN_LOGIN_MAX_LOCKOUT: duration(identity.loginMaxLockout),
    ADMIN_LOGIN_MAX_FAILURES_PER_ADDRESS: String(identity.loginMaxFailuresPerAddress),
    ADMIN_LOGIN_WINDOW: duration(identity.loginWindow),
    ADMIN_LOGIN_CONCURRENT_HASHES: String(identity.concurrentHashes),
    ADMIN_ONE_TIME_PASSWORD_TTL: duration(identity.oneTimePasswordTtl)
  }
})

export class SystemStatus extends Context.Service<SystemStatus, {
  /** Read now; the database is "ok" when it answers the readiness check. */
  readonly report: Effect.Effect<SystemReport>
}>()("partner-api/admin/SystemStatus") {
  static readonly layer = Layer.effect(
    SystemStatus,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const outbox = yield* CallbackOutbox
      const ledger = yield* WalletLedger
      const casinoCatalog = yield* CasinoCatalog
      const sportsCatalog = yield* SportsCatalog
      const sportsProvider = yield* SportsProvider
      const settings = yield* configuration
      const app = yield* AppConfig
      const casinoConfig = yield* CasinoConfig
      const sportsConfig = yield* SportsConfig
      const casinoGateways = yield* CasinoGateways
      const walletCalls = yield* WalletCallsByAggregator
      const databaseOk = DatabaseHealth.ping.pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.as(true),
        Effect.orElseSucceed(() => false)
      )

      const report = Effect.fn("SystemStatus.report")(function*() {
        const [ok, backlog, pending, providers, games, overview, syncs, calls] = yield* Effect.all([
          databaseOk,
          outbox.backlog,
          ledger.pending(1000),
          casinoCatalog.allProviders,
          casinoCatalog.games({ page: 1, perPage: 1 }).pipe(Effect.orDie), // names no provider: never refused
          sportsCatalog.overview,
          casinoCatalog.lastSyncs,
          walletCalls.seen({ environment: "live" })
        ])
        return {
          version,
          startedAt,
          database: { ok, embedded: Option.isNone(app.databaseUrl) },
          casino: {
            gateway: casinoConfig.gateways.join(","),
            configured: casinoGateways.all.every((gateway) => gateway.configured),
            aggregators: aggregatorStates(casinoGateways.all, syncs, calls),
            providers: providers.length,
            games: games.total
          },
          sports: {
            provider: sportsProvider.name,
            configured: sportsProvider.configured,
            rateLimitPerHour: sportsConfig.rateLimitPerHour,
            catalog: overview
          },
          wallet: { pendingBets: pending.length, failedCallbacks: backlog.failed, pendingCallbacks: backlog.pending },
          jobs: backlog.queues,
          configuration: settings
        } satisfies SystemReport
      })
      return { report: report() }
    })
  )
}
