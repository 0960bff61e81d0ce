import { Config, Context, Duration, Effect, Layer, Schema } from "effect"

const count = (name: string, maximum: number) =>
  Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum })), name)

/**
 * Identity's settings, from the environment: the operator console's accounts and sessions, the partner portal's, and
 * the log-in throttle and hash permits both share. The variables keep their ADMIN_ names, which predate the portal.
 */
export class IdentityConfig extends Context.Service<IdentityConfig, {
  /** How long a console session lasts from its log-in; then the admin logs in again. */
  readonly sessionTtl: Duration.Duration
  /** Log-ins allowed per e-mail and client address before lock-outs begin. */
  readonly loginMaxFailures: number
  /** The first lock-out of an e-mail and client address; each further failure doubles it, up to `loginMaxLockout`. */
  readonly loginLockout: Duration.Duration
  readonly loginMaxLockout: Duration.Duration
  /** Failed log-ins allowed from one client address, whatever the e-mail, within `loginWindow`. */
  readonly loginMaxFailuresPerAddress: number
  readonly loginWindow: Duration.Duration
  /** Passwords checked at once (scrypt on libuv's thread pool); a log-in beyond them is a 429. */
  readonly concurrentHashes: number
  /** How long a one-time password from the CLI can be used. */
  readonly oneTimePasswordTtl: Duration.Duration
  /** How long a partner portal session lasts from its log-in (the portal's log-ins share the throttle settings above). */
  readonly portalSessionTtl: Duration.Duration
  /** How long a partner user's invitation link can be used. */
  readonly invitationTtl: Duration.Duration
}>()("partner-api/identity/IdentityConfig") {
  static readonly config = Config.all({
    sessionTtl: Config.Duration("ADMIN_SESSION_TTL").pipe(Config.withDefault(Duration.hours(8))),
    loginMaxFailures: count("ADMIN_LOGIN_MAX_FAILURES", 1000).pipe(Config.withDefault(5)),
    loginLockout: Config.Duration("ADMIN_LOGIN_LOCKOUT").pipe(Config.withDefault(Duration.minutes(1))),
    loginMaxLockout: Config.Duration("ADMIN_LOGIN_MAX_LOCKOUT").pipe(Config.withDefault(Duration.hours(1))),
    loginMaxFailuresPerAddress: count("ADMIN_LOGIN_MAX_FAILURES_PER_ADDRESS", 100_000).pipe(Config.withDefault(100)),
    loginWindow: Config.Duration("ADMIN_LOGIN_WINDOW").pipe(Config.withDefault(Duration.minutes(15))),
    // libuv's pool has 4 threads unless UV_THREADPOOL_SIZE says otherwise; 2 hashes leave the others to
    // the rest of the process (file reads, and DNS look-ups through the system resolver).
    concurrentHashes: count("ADMIN_LOGIN_CONCURRENT_HASHES", 64).pipe(Config.withDefault(2)),
    oneTimePasswordTtl: Config.Duration("ADMIN_ONE_TIME_PASSWORD_TTL").pipe(Config.withDefault(Duration.hours(24))),
    portalSessionTtl: Config.Duration("PORTAL_SESSION_TTL").pipe(Config.withDefault(Duration.hours(8))),
    invitationTtl: Config.Duration("PORTAL_INVITATION_TTL").pipe(Config.withDefault(Duration.hours(72)))
  })

  static readonly layer = Layer.effect(IdentityConfig, Effect.map(IdentityConfig.config, IdentityConfig.of))
}
