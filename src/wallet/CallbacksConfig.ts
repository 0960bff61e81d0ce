import { Config, Context, Duration, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import { AddressRanges, AddressRangesFromString } from "../platform/ClientAddress.ts"

/** Settings of the wallet callbacks to partners, from the environment. */
export class CallbacksConfig extends Context.Service<CallbacksConfig, {
  /** How long a partner has to answer a callback. */
  readonly timeout: Duration.Duration
  /** Deliveries of a notification before it is marked failed (with exponential backoff: 25 is about 3 days). */
  readonly maxAttempts: number
  /** Notifications this instance delivers at once (each player's stay in order). */
  readonly workers: number
  /**
   * A player's delivery queue held longer than this belongs to an instance that died mid-delivery: this
   * instance's worker may claim it (a run holds a queue for at most drainBatch time-outs).
   */
  readonly staleLockAfter: Duration.Duration
  /**
   * A bet still pending this long after it was written (its instance crashed or hung while asking the
   * partner) is settled as refused, with a rollback, by whichever instance is alive. A refund of its round
   * waits for it at most this long. Longer than `timeout`, so no living call is overtaken.
   */
  readonly pendingTimeout: Duration.Duration
  /** What the aggregator's wallet calls carry as agent_code and agent_secret (the sandbox has its own). */
  readonly walletAgentCode: Option.Option<string>
  readonly walletAgentSecret: Option.Option<Redacted.Redacted>
  /**
   * The addresses the aggregator's wallet calls may come from (AGGREGATOR_ALLOWED_IPS); empty: any. A call
   * from elsewhere is refused before its body is read.
   */
  readonly aggregatorAllowedIps: AddressRanges
  /**
   * Wallet certification runs a partner may start itself in any rolling hour (CERTIFICATION_RUNS_PER_HOUR); the
   * operators' runs count toward it but are never refused.
   */
  readonly certificationRunsPerHour: number
}>()("partner-api/wallet/CallbacksConfig") {
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
    staleLockAfter: Config.Duration("PARTNER_CALLBACK_STALE_LOCK").pipe(Config.withDefault(Duration.minutes(10))),
    pendingTimeout: Config.Duration("WALLET_PENDING_TIMEOUT").pipe(Config.withDefault(Duration.seconds(15))),
    walletAgentCode: Config.option(Config.String("PLAYFIVER_AGENT_CODE")),
    walletAgentSecret: Config.option(Config.Redacted("PLAYFIVER_AGENT_SECRET")),
    aggregatorAllowedIps: Config.schema(AddressRangesFromString, "AGGREGATOR_ALLOWED_IPS").pipe(
      Config.withDefault(new AddressRanges([]))
    ),
    certificationRunsPerHour: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 })),
      "CERTIFICATION_RUNS_PER_HOUR"
    ).pipe(Config.withDefault(6))
  }).pipe(
    Config.mapEffect((config) =>
      Duration.isGreaterThan(config.pendingTimeout, Duration.sum(config.timeout, Duration.seconds(1)))
        ? Effect.succeed(config)
        : Effect.fail(
          new Config.ConfigError(
            new Schema.SchemaError(
              new SchemaIssue.InvalidValue({
                message: "WALLET_PENDING_TIMEOUT must be more than PARTNER_CALLBACK_TIMEOUT plus a second"
              })
            )
          )
        )
    )
  )

  static readonly layer = Layer.effect(CallbacksConfig, Effect.map(CallbacksConfig.config, CallbacksConfig.of))
}
