import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { UpstreamFailed } from "../../api/admin/AdminErrors.ts"
import { AdminAccounts } from "../../identity/AdminAccounts.ts"
import { SportsAdmin } from "../../changes/SportsAdmin.ts"
import { AuditRepo } from "../../identity/AuditRepo.ts"
import { SystemStatus } from "../SystemStatus.ts"
import { currentActor } from "./Common.ts"

export const AdminSystemHandlers = HttpApiBuilder.group(
  AdminApi,
  "system",
  Effect.fn(function*(handlers) {
    const audit = yield* AuditRepo
    const accounts = yield* AdminAccounts
    const system = yield* SystemStatus
    const changes = yield* SportsAdmin

    return handlers
      .handle(
        "audit",
        ({ query }) =>
          Effect.map(
            audit.list({ target: query.target?.trim() || undefined, limit: query.limit ?? 100 }),
            (entries) => ({ success: true as const, entries })
          )
      )
      .handle("refreshSports", () =>
        Effect.flatMap(currentActor, (actor) => changes.refresh(actor)).pipe(
          Effect.mapError((error) =>
            new UpstreamFailed({ message: `The sports catalog could not be refreshed: ${error.message}` })
          ),
          Effect.map((report) => ({ success: true as const, report }))
        ))
      .handle("sportsRefreshes", () =>
        Effect.map(audit.list({ target: "sports:catalog", limit: 10 }), (entries) => ({
          success: true as const,
          refreshes: entries.map((entry) => ({
            at: entry.at,
            actor: `${entry.actor} (${entry.via})`,
            report: entry.after
          }))
        })))
      .handle("admins", () =>
        Effect.map(accounts.list, (all) => ({
          success: true as const,
          admins: all.map((account) => ({ email: account.email, role: account.role, disabled: account.disabled }))
        })))
      .handle("status", () => Effect.map(system.report, (report) => ({ success: true as const, system: report })))
  })
)
