import { Config, Context, Duration, Effect, Layer, Schema } from "effect"

export const ServiceEnvironment = Schema.Literals(["production", "staging"])
export type ServiceEnvironment = typeof ServiceEnvironment.Type

/** Whether a deployment lets the partner's token in: production every token, staging test tokens only. */
export const admitsTokenOf = (serviceEnvironment: ServiceEnvironment, partner: { readonly environment: string }) =>
  serviceEnvironment === "production" || partner.environment === "test"

/** Settings of partner accounts, from the environment. */
export class PartnersConfig extends Context.Service<PartnersConfig, {
  /**
   * Callback URLs may be plain http:// and reach loopback, private, link-local and metadata addresses.
   * Off by default: a partner's callback_url must be https:// on the public internet.
   */
  readonly callbackAllowPrivate: boolean
  /** How long a rotated-out webhook secret keeps signing callbacks beside the new one. */
  readonly webhookSecretOverlap: Duration.Duration
  /** Requests a minute each partner may send to the partner API, unless the partner has its own limit. */
  readonly rateLimitPerMinute: number
  /**
   * SERVICE_ENVIRONMENT: `production` (the default) admits live and test tokens; `staging`, a deployment for
   * integration work, admits test tokens only and answers a live one as an unknown token.
   */
  readonly serviceEnvironment: ServiceEnvironment
  /** How often the times tokens were last used are written (one statement for all, each token at most once). */
  readonly tokenLastUsedInterval: Duration.Duration
}>()("partner-api/partners/PartnersConfig") {
  static readonly config = Config.all({
    callbackAllowPrivate: Config.Boolean("PARTNER_CALLBACK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
    webhookSecretOverlap: Config.Duration("PARTNER_WEBHOOK_SECRET_OVERLAP").pipe(
      Config.withDefault(Duration.hours(24))
    ),
    rateLimitPerMinute: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1_000_000_000 })),
      "PARTNER_RATE_LIMIT"
    ).pipe(Config.withDefault(1200)),
    serviceEnvironment: Config.schema(ServiceEnvironment, "SERVICE_ENVIRONMENT").pipe(
      Config.withDefault("production" as const)
    ),
    tokenLastUsedInterval: Config.Duration("TOKEN_LAST_USED_INTERVAL").pipe(Config.withDefault(Duration.minutes(1)))
  })

  static readonly layer = Layer.effect(PartnersConfig, Effect.map(PartnersConfig.config, PartnersConfig.of))
}
