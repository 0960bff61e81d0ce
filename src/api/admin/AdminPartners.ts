import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { RequestValidation } from "../RequestValidation.ts"
import { Conflict, NotFound, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth } from "./AdminSecurity.ts"

export const PartnerView = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  slug: Schema.String,
  status: Schema.Literals(["active", "inactive"]),
  commission_percent: Schema.Finite,
  callback_url: Schema.NullOr(Schema.String),
  rate_limit_per_minute: Schema.NullOr(Schema.Int).annotate({
    description: "The partner's own limit on the partner API, requests a minute; null: PARTNER_RATE_LIMIT"
  }),
  created_at: Schema.String,
  updated_at: Schema.String
})

const PartnerAnswer = Schema.Struct({ success: Schema.Literal(true), partner: PartnerView })
const slugParam = { slug: Schema.String }
const Commission = Schema.Finite.annotate({ description: "Percent, 0 to 100" })
const RateLimit = Schema.NullOr(Schema.Int).annotate({
  description: "Requests a minute on the partner API, 1 or more; null: PARTNER_RATE_LIMIT applies"
})

/** Partners: list, create (token and webhook secret shown once), edit, activate, deactivate, rotate. */
export class AdminPartnersGroup extends HttpApiGroup.make("partners")
  .add(
    HttpApiEndpoint.get("list", "/partners", {
      query: { search: Schema.optional(Schema.String) },
      success: Schema.Struct({ success: Schema.Literal(true), partners: Schema.Array(PartnerView) })
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Every partner, or those whose name or slug contains `search`"
    }))
  )
  .add(
    HttpApiEndpoint.get("show", "/partners/:slug", { params: slugParam, success: PartnerAnswer, error: NotFound })
  )
  .add(
    HttpApiEndpoint.post("create", "/partners", {
      payload: Schema.Struct({
        name: Schema.String,
        slug: Schema.optional(Schema.String),
        commission_percent: Schema.optional(Commission),
        callback_url: Schema.optional(Schema.NullOr(Schema.String))
      }),
      success: Schema.Struct({
        success: Schema.Literal(true),
        partner: PartnerView,
        token: Schema.String,
        webhook_secret: Schema.String
      }),
      error: [ValidationFailed, Conflict]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Create a partner",
      description: "The answer holds its token and webhook secret: the only time either is shown."
    }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/partners/:slug", {
      params: slugParam,
      payload: Schema.Struct({
        name: Schema.optional(Schema.String),
        commission_percent: Schema.optional(Commission),
        callback_url: Schema.optional(Schema.NullOr(Schema.String)),
        rate_limit_per_minute: Schema.optional(RateLimit)
      }),
      success: PartnerAnswer,
      error: [ValidationFailed, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Change a partner's name, commission, callback URL (null or \"\" clears it) or rate limit (null: the default)"
    }))
  )
  .add(HttpApiEndpoint.post("activate", "/partners/:slug/activate", { params: slugParam, success: PartnerAnswer, error: NotFound }))
  .add(
    HttpApiEndpoint.post("deactivate", "/partners/:slug/deactivate", { params: slugParam, success: PartnerAnswer, error: NotFound })
      .annotateMerge(OpenApi.annotations({ summary: "Refuse the partner's token, at once on every instance" }))
  )
  .add(
    HttpApiEndpoint.post("rotateToken", "/partners/:slug/rotate-token", {
      params: slugParam,
      success: Schema.Struct({ success: Schema.Literal(true), partner: PartnerView, token: Schema.String }),
      error: NotFound
    }).annotateMerge(OpenApi.annotations({ summary: "Issue a new token (shown once); the old one stops working" }))
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSecret", "/partners/:slug/rotate-webhook-secret", {
      params: slugParam,
      success: Schema.Struct({ success: Schema.Literal(true), partner: PartnerView, webhook_secret: Schema.String }),
      error: NotFound
    }).annotateMerge(OpenApi.annotations({
      summary: "Issue a new webhook secret (shown once); the old one keeps signing beside it for PARTNER_WEBHOOK_SECRET_OVERLAP"
    }))
  )
  .middleware(AdminAuth)
{}
