import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PageMeta, PageQuery, PerPageQuery } from "../Paging.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { CallbackDetail } from "../Callbacks.ts"
import { currencyFilter, instant, transactionFields, transactionKeys } from "../Wallet.ts"
import { Environment } from "../../domain/Environment.ts"
import { Conflict, NotFound, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth } from "./AdminSecurity.ts"

/** A ledger entry for the operator: the partner's view plus whose it is, and each callback in detail. */
export const AdminTransaction = Schema.Struct({
  ...transactionFields,
  callbacks: Schema.Array(CallbackDetail),
  partner: Schema.String,
  environment: Environment.annotate({ description: "The environment of the transaction's player: live or test" }),
  pendingSeconds: Schema.optional(Schema.Int)
}).pipe(Schema.encodeKeys({ ...transactionKeys, pendingSeconds: "pending_seconds" }))

const literal = <const L extends ReadonlyArray<string>>(values: L) =>
  Schema.Literals(values).annotate({ message: `The selected :attribute is invalid. Use ${values.join(", ")}.` })

export class AdminWalletGroup extends HttpApiGroup.make("wallet")
  .add(
    HttpApiEndpoint.get("transactions", "/wallet/transactions", {
      query: {
        partner: Schema.optional(Schema.String),
        /** Only this environment's transactions (both when absent; a player filter without it means live). */
        environment: Schema.optional(literal(["live", "test"])),
        player: Schema.optional(Schema.String),
        currency: Schema.optional(currencyFilter),
        transaction_id: Schema.optional(Schema.String),
        round_id: Schema.optional(Schema.String),
        kind: Schema.optional(literal(["bet", "refund", "credit", "rollback"])),
        status: Schema.optional(literal(["pending", "applied", "refused"])),
        from: Schema.optional(instant("start", "Created at or after")),
        to: Schema.optional(instant("end", "Created at or before")),
        page: Schema.optional(PageQuery),
        per_page: Schema.optional(PerPageQuery)
      },
      success: Schema.Struct({
        success: Schema.Literal(true),
        transactions: Schema.Array(AdminTransaction),
        meta: PageMeta
      }),
      error: [ValidationFailed, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary:
        "Wallet transactions, newest first, by partner (slug), environment, player (with a partner), currency, " +
        "transaction, round, kind, status and time; each with its callbacks"
    }))
  )
  .add(
    HttpApiEndpoint.get("pending", "/wallet/pending", {
      success: Schema.Struct({ success: Schema.Literal(true), transactions: Schema.Array(AdminTransaction) })
    }).annotateMerge(
      OpenApi.annotations({ summary: "Bets waiting for a partner's answer (or for recovery), oldest first" })
    )
  )
  .add(
    HttpApiEndpoint.get("callbacks", "/callbacks", {
      query: {
        status: Schema.optional(literal(["pending", "delivered", "failed"])),
        partner: Schema.optional(Schema.String),
        limit: Schema.optional(PerPageQuery)
      },
      success: Schema.Struct({ success: Schema.Literal(true), callbacks: Schema.Array(CallbackDetail) }),
      error: [ValidationFailed, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Callbacks sent to partners, newest first (`status=failed`: deliveries that ran out of attempts)"
    }))
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/callbacks/:id/redeliver", {
      params: { id: Schema.FiniteFromString.check(Schema.isInt()) },
      success: Schema.Struct({ success: Schema.Literal(true), callback: CallbackDetail }),
      error: [NotFound, Conflict]
    }).annotateMerge(OpenApi.annotations({
      summary: "Deliver a notification again now: the same body and event id (a bet is never re-sent: 409)"
    }))
  )
  .middleware(AdminAuth)
{}
