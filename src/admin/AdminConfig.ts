import { Config, Context, Duration, Effect, Layer, Schema } from "effect"

/** Settings of the operator console, from the environment. */
export class AdminConfig extends Context.Service<AdminConfig, {
  /** How long a console session lasts from its log-in; then the admin logs in again. */
  readonly sessionTtl: Duration.Duration
  /** Failed log-ins allowed per e-mail (and, ten times that, per client address) within `loginWindow`. */
  readonly loginMaxFailures: number
  readonly loginWindow: Duration.Duration
}>()("partner-api/admin/AdminConfig") {
  static readonly config = Config.all({
    sessionTtl: Config.Duration("ADMIN_SESSION_TTL").pipe(Config.withDefault(Duration.hours(8))),
    loginMaxFailures: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1000 })),
      "ADMIN_LOGIN_MAX_FAILURES"
    ).pipe(Config.withDefault(5)),
    loginWindow: Config.Duration("ADMIN_LOGIN_WINDOW").pipe(Config.withDefault(Duration.minutes(15)))
  })

  static readonly layer = Layer.effect(AdminConfig, Effect.map(AdminConfig.config, AdminConfig.of))
}
