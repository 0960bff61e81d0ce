import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Environment } from "../../domain/Environment.ts"
import { IsoDate } from "../../domain/IsoDate.ts"
import { StuckKind } from "../../domain/Stuck.ts"
import { PageQuery, PerPageQuery } from "../Paging.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { StatementData, StatementListing } from "../Statements.ts"
import { NotFound, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth } from "./AdminSecurity.ts"

const AlertStatus = Schema.Literals(["off", "pending", "sent", "failed"]).annotate({
  description:
    "`off`: no OPERATOR_ALERT_URL when it was noticed; `pending`: being sent; `sent`; `failed`: its attempts ran out"
})

const AlertAnswer = Schema.Struct({
  status: AlertStatus,
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  firstSeenAt: IsoDate,
  alertedAt: Schema.NullOr(IsoDate)
}).pipe(Schema.encodeKeys({ lastError: "last_error", firstSeenAt: "first_seen_at", alertedAt: "alerted_at" }))

export const StuckItemAnswer = Schema.Struct({
  kind: StuckKind,
  partner: Schema.String,
  environment: Environment,
  subject: Schema.String.annotate({
    description: "The round id, the bet's transaction id, or the notification's event id"
  }),
  transactionId: Schema.NullOr(Schema.String).annotate({ description: "What the wallet page finds it by" }),
  player: Schema.NullOr(Schema.String),
  since: IsoDate,
  stuckSeconds: Schema.Int,
  detail: Schema.String,
  alert: Schema.NullOr(AlertAnswer).annotate({
    description: "null until the fleet's check has noticed it (within its interval)"
  })
}).pipe(Schema.encodeKeys({ transactionId: "transaction_id", stuckSeconds: "stuck_seconds" }))

export const ResolvedAnswer = Schema.Struct({
  kind: StuckKind,
  partner: Schema.String,
  environment: Environment,
  subject: Schema.String,
  since: IsoDate,
  firstSeenAt: IsoDate,
  resolvedAt: IsoDate,
  alertStatus: AlertStatus
}).pipe(Schema.encodeKeys({ firstSeenAt: "first_seen_at", resolvedAt: "resolved_at", alertStatus: "alert_status" }))

const literal = <const L extends ReadonlyArray<string>>(values: L) =>
  Schema.Literals(values).annotate({ message: `The selected :attribute is invalid. Use ${values.join(", ")}.` })

/** Daily statements and stuck items: what the console's Statements and Stuck pages read. */
export class AdminOperationsGroup extends HttpApiGroup.make("operations")
  .add(
    HttpApiEndpoint.get("statements", "/statements", {
      query: {
        partner: Schema.optional(Schema.String),
        environment: Schema.optional(literal(["live", "test"])),
        limit: Schema.optional(PerPageQuery)
      },
      success: Schema.Struct({ success: Schema.Literal(true), statements: Schema.Array(StatementListing) }),
      error: [ValidationFailed, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The latest stored statements (days with activity), newest day first, by partner (slug) and environment"
    }))
  )
  .add(
    HttpApiEndpoint.get("statement", "/statements/:partner/:environment/:date", {
      params: { partner: Schema.String, environment: literal(["live", "test"]), date: Schema.String },
      query: { page: Schema.optional(PageQuery), per_page: Schema.optional(PerPageQuery) },
      success: Schema.Struct({ success: Schema.Literal(true), ...StatementData.fields }),
      error: [ValidationFailed, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "One partner's statement of a day and environment, as the partner reads it (transactions paged)"
    }))
  )
  .add(
    HttpApiEndpoint.get("stuck", "/stuck", {
      success: Schema.Struct({
        success: Schema.Literal(true),
        stuck_round_after: Schema.String.annotate({ description: "WALLET_STUCK_ROUND_AFTER" }),
        alerts: Schema.Boolean.annotate({ description: "Whether OPERATOR_ALERT_URL is set" }),
        items: Schema.Array(StuckItemAnswer),
        truncated: Schema.Array(StuckKind).annotate({
          description: "Kinds with more items than listed (200 of each are)"
        }),
        resolved: Schema.Array(ResolvedAnswer).annotate({ description: "Items no longer stuck, resolved within a day" })
      })
    }).annotateMerge(OpenApi.annotations({
      summary:
        "What is stuck now (rounds open too long, bets pending past their time-out, notifications out of attempts, " +
        "aggregators' calls with an amount finer than the player's currency), " +
        "each with its operator alert, and what was resolved lately"
    }))
  )
  .middleware(AdminAuth)
{}
