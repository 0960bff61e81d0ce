import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { partnerCurrencyLimit } from "../../domain/Currency.ts"
import { Environment } from "../../domain/Environment.ts"
import { IsoDate } from "../../domain/IsoDate.ts"
import { PlayerMode } from "../../domain/Partner.ts"
import { RtpPolicy } from "../../domain/RtpPolicy.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { Conflict, NotFound, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth } from "./AdminSecurity.ts"

/** One of the partner's environments, labelled; its token and webhook secret are never shown again. */
export const PartnerEnvironmentView = Schema.Struct({
  environment: Environment,
  callbackUrl: Schema.NullOr(Schema.String).annotate({
    description: "Where this environment's wallet callbacks go; null in test: the sandbox's partner wallet answers"
  }),
  tokenIssuedAt: Schema.NullOr(IsoDate).annotate({
    description: "When this environment's token was issued; null: none yet (issue one with rotate-token)"
  })
}).pipe(Schema.encodeKeys({ callbackUrl: "callback_url", tokenIssuedAt: "token_issued_at" }))

export const PartnerView = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  slug: Schema.String,
  status: Schema.Literals(["active", "inactive"]),
  commissionPercent: Schema.Finite,
  callbackUrl: Schema.NullOr(Schema.String).annotate({ description: "The live environment's callback URL" }),
  rateLimitPerMinute: Schema.NullOr(Schema.Int).annotate({
    description:
      "The partner's own limit on the partner API, requests a minute in each environment; null: PARTNER_RATE_LIMIT"
  }),
  playerMode: PlayerMode.annotate({
    description: "What the service keeps of the partner's players: `persisted` (name, e-mail, balance mirror) or " +
      "`shadow` (only the partner's external id behind the user code; the balance is always asked of the partner)"
  }),
  rtpPolicy: RtpPolicy.annotate({
    description:
      "What its launches do with the `user_rtp` it sends (both environments): `pass` it on, `clamp` it into " +
      "[min, max], or ignore it for a `fixed` value"
  }),
  defaultCurrency: Schema.NullOr(Schema.String).annotate({
    description: "The currency of a launch that names none; null: the deployment's DEFAULT_CURRENCY"
  }),
  currencies: Schema.NullOr(Schema.Array(Schema.String)).annotate({
    description: "The only currencies its launches may be in; null: every currency the deployment enables"
  }),
  environments: Schema.Array(PartnerEnvironmentView).annotate({ description: "Live and test, live first" }),
  createdAt: IsoDate,
  updatedAt: IsoDate
}).pipe(Schema.encodeKeys({
  commissionPercent: "commission_percent",
  callbackUrl: "callback_url",
  rateLimitPerMinute: "rate_limit_per_minute",
  playerMode: "player_mode",
  rtpPolicy: "rtp_policy",
  defaultCurrency: "default_currency",
  createdAt: "created_at",
  updatedAt: "updated_at"
}))

/** A partner as the CLI prints it: the console's answer, byte for byte. */
export const encodePartnerView = Schema.encodeSync(PartnerView)

const PartnerAnswer = Schema.Struct({ success: Schema.Literal(true), partner: PartnerView })
const slugParam = { slug: Schema.String }
const environmentQuery = {
  environment: Schema.optional(Environment).annotate({ description: "`live` (the default) or `test`" })
}
/** What an environment is handed when the partner is created: shown this once. */
const IssuedCredentials = Schema.Struct({ token: Schema.String, webhook_secret: Schema.String })
const Commission = Schema.Finite.annotate({ description: "Percent, 0 to 100" })
const RateLimit = Schema.NullOr(Schema.Int).annotate({
  description: "Requests a minute on the partner API, 1 or more; null: PARTNER_RATE_LIMIT applies"
})

/** A currency code as the console sends it (whether the deployment accepts it is the service's to say). */
const currencyCodeMessage =
  "The :attribute field must hold currency codes such as BRL, EUR or mBTC (a letter, then 1 to 9 letters or digits)."
