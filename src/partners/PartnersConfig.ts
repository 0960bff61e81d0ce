import { Config, Context, Duration, Effect, Layer } from "effect"

/** Settings of partner accounts, from the environment. */
export class PartnersConfig extends Context.Service<PartnersConfig, {
  /**
   * Callback URLs may be plain http:// and reach loopback, private, link-local and metadata addresses.
   * Off by default: a partner's callback_url must be https:// on the public internet.
   */
  readonly callbackAllowPrivate: boolean
  /** How long a rotated-out webhook secret keeps signing callbacks beside the new one. */
  readonly webhookSecretOverlap: Duration.Duration
}>()("partner-api/partners/PartnersConfig") {
  static readonly config = Config.all({
    callbackAllowPrivate: Config.Boolean("PARTNER_CALLBACK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
    webhookSecretOverlap: Config.Duration("PARTNER_WEBHOOK_SECRET_OVERLAP").pipe(Config.withDefault(Duration.hours(24)))
  })

  static readonly layer = Layer.effect(PartnersConfig, Effect.map(PartnersConfig.config, PartnersConfig.of))
}
