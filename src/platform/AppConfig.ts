import {
  Config,
  Context,
  Duration,
  Effect,
  Layer,
  LogLevel,
  Option,
  Redacted,
  Schema,
  SchemaGetter,
  SchemaIssue
} from "effect"
import { PartnerToken } from "../domain/Partner.ts"

// LOG_LEVEL is read case-insensitively: operators write `info`, effect names it `Info`.
const LogLevelName = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Literals(LogLevel.values),
    {
      decode: SchemaGetter.transform((raw: string) => {
        const match = LogLevel.values.find((level) => level.toLowerCase() === raw.trim().toLowerCase())
        return (match ?? raw) as LogLevel.LogLevel
      }),
      encode: SchemaGetter.transform((level: LogLevel.LogLevel) => level)
    }
  )
)

/**
 * Process-wide settings, read once from the environment at start-up.
 * Every variable is validated here, so a bad value stops the start with a
 * message naming it instead of failing later on the first request.
 */
export class AppConfig extends Context.Service<AppConfig, {
  readonly port: number
  readonly host: string
  /** `None` means: start the embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly demoPartnerToken: Option.Option<Redacted.Redacted>
  readonly logLevel: LogLevel.LogLevel
  /** How long a token look-up (found or not) is trusted before the database is asked again. */
  readonly authCacheTtlMillis: number
  /**
   * Refused credentials a minute one client address may get (an unknown partner token, a wallet call with
   * the wrong agent); past it the address is answered 429. Counted apart for each door, shared by the fleet.
   */
  readonly authFailureLimit: number
  /** Public address of this service, used in links it hands out (launch URLs, curl hints). */
  readonly publicUrl: Option.Option<string>
  /** The longest a stop (SIGTERM, Ctrl-C) may take: HTTP drain, background work, pool; then the process exits anyway. */
  readonly shutdownTimeout: Duration.Duration
}>()("partner-api/platform/AppConfig") {
  static readonly config = Config.all({
    port: Config.Port("PORT").pipe(Config.withDefault(8080)),
    host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
    databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
    dataDir: Config.String("DATA_DIR").pipe(Config.withDefault(".data")),
    // The shape every partner token has (src/domain/Partner.ts); the message never shows the value.
    demoPartnerToken: Config.option(Config.schema(Schema.Redacted(PartnerToken), "DEMO_PARTNER_TOKEN")),
    logLevel: Config.schema(LogLevelName, "LOG_LEVEL").pipe(Config.withDefault("Info" as const)),
    authCacheTtl: Config.Duration("AUTH_CACHE_TTL").pipe(Config.withDefault("5 seconds")),
    authFailureLimit: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1_000_000 })),
      "AUTH_FAILURE_LIMIT"
    ).pipe(Config.withDefault(30)),
    publicUrl: Config.option(Config.URL("PUBLIC_URL")),
    shutdownTimeout: Config.Duration("SHUTDOWN_TIMEOUT").pipe(
      Config.withDefault(Duration.seconds(30)),
      Config.mapEffect((timeout) =>
        Duration.isGreaterThan(timeout, Duration.zero) && Duration.isFinite(timeout)
          ? Effect.succeed(timeout)
          : Effect.fail(
            new Config.ConfigError(
              new Schema.SchemaError(
                new SchemaIssue.InvalidValue({ message: "SHUTDOWN_TIMEOUT must be a finite duration above zero" })
              )
            )
          )
      )
    )
  }).pipe(
    Config.map(({ authCacheTtl, publicUrl, ...rest }) => ({
      ...rest,
      authCacheTtlMillis: Duration.toMillis(authCacheTtl),
      publicUrl: Option.map(publicUrl, (url) => url.toString().replace(/\/$/, ""))
    }))
  )

  static readonly layer = Layer.effect(AppConfig, Effect.map(AppConfig.config, AppConfig.of))
}

/** Where this service is reached from outside: PUBLIC_URL, or localhost on PORT. */
export const publicBaseUrl = (config: AppConfig["Service"]) =>
  Option.getOrElse(config.publicUrl, () => `http://localhost:${config.port}`)
