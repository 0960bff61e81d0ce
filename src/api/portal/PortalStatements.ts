import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Environment } from "../../domain/Environment.ts"
import { NotFound, ValidationFailed } from "../identity/Errors.ts"
import { PageQuery, PerPageQuery } from "../Paging.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { DayParam, StatementData, StatementDocument, StatementListing } from "../Statements.ts"
import { PortalAuth } from "./PortalSecurity.ts"

const params = { environment: Environment, date: DayParam }

/**
 * The partner's daily statements, per environment: the list the console's Statements page reads (the session's
 * partner's only), one statement as `GET /api/partner/v1/wallet/statements/{date}` answers it, and its signed document.
 * Reconciling a day stays the partner API's (`POST .../reconciliation`): it takes the partner's own books.
 */
export class PortalStatementsGroup extends HttpApiGroup.make("statements")
  .add(
    HttpApiEndpoint.get("list", "/statements/:environment", {
      params: { environment: Environment },
      query: { limit: Schema.optional(PerPageQuery) },
      success: Schema.Struct({ success: Schema.Literal(true), statements: Schema.Array(StatementListing) }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The environment's latest daily statements, newest day first, with each currency's totals"
    }))
  )
  .add(
    HttpApiEndpoint.get("statement", "/statements/:environment/:date", {
      params,
      query: { page: Schema.optional(PageQuery), per_page: Schema.optional(PerPageQuery) },
      success: Schema.Struct({ success: Schema.Literal(true), ...StatementData.fields }),
      error: [NotFound, ValidationFailed]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "A day's statement, as `GET /api/partner/v1/wallet/statements/{date}` answers it (transactions paged)"
    }))
  )
  .add(
    HttpApiEndpoint.get("document", "/statements/:environment/:date/document", {
      params,
      success: StatementDocument,
      error: [NotFound, ValidationFailed]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "A day's signed statement document (JSON lines), as `format=jsonl` of the partner API answers it"
    }))
  )
  .middleware(PortalAuth)
{}
