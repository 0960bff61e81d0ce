import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RateLimiter } from "effect/persistence"
import { PortalApi } from "../../api/portal/PortalApi.ts"
import { type Environment, environments } from "../../domain/Environment.ts"
import { PartnerRateLimit } from "../../partners/PartnerRateLimit.ts"
import { CurrencyConfig } from "../../platform/CurrencyConfig.ts"
import { Partners } from "../../partners/Partners.ts"
import { partnerQuotaUsage } from "../../sports/ProviderQuota.ts"
import { SportsConfig } from "../../sports/SportsConfig.ts"
import { SportsProvider } from "../../sports/SportsProvider.ts"
import { reaching, Upstreams, UpstreamsKey } from "../../upstreams/Upstreams.ts"
import { ledgerReads } from "../../wallet/http.ts"
import type { LedgerScope } from "../../wallet/WalletLedger.ts"
import { partnerOfSession } from "./Common.ts"

/** The contract's "wallet" group: the session's partner's ledger in one environment, as the partner API answers it. */
export const PortalWalletHandlers = HttpApiBuilder.group(
  PortalApi,
  "wallet",
  Effect.fn(function*(handlers) {
    const reads = yield* ledgerReads
    const scoped = <A, E, R>(environment: Environment, read: (scope: LedgerScope) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(
        partnerOfSession,
        (partner) =>
          Effect.map(read({ partnerId: partner.id, environment }), (data) => ({ success: true as const, ...data }))
      )
    return handlers
      .handle(
        "transactions",
        ({ params, query }) => scoped(params.environment, (scope) => reads.transactions(scope, query))
      )
      .handle(
        "round",
        ({ params, query }) =>
          scoped(params.environment, (scope) => reads.round(scope, params.round_id, query.external_player_id))
      )
  })
)

/**
 * The contract's "usage" group: the limits the session's partner uses, read without spending any, and its currencies
 * (its default, or the deployment's; its restriction, or none).
 */
export const PortalUsageHandlers = HttpApiBuilder.group(
  PortalApi,
  "usage",
  Effect.fn(function*(handlers) {
    const partners = yield* Partners
    const rateLimit = yield* PartnerRateLimit
    const upstreams = yield* Upstreams
    const sportsConfig = yield* SportsConfig
    const limiter = yield* RateLimiter.RateLimiter
    const currencyConfig = yield* CurrencyConfig
    return handlers.handle(
      "usage",
      Effect.fn("PortalHandlers.usage")(function*() {
        const { id } = yield* partnerOfSession
        const partner = Option.getOrThrow(yield* partners.findById(id))
        const usage = yield* Effect.forEach(
          environments,
          Effect.fnUntraced(function*(environment) {
            const allowance = yield* rateLimit.usage({
              id,
              environment,
              rateLimitPerMinute: partner.rateLimitPerMinute
            })
            const provider = yield* Effect.service(SportsProvider).pipe(
              reaching(new UpstreamsKey({ environment })),
              Effect.provideService(Upstreams, upstreams)
            )
            const quota = yield* partnerQuotaUsage(provider.name, id).pipe(
              Effect.provideService(SportsConfig, sportsConfig),
              Effect.provideService(RateLimiter.RateLimiter, limiter)
            )
            return {
              environment,
              rate_limit: {
                per_minute: allowance.limit,
                default: partner.rateLimitPerMinute === null,
                available_now: allowance.remaining
              },
              provider_quota: {
                provider: quota.provider,
                per_hour: quota.perHour,
                burst: quota.burst,
                available_now: quota.availableNow
              }
            }
          })
        )
        return {
          success: true as const,
          environments: usage,
          currencies: {
            default_currency: partner.defaultCurrency ?? currencyConfig.defaultCurrency.code,
            default: partner.defaultCurrency === null,
            allowed: partner.currencies
          }
        }
      })
    )
  })
)
