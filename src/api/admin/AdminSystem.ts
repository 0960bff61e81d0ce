import { Schema } from "effect"
import { IsoDate } from "../../domain/IsoDate.ts"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PerPageQuery } from "../Paging.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { UpstreamFailed, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth } from "./AdminSecurity.ts"

/** An audit entry as the domain holds it (AuditEntry), its time as ISO. */
export const AuditAnswer = Schema.Struct({
  id: Schema.Int,
  at: IsoDate,
  actor: Schema.String,
  via: Schema.Literals(["console", "cli", "portal"]),
  action: Schema.String,
  target: Schema.String,
  before: Schema.Unknown,
  after: Schema.Unknown
})

export const SportsRefreshView = Schema.Struct({
  sports: Schema.Int,
  countries: Schema.Int,
  leagues: Schema.Int,
  teams: Schema.Int,
  events: Schema.Int,
  changed: Schema.Int,
  deactivated: Schema.Int
})

/** The console's system page; the service's report (camelCase) with the wire's snake_case keys. */
export const SystemView = Schema.Struct({
  version: Schema.String,
  startedAt: IsoDate,
  database: Schema.Struct({ ok: Schema.Boolean, embedded: Schema.Boolean }),
  casino: Schema.Struct({
    /** CASINO_GATEWAY's names, comma-separated. */
    gateway: Schema.String,
    configured: Schema.Boolean,
    /** Each aggregator CASINO_GATEWAY lists: configured, its last catalogue sync, the live wallet calls it made. */
    aggregators: Schema.Array(
      Schema.Struct({
        name: Schema.String,
        configured: Schema.Boolean,
        lastCatalogSync: Schema.NullOr(IsoDate),
        walletCalls: Schema.Int,
        lastWalletCall: Schema.NullOr(IsoDate)
      }).pipe(Schema.encodeKeys({
        lastCatalogSync: "last_catalog_sync",
        walletCalls: "wallet_calls",
        lastWalletCall: "last_wallet_call"
      }))
    ),
    providers: Schema.Int,
    games: Schema.Int
  }),
  sports: Schema.Struct({
    provider: Schema.String,
    configured: Schema.Boolean,
    rateLimitPerHour: Schema.Int,
    catalog: Schema.Struct({
      sports: Schema.Int,
      countries: Schema.Int,
      leagues: Schema.Int,
      teams: Schema.Int,
      events: Schema.Int
    })
  }).pipe(Schema.encodeKeys({ rateLimitPerHour: "rate_limit_per_hour" })),
  wallet: Schema.Struct({ pendingBets: Schema.Int, failedCallbacks: Schema.Int, pendingCallbacks: Schema.Int }).pipe(
    Schema.encodeKeys({
      pendingBets: "pending_bets",
      failedCallbacks: "failed_callbacks",
      pendingCallbacks: "pending_callbacks"
    })
  ),
  jobs: Schema.Struct({ queued: Schema.Int, locked: Schema.Int, failing: Schema.Int }),
  configuration: Schema.Record(Schema.String, Schema.String)
}).pipe(Schema.encodeKeys({ startedAt: "started_at" }))

export class AdminSystemGroup extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("audit", "/audit", {
      query: { target: Schema.optional(Schema.String), limit: Schema.optional(PerPageQuery) },
      success: Schema.Struct({ success: Schema.Literal(true), entries: Schema.Array(AuditAnswer) }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The audit trail, newest first: every change through the console or the CLI"
    }))
  )
  .add(
    HttpApiEndpoint.get("status", "/system", {
      success: Schema.Struct({ success: Schema.Literal(true), system: SystemView })
    }).annotateMerge(OpenApi.annotations({
      summary: "Health, version, a configuration summary (no secrets), the wallet's backlog and background jobs"
    }))
  )
  .add(
    HttpApiEndpoint.post("refreshSports", "/sports/refresh", {
      success: Schema.Struct({ success: Schema.Literal(true), report: SportsRefreshView }),
      error: UpstreamFailed
    }).annotateMerge(OpenApi.annotations({
      summary: "Refresh the local sports catalog from the provider now (every sport of CATALOG_SPORT_IDS)"
    }))
  )
  .add(
    HttpApiEndpoint.get("sportsRefreshes", "/sports/refreshes", {
      success: Schema.Struct({
        success: Schema.Literal(true),
        refreshes: Schema.Array(Schema.Struct({ at: IsoDate, actor: Schema.String, report: Schema.Unknown }))
      })
    }).annotateMerge(
      OpenApi.annotations({ summary: "The last refreshes asked from the console or the CLI, and their counts" })
    )
  )
  .add(
    HttpApiEndpoint.get("admins", "/admins", {
      success: Schema.Struct({
        success: Schema.Literal(true),
        admins: Schema.Array(Schema.Struct({ email: Schema.String, role: Schema.String, disabled: Schema.Boolean }))
      })
    }).annotateMerge(OpenApi.annotations({ summary: "Admin accounts (managed with `npm run admin -- admins ...`)" }))
  )
  .middleware(AdminAuth)
{}
