import { Config, Context, Duration, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import { CallbacksConfig } from "../CallbacksConfig.ts"

const invalid = (message: string) =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message })))

/** An http:// or https:// URL. */
const AlertUrl = Schema.String.check(Schema.makeFilter((text: string) => {
  try {
    const url = new URL(text.trim())
    return url.protocol === "https:" || url.protocol === "http:"
  } catch {
    return false
  }
}, { message: "must be an http:// or https:// URL" }))

/** WALLET_STUCK_ROUND_AFTER unset: a minute, or four times WALLET_PENDING_TIMEOUT when that is longer. */
export const defaultStuckRoundAfter = (pendingTimeout: Duration.Duration): Duration.Duration =>
  Duration.max(Duration.minutes(1), Duration.times(pendingTimeout, 4))

/** The shortest operator alert secret: HMAC keys shorter than this are guessable. */
export const minAlertSecretLength = 16

/** Settings of the wallet's operations: what counts as stuck, and where an operator is told. */
export class OperationsConfig extends Context.Service<OperationsConfig, {
  /**
   * A round open longer than this is stuck (WALLET_STUCK_ROUND_AFTER); more than WALLET_PENDING_TIMEOUT. Unset: a
   * minute, or four times WALLET_PENDING_TIMEOUT when that is longer.
   */
  readonly stuckRoundAfter: Duration.Duration
  /** Where a stuck item is reported, once (OPERATOR_ALERT_URL); none: no alert is sent. */
  readonly alertUrl: Option.Option<string>
  /** What signs the alerts (OPERATOR_ALERT_SECRET); required with OPERATOR_ALERT_URL. Never logged. */
  readonly alertSecret: Option.Option<Redacted.Redacted>
}>()("partner-api/wallet/OperationsConfig") {
  static readonly config = Config.all({
    callbacks: CallbacksConfig.config,
    stuckRoundAfter: Config.option(Config.Duration("WALLET_STUCK_ROUND_AFTER")),
    alertUrl: Config.option(Config.schema(AlertUrl, "OPERATOR_ALERT_URL")).pipe(
      Config.map(Option.filter((url) => url.trim() !== "")),
      Config.map(Option.map((url) => url.trim()))
    ),
    alertSecret: Config.option(Config.Redacted("OPERATOR_ALERT_SECRET"))
  }).pipe(
    Config.mapEffect(({ alertSecret, alertUrl, callbacks, stuckRoundAfter: given }) => {
      // Unset, it follows WALLET_PENDING_TIMEOUT: an operator who lengthens that one is not stopped by this one.
      const stuckRoundAfter = Option.getOrElse(given, () => defaultStuckRoundAfter(callbacks.pendingTimeout))
      if (!Duration.isGreaterThan(stuckRoundAfter, callbacks.pendingTimeout)) {
        return Effect.fail(invalid("WALLET_STUCK_ROUND_AFTER must be more than WALLET_PENDING_TIMEOUT"))
      }
      if (Option.isSome(alertUrl) && Option.isNone(alertSecret)) {
        return Effect.fail(
          invalid("OPERATOR_ALERT_SECRET is required with OPERATOR_ALERT_URL: the alerts are signed with it")
        )
      }
      if (Option.isSome(alertSecret) && Redacted.value(alertSecret.value).length < minAlertSecretLength) {
        return Effect.fail(invalid(`OPERATOR_ALERT_SECRET must be at least ${minAlertSecretLength} characters`))
      }
      return Effect.succeed({ stuckRoundAfter, alertUrl, alertSecret })
    })
  )

  static readonly layer = Layer.effect(OperationsConfig, Effect.map(OperationsConfig.config, OperationsConfig.of))
}

/** How often the fleet looks for stuck items: a quarter of WALLET_STUCK_ROUND_AFTER, from 1 second to 1 minute. */
export const stuckCheckInterval = (config: OperationsConfig["Service"]): Duration.Duration =>
  Duration.clamp(Duration.divideUnsafe(config.stuckRoundAfter, 4), {
    minimum: Duration.seconds(1),
    maximum: Duration.minutes(1)
  })
