import { Config, Context, Duration, Effect, Layer, Schema } from "effect"

/** Settings of the wallet callbacks to partners, from the environment. */
export class CallbacksConfig extends Context.Service<CallbacksConfig, {
  /** How long a partner has to answer a callback. */
  readonly timeout: Duration.Duration
  /** Deliveries of a notification before it is marked failed (with exponential backoff: 25 is about 3 days). */
  readonly maxAttempts: number
  /** Notifications this instance delivers at once (each player's stay in order). */
  readonly workers: number
  /**
   * A delivery job holding its lock longer than this belongs to an instance that died mid-delivery;
   * its lock is released so another instance picks the line up.
   */
  readonly staleLockAfter: Duration.Duration
}>()("partner-api/callbacks/CallbacksConfig") {
  static readonly config = Config.all({
    timeout: Config.Duration("PARTNER_CALLBACK_TIMEOUT").pipe(Config.withDefault(Duration.seconds(3))),
    maxAttempts: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 100 })),
      "PARTNER_CALLBACK_MAX_ATTEMPTS"
    ).pipe(Config.withDefault(25)),
    workers: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 64 })),
      "PARTNER_CALLBACK_WORKERS"
    ).pipe(Config.withDefault(4)),
    staleLockAfter: Config.Duration("PARTNER_CALLBACK_STALE_LOCK").pipe(Config.withDefault(Duration.minutes(10)))
  })

  static readonly layer = Layer.effect(CallbacksConfig, Effect.map(CallbacksConfig.config, CallbacksConfig.of))
}
