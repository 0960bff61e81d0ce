import { Duration, Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { readFileSync } from "node:fs"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { CallbackOutbox } from "../../wallet/outbox/CallbackOutbox.ts"
import { CallbacksConfig } from "../../wallet/CallbacksConfig.ts"
import { WalletLedger } from "../../wallet/WalletLedger.ts"
import { CasinoCatalog } from "../../casino/CasinoCatalog.ts"
import { CasinoConfig } from "../../casino/CasinoConfig.ts"
import { CasinoGateway } from "../../casino/CasinoGateway.ts"
import { SportsCatalog } from "../../sports/catalog/SportsCatalog.ts"
import { SportsCatalogConfig } from "../../sports/catalog/SportsCatalogConfig.ts"
import { AppConfig, publicBaseUrl } from "../../platform/AppConfig.ts"
import { SportsConfig } from "../../sports/SportsConfig.ts"
import { SportsProvider } from "../../sports/SportsProvider.ts"
import { AdminAccounts } from "../AdminAccounts.ts"
import { SportsAdmin } from "../AdminChanges.ts"
import { AdminConfig } from "../AdminConfig.ts"
import { currentActor } from "./Common.ts"
import { UpstreamFailed } from "../../api/admin/AdminErrors.ts"
import { AuditRepo } from "../AuditRepo.ts"

const version = (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version
const startedAt = new Date().toISOString()
const duration = (value: Duration.Duration) => Duration.format(value)

/** The settings an operator may want to see, and none that is a secret (no URL with a password, token or key). */
const configuration = Effect.gen(function*() {
  const app = yield* AppConfig
  const casino = yield* CasinoConfig
  const sports = yield* SportsConfig
  const catalog = yield* SportsCatalogConfig
  const callbacks = yield* CallbacksConfig
  const admin = yield* AdminConfig
  return {
    PUBLIC_URL: publicBaseUrl(app),
    DATABASE_URL: Option.isSome(app.databaseUrl) ? "set (not shown)" : `unset: embedded under ${app.dataDir}`,
    LOG_LEVEL: app.logLevel,
    AUTH_CACHE_TTL: `${app.authCacheTtlMillis} ms`,
    CASINO_GATEWAY: casino.gateway,
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
    ADMIN_SESSION_TTL: duration(admin.sessionTtl),
    ADMIN_LOGIN_MAX_FAILURES: String(admin.loginMaxFailures),
    ADMIN_LOGIN_LOCKOUT: duration(admin.loginLockout),
    ADMIN_LOGIN_MAX_LOCKOUT: duration(admin.loginMaxLockout),
    ADMIN_LOGIN_MAX_FAILURES_PER_ADDRESS: String(admin.loginMaxFailuresPerAddress),
    ADMIN_LOGIN_WINDOW: duration(admin.loginWindow),
    ADMIN_LOGIN_CONCURRENT_HASHES: String(admin.concurrentHashes),
    ADMIN_ONE_TIME_PASSWORD_TTL: duration(admin.oneTimePasswordTtl)
  }
})

export const AdminSystemHandlers = HttpApiBuilder.group(AdminApi, "system", Effect.fn(function*(handlers) {
  const audit = yield* AuditRepo
  const accounts = yield* AdminAccounts
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
  const casinoGateway = yield* CasinoGateway
  const changes = yield* SportsAdmin

  return handlers
    .handle("audit", ({ query }) =>
      Effect.map(audit.list({ target: query.target?.trim() || undefined, limit: query.limit ?? 100 }), (entries) => ({
        success: true as const,
        entries: entries.map((entry) => ({ ...entry, at: entry.at.toISOString() }))
      })))
    .handle("refreshSports", () =>
      Effect.flatMap(currentActor, (actor) => changes.refresh(actor)).pipe(
        Effect.mapError((error) => new UpstreamFailed({ message: `The sports catalog could not be refreshed: ${error.message}` })),
        Effect.map((report) => ({ success: true as const, report }))
      ))
    .handle("sportsRefreshes", () =>
      Effect.map(audit.list({ target: "sports:catalog", limit: 10 }), (entries) => ({
        success: true as const,
        refreshes: entries.map((entry) => ({ at: entry.at.toISOString(), actor: `${entry.actor} (${entry.via})`, report: entry.after }))
      })))
    .handle("admins", () =>
      Effect.map(accounts.list, (all) => ({
        success: true as const,
        admins: all.map((account) => ({ email: account.email, role: account.role, disabled: account.disabled }))
      })))
    .handle("status", Effect.fn("AdminHandlers.system")(function*() {
      const databaseOk = yield* sql`SELECT 1`.pipe(Effect.timeout("2 seconds"), Effect.as(true), Effect.orElseSucceed(() => false))
      const [backlog, pending, providers, games, overview] = yield* Effect.all([
        outbox.backlog,
        ledger.pending(1000),
        casinoCatalog.allProviders,
        casinoCatalog.games({ page: 1, perPage: 1 }),
        sportsCatalog.overview
      ])
      return {
        success: true as const,
        system: {
          version,
          started_at: startedAt,
          database: { ok: databaseOk, embedded: Option.isNone(app.databaseUrl) },
          casino: { gateway: casinoConfig.gateway, configured: casinoGateway.configured, providers: providers.length, games: games.total },
          sports: {
            provider: sportsProvider.name,
            configured: sportsProvider.configured,
            rate_limit_per_hour: sportsConfig.rateLimitPerHour,
            catalog: overview
          },
          wallet: { pending_bets: pending.length, failed_callbacks: backlog.failed, pending_callbacks: backlog.pending },
          jobs: backlog.jobs,
          configuration: settings
        }
      }
    }))
}))