const CurrencyCodeInput = Schema.String.annotate({ message: currencyCodeMessage }).check(
  Schema.isPattern(/^[A-Za-z][A-Za-z0-9]{1,9}$/, { message: currencyCodeMessage })
)

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
        callback_url: Schema.optional(Schema.NullOr(Schema.String)),
        test_callback_url: Schema.optional(Schema.NullOr(Schema.String))
      }),
      success: Schema.Struct({
        success: Schema.Literal(true),
        partner: PartnerView,
        token: Schema.String.annotate({ description: "The live token (`pak_live_…`)" }),
        webhook_secret: Schema.String.annotate({ description: "The live webhook secret" }),
        test: IssuedCredentials.annotate({ description: "The test token (`pak_test_…`) and the test webhook secret" })
      }),
      error: [ValidationFailed, Conflict]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Create a partner",
      description: "The answer holds its live and test tokens and webhook secrets: the only time any is shown."
    }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/partners/:slug", {
      params: slugParam,
      payload: Schema.Struct({
        name: Schema.optional(Schema.String),
        commission_percent: Schema.optional(Commission),
        callback_url: Schema.optional(Schema.NullOr(Schema.String)),
        test_callback_url: Schema.optional(Schema.NullOr(Schema.String)),
        rate_limit_per_minute: Schema.optional(RateLimit),
        player_mode: Schema.optional(PlayerMode.annotate({
          description:
            "`persisted` or `shadow`; to `shadow`, the names, e-mails and balance mirrors kept are forgotten at once " +
            "(rounds in flight go on). Audited on its own (partner.set-player-mode)."
        })),
        rtp_policy: Schema.optional(RtpPolicy.annotate({
          description:
            "`{mode: \"pass\"}`, `{mode: \"clamp\", min, max}` or `{mode: \"fixed\", value}` (whole percents " +
            "0 to 100, min not above max); applied from the next launch. Audited on its own (partner.set-rtp-policy)."
        })),
        default_currency: Schema.optional(
          Schema.NullOr(CurrencyCodeInput).annotate({
            description:
              "A code the deployment accepts (ISO 4217, or a crypto code CRYPTO_CURRENCIES enables); null: " +
              "the deployment's DEFAULT_CURRENCY. Must be among `currencies` when the partner has them. Audited with " +
              "them (partner.set-currencies)."
          })
        ),
        currencies: Schema.optional(
          Schema.NullOr(Schema.Array(CurrencyCodeInput)).annotate({
            description: `1 to ${partnerCurrencyLimit} codes the deployment accepts, the default among them; null: ` +
              "every currency the deployment enables. Audited with the default (partner.set-currencies)."
          })
        )
      }),
      success: PartnerAnswer,
      error: [ValidationFailed, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary:
        "Change a partner's name, commission, live or test callback URL (null or \"\" clears it), rate limit (null: the default), " +
        "player mode, RTP policy or currencies"
    }))
  )
  .add(
    HttpApiEndpoint.post("clearTestData", "/partners/:slug/clear-test-data", {
      params: slugParam,
      success: Schema.Struct({
        success: Schema.Literal(true),
        partner: PartnerView,
        environment: Schema.Literal("test"),
        cleared: Schema.Struct({
          players: Schema.Int,
          rounds: Schema.Int,
          transactions: Schema.Int,
          callbacks: Schema.Int,
          statements: Schema.Int
        })
          .annotate({ description: "How many test rows were deleted, table by table" })
      }),
      error: NotFound
    }).annotateMerge(OpenApi.annotations({
      summary:
        "Delete the partner's test players, rounds, transactions, callbacks and statements (audited); no live row is touched"
    }))
  )
  .add(
    HttpApiEndpoint.post("activate", "/partners/:slug/activate", {
      params: slugParam,
      success: PartnerAnswer,
      error: NotFound
    })
  )
  .add(
    HttpApiEndpoint.post("deactivate", "/partners/:slug/deactivate", {
      params: slugParam,
      success: PartnerAnswer,
      error: NotFound
    })
      .annotateMerge(OpenApi.annotations({ summary: "Refuse the partner's token, at once on every instance" }))
  )
  .add(
    HttpApiEndpoint.post("rotateToken", "/partners/:slug/rotate-token", {
      params: slugParam,
      query: environmentQuery,
      success: Schema.Struct({
        success: Schema.Literal(true),
        partner: PartnerView,
        environment: Environment,
        token: Schema.String
      }),
      error: [NotFound, Conflict]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary:
        "Issue a new token for the environment (shown once); its old one stops working, the other environment's is untouched",
      description:
        "A live token is refused (409) while the partner requires a passed wallet certification and its latest " +
        "finished run did not pass."
    }))
  )
  .add(
    HttpApiEndpoint.post("rotateWebhookSecret", "/partners/:slug/rotate-webhook-secret", {
      params: slugParam,
      query: environmentQuery,
      success: Schema.Struct({
        success: Schema.Literal(true),
        partner: PartnerView,
        environment: Environment,
        webhook_secret: Schema.String
      }),
      error: NotFound
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary:
        "Issue a new webhook secret for the environment (shown once); its old one keeps signing beside it for PARTNER_WEBHOOK_SECRET_OVERLAP"
    }))
  )
  .middleware(AdminAuth)
{}
