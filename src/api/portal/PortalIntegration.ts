import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Environment } from "../../domain/Environment.ts"
import { IsoDate } from "../../domain/IsoDate.ts"
import { tokenOverlapHours } from "../../domain/Partner.ts"
import { changeNeeds, type PartnerRole } from "../../domain/PartnerUser.ts"
import { Conflict, NotFound, ValidationFailed } from "../identity/Errors.ts"
import { CallbackDetail, TestCallbackDetail } from "../Callbacks.ts"
import { PerPageQuery } from "../Paging.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { PortalAuth, RoleNeeded } from "./PortalSecurity.ts"

const environmentParam = { environment: Environment }

/** A token as its partner sees it: the domain's IssuedToken (but its environment), dates as ISO strings. */
export const TokenAnswer = Schema.Struct({
  id: Schema.Int,
  prefix: Schema.NullOr(Schema.String).annotate({
    description: "The token's first characters (`pak_live_AbCd`); null for tokens issued before prefixes were kept"
  }),
  createdAt: IsoDate,
  lastUsedAt: Schema.NullOr(IsoDate).annotate({
    description: "When a request last came with it (written about once a minute); null: not used since it was issued"
  }),
  expiresAt: Schema.NullOr(IsoDate).annotate({
    description: "null: the current token; a time: a rolled token, valid until then beside the current one"
  })
}).pipe(Schema.encodeKeys({ createdAt: "created_at", lastUsedAt: "last_used_at", expiresAt: "expires_at" }))

const TokensAnswer = Schema.Struct({
  success: Schema.Literal(true),
  environments: Schema.Array(Schema.Struct({ environment: Environment, tokens: Schema.Array(TokenAnswer) }))
})

/** How long the old token (or webhook secret) stays valid beside the new one; absent or null: it stops now. */
const KeepOld = Schema.optional(Schema.NullOr(
  Schema.Int.check(Schema.isBetween(tokenOverlapHours)).annotate({
    description:
      `Hours the old one stays valid beside the new one, ${tokenOverlapHours.minimum} to ${tokenOverlapHours.maximum} (7 days); ` +
      "absent or null: it stops now",
    message:
      `The :attribute field must be a whole number of hours from ${tokenOverlapHours.minimum} to ${tokenOverlapHours.maximum}.`
  })
))

/** A new secret of an environment (a token, a webhook secret), the old one kept `keep_old_hours` or stopped now. */
const rolling = <const Name extends string, const Fields extends Schema.Struct.Fields>(
  name: Name,
  path: `/${string}`,
  role: PartnerRole,
  answer: Fields,
  summary: string
) =>
  HttpApiEndpoint.post(name, path, {
    params: environmentParam,
    payload: Schema.Struct({ keep_old_hours: KeepOld }),
    success: Schema.Struct({ success: Schema.Literal(true), ...answer }),
    error: ValidationFailed
  }).middleware(RequestValidation).annotate(RoleNeeded, role).annotateMerge(OpenApi.annotations({ summary }))

