import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Environment } from "../../domain/Environment.ts"
import { StorableText } from "../../domain/Text.ts"
import { NotFound, ValidationFailed } from "../identity/Errors.ts"
import { PageMeta } from "../Paging.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { transactionsQuery, WalletRoundEntry, WalletTransactionEntry } from "../Wallet.ts"
import { PortalAuth } from "./PortalSecurity.ts"

const environmentParam = { environment: Environment }

/** The partner's own wallet data, per environment, exactly as the partner API answers it. */
export class PortalWalletGroup extends HttpApiGroup.make("wallet")
  .add(
    HttpApiEndpoint.get("transactions", "/wallet/:environment/transactions", {
      params: environmentParam,
      query: transactionsQuery,
      success: Schema.Struct({
        success: Schema.Literal(true),
        transactions: Schema.Array(WalletTransactionEntry),
        meta: PageMeta
      }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary:
        "The environment's wallet transactions, newest first, as `GET /api/partner/v1/wallet/transactions` answers them"
    }))
  )
  .add(
    HttpApiEndpoint.get("round", "/wallet/:environment/rounds/:round_id", {
      params: { ...environmentParam, round_id: StorableText },
      query: { external_player_id: Schema.optional(Schema.String) },
      success: Schema.Struct({ success: Schema.Literal(true), rounds: Schema.Array(WalletRoundEntry) }),
      error: [NotFound, ValidationFailed]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "A round with its transactions, as `GET /api/partner/v1/wallet/rounds/{round_id}` answers it"
    }))
  )
  .middleware(PortalAuth)
{}

const Usage = Schema.Struct({
  environment: Environment,
  rate_limit: Schema.Struct({
    per_minute: Schema.Int.annotate({
      description: "Requests a minute the partner API takes from this environment's token"
    }),
    default: Schema.Boolean.annotate({
      description: "Whether it is the service's default (PARTNER_RATE_LIMIT) rather than the partner's own"
    }),
    available_now: Schema.NullOr(Schema.Int).annotate({
      description: "Requests that may be sent at once right now (the bucket refills evenly)"
    })
  }),
  provider_quota: Schema.Struct({
    provider: Schema.String,
    per_hour: Schema.Int.annotate({
      description: "The partner's share of the sports provider's hourly quota (uncached calls)"
    }),
    burst: Schema.Int,
    available_now: Schema.NullOr(Schema.Int).annotate({
      description: "Uncached provider calls that may be made at once right now"
    })
  })
})

/** The partner's currencies as the operator set them (read-only here). */
const PartnerCurrencies = Schema.Struct({
  default_currency: Schema.String.annotate({ description: "The currency of a launch that names none" }),
  default: Schema.Boolean.annotate({
    description: "Whether it is the service's default (DEFAULT_CURRENCY) rather than the partner's own"
  }),
  allowed: Schema.NullOr(Schema.Array(Schema.String)).annotate({
    description: "The only currencies the partner's launches may be in; null: every currency the service accepts"
  })
})

/** What the partner uses of the service's limits, and the currencies its launches may be in. */
export class PortalUsageGroup extends HttpApiGroup.make("usage")
  .add(
    HttpApiEndpoint.get("usage", "/usage", {
      success: Schema.Struct({
        success: Schema.Literal(true),
        environments: Schema.Array(Usage),
        currencies: PartnerCurrencies
      })
    }).annotateMerge(OpenApi.annotations({
      summary:
        "The rate limit and the share of the sports provider's quota each environment uses, read without spending any, " +
        "and the partner's currencies (both environments), which its operator sets"
    }))
  )
  .middleware(PortalAuth)
{}
