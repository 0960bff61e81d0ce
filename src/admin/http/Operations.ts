import { Clock, Duration, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { NotFound } from "../../api/admin/AdminErrors.ts"
import { page } from "../../api/Paging.ts"
import { listingOf, summaryEntry, transactionLines } from "../../api/StatementsEdge.ts"
import { isDay } from "../../domain/Statements.ts"
import { linesOf } from "../../domain/StatementDocument.ts"
import { Partners } from "../../partners/Partners.ts"
import { Statements } from "../../wallet/statements/Statements.ts"
import { OperationsConfig } from "../../wallet/stuck/OperationsConfig.ts"
import { StuckItems } from "../../wallet/stuck/StuckItems.ts"
import { invalid } from "./Common.ts"

/** The contract's "operations" group (src/api/admin/AdminOperations.ts): statements and stuck items. */
export const AdminOperationsHandlers = HttpApiBuilder.group(
  AdminApi,
  "operations",
  Effect.fn(function*(handlers) {
    const partners = yield* Partners
    const statements = yield* Statements
    const stuck = yield* StuckItems
    const config = yield* OperationsConfig
    const slugs = Effect.map(partners.list, (all) => new Map(all.map((partner) => [partner.id, partner.slug])))

    return handlers
      .handle(
        "statements",
        Effect.fn("AdminHandlers.statements")(function*({ query }) {
          const slug = query.partner?.trim()
          const partner = slug === undefined || slug === ""
            ? undefined
            : yield* partners.show(slug).pipe(Effect.mapError((error) => new NotFound({ message: error.message })))
          const found = yield* statements.recent({
            partnerId: partner?.id,
            environment: query.environment,
            limit: query.limit ?? 60
          })
          const names = yield* slugs
          return {
            success: true as const,
            statements: found.map((statement) => listingOf(names.get(statement.partnerId) ?? "", statement))
          }
        })
      )
      .handle(
        "statement",
        Effect.fn("AdminHandlers.statement")(function*({ params, query }) {
          if (!isDay(params.date)) return yield* invalid("date", "The date field must be a date (YYYY-MM-DD).")
          const partner = yield* partners.show(params.partner).pipe(
            Effect.mapError((error) => new NotFound({ message: error.message }))
          )
          const statement = yield* statements.read(partner, params.environment, params.date).pipe(
            Effect.mapError((error) => new NotFound({ message: error.message }))
          )
          const paging = page(query)
          const lines = linesOf(
            statement.document,
            (paging.page - 1) * paging.perPage,
            paging.perPage,
            statement.legacyCurrency
          )
          return {
            success: true as const,
            statement: yield* summaryEntry(statement.summary),
            document: {
              sha256: Buffer.from(statement.sha256).toString("hex"),
              bytes: Buffer.byteLength(statement.document),
              lines: statement.summary.counts.transactions + 1
            },
            signature: yield* statements.signature(partner.id, params.environment, statement.document),
            transactions: yield* transactionLines(lines),
            meta: { page: paging.page, per_page: paging.perPage, total: statement.summary.counts.transactions }
          }
        })
      )
      .handle(
        "stuck",
        Effect.fn("AdminHandlers.stuck")(function*() {
          const [view, names, now] = yield* Effect.all([stuck.view, slugs, Clock.currentTimeMillis])
          const partnerOf = (id: number) => names.get(id) ?? `partner-${id}`
          return {
            success: true as const,
            stuck_round_after: Duration.format(config.stuckRoundAfter),
            alerts: stuck.alertsEnabled,
            items: view.items.map(({ alert, item }) => ({
              kind: item.kind,
              partner: partnerOf(item.partnerId),
              environment: item.environment,
              subject: item.subject,
              transactionId: item.transactionId,
              player: item.externalPlayerId,
              since: item.since,
              stuckSeconds: Math.max(0, Math.floor((now - item.since.getTime()) / 1000)),
              detail: item.detail,
              alert: alert === undefined ? null : {
                status: alert.alertStatus,
                attempts: alert.alertAttempts,
                lastError: alert.alertLastError,
                firstSeenAt: alert.firstSeenAt,
                alertedAt: alert.alertedAt
              }
            })),
            truncated: view.truncated,
            resolved: view.resolved.map((alert) => ({
              kind: alert.kind,
              partner: partnerOf(alert.partnerId),
              environment: alert.environment,
              subject: alert.subject,
              since: alert.since,
              firstSeenAt: alert.firstSeenAt,
              resolvedAt: alert.resolvedAt!,
              alertStatus: alert.alertStatus
            }))
          }
        })
      )
  })
)