/** The partner's tokens, per environment: never a token itself but once, when it is issued. */
export class PortalTokensGroup extends HttpApiGroup.make("tokens")
  .add(
    HttpApiEndpoint.get("list", "/tokens", { success: TokensAnswer }).annotateMerge(OpenApi.annotations({
      summary: "The working tokens of each environment: the current one and any rolled one still in its overlap"
    }))
  )
  .add(
    HttpApiEndpoint.post("roll", "/tokens/:environment/roll", {
      params: environmentParam,
      payload: Schema.Struct({ keep_old_hours: KeepOld }),
      success: Schema.Struct({
        success: Schema.Literal(true),
        environment: Environment,
        token: Schema.String.annotate({ description: "The new token: shown this once" }),
        oldValidUntil: Schema.NullOr(IsoDate),
        tokens: Schema.Array(TokenAnswer)
      }).pipe(Schema.encodeKeys({ oldValidUntil: "old_valid_until" })),
      // 409: a live token while the operator requires a passed wallet certification first (it says so).
      error: [ValidationFailed, Conflict]
    }).middleware(RequestValidation).annotate(RoleNeeded, changeNeeds.tokens).annotateMerge(OpenApi.annotations({
      summary:
        "Issue a new token; the current one stops now, or stays valid for `keep_old_hours` so a fleet can move over",
      description:
        "A live token is refused (409) while the operator requires a passed wallet certification first and the " +
        "latest verdict on the partner's own test wallet did not pass, or the live callback URL is not on the host " +
        "it passed on, or the caller is not the account's owner; the message says which."
    }))
  )
  .add(
    HttpApiEndpoint.post("endOverlap", "/tokens/:environment/end-overlap", {
      params: environmentParam,
      success: Schema.Struct({ success: Schema.Literal(true), tokens: Schema.Array(TokenAnswer) }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotate(RoleNeeded, changeNeeds.tokens).annotateMerge(OpenApi.annotations({
      summary: "The rolled tokens still in their overlap stop working now"
    }))
  )
  .middleware(PortalAuth)
{}

/** An environment's callbacks as its partner sees them: the domain's settings, the rotated secret's end as ISO. */
const WebhookAnswer = Schema.Struct({
  environment: Environment,
  callbackUrl: Schema.NullOr(Schema.String).annotate({
    description:
      "Where the environment's wallet callbacks go; null in test: the service's sandbox partner wallet answers"
  }),
  previousSecretUntil: Schema.NullOr(IsoDate).annotate({
    description:
      "Until when callbacks also carry a signature with the webhook secret rotated out last; null: they do not"
  })
}).pipe(Schema.encodeKeys({ callbackUrl: "callback_url", previousSecretUntil: "previous_secret_valid_until" }))

const SentRequest = Schema.Struct({
  method: Schema.Literal("POST"),
  url: Schema.String,
  headers: Schema.Record(Schema.String, Schema.String),
  body: Schema.String
})

/** The partner's webhooks, per environment: where callbacks go, a test send, the secret, and the delivery log. */
export class PortalWebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/webhooks", {
      success: Schema.Struct({ success: Schema.Literal(true), environments: Schema.Array(WebhookAnswer) })
    })
  )
  .add(
    HttpApiEndpoint.patch("setUrl", "/webhooks/:environment", {
      params: environmentParam,
      payload: Schema.Struct({
        callback_url: Schema.NullOr(Schema.String.check(Schema.isMaxLength(2048))).annotate({
          description:
            "https:// on the public internet (as the operator's callback URLs are checked); null or \"\" clears it"
        })
      }),
      success: Schema.Struct({ success: Schema.Literal(true), webhook: WebhookAnswer }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotate(RoleNeeded, changeNeeds.webhooks).annotateMerge(OpenApi.annotations({
      summary: "Set the environment's callback URL"
    }))
  )
  .add(
    HttpApiEndpoint.post("test", "/webhooks/:environment/test", {
      params: environmentParam,
      success: Schema.Struct({
        success: Schema.Literal(true),
        request: Schema.NullOr(SentRequest).annotate({
          description: "The exact signed request sent (null: nowhere to send it)"
        }),
        answer: Schema.NullOr(Schema.Struct({ status: Schema.Int, body: Schema.NullOr(Schema.String) })).annotate({
          description: "The partner's answer (its body null when larger than 64 KiB); null when there was none"
        }),
        failure: Schema.NullOr(Schema.String).annotate({
          description: "Why there was no answer (refused, time-out, an unsafe URL)"
        }),
        milliseconds: Schema.Int
      }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotate(RoleNeeded, changeNeeds.webhooks).annotateMerge(OpenApi.annotations({
      summary:
        "Send a test callback (`kind: test`, signed as every callback) and answer the request and the partner's answer"
    }))
  )
  .add(rolling("rotateSecret", "/webhooks/:environment/rotate-secret", changeNeeds.webhooks, {
    webhook_secret: Schema.String.annotate({ description: "The new webhook secret: shown this once" }),
    webhook: WebhookAnswer
  }, "Issue a new webhook secret; callbacks carry a signature with the old one too for `keep_old_hours`"))
  .add(
    HttpApiEndpoint.get("deliveries", "/webhooks/:environment/deliveries", {
      params: environmentParam,
      query: {
        status: Schema.optional(
          Schema.Literals(["pending", "delivered", "failed"]).annotate({
            message: "The selected :attribute is invalid. Use pending, delivered or failed."
          })
        ),
        limit: Schema.optional(PerPageQuery)
      },
      success: Schema.Struct({
        success: Schema.Literal(true),
        callbacks: Schema.Array(Schema.Union([CallbackDetail, TestCallbackDetail]))
      }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary:
        "The delivery log: every callback of the environment, test callbacks (`kind: test`, `id: null`) among them, " +
        "newest first, with status, attempts, last error and next attempt"
    }))
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/deliveries/:id/redeliver", {
      params: { id: Schema.FiniteFromString.check(Schema.isInt()) },
      success: Schema.Struct({ success: Schema.Literal(true), callback: CallbackDetail }),
      error: [NotFound, Conflict, ValidationFailed]
    }).middleware(RequestValidation).annotate(RoleNeeded, changeNeeds.webhooks).annotateMerge(OpenApi.annotations({
      summary: "Deliver a notification again now: the same body and event id (a bet is never re-sent: 409)"
    }))
  )
  .middleware(PortalAuth)
{}
