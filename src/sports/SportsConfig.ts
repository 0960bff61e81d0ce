import { ByteSize, Config, Context, Duration, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"

export type SportsProviderKind = "sandbox" | "betsapi" | "apifootball"

/** Settings of the sports area, from the environment. */
export class SportsConfig extends Context.Service<SportsConfig, {
  readonly provider: SportsProviderKind
  readonly betsapi: {
    readonly baseUrl: string
    readonly token: Option.Option<Redacted.Redacted>
  }
  readonly apifootball: {
    readonly baseUrl: string
    readonly key: Option.Option<Redacted.Redacted>
    /** The bookmaker whose pre-match odds are answered (API-Football's ids; 8 is Bet365). */
    readonly bookmakerId: number
    /** Calls a minute at most, across the fleet: the plan's figure or below, never a burst that risks the key. */
    readonly callsPerMinute: number
  }
  /** Time-out of each call to the provider. */
  readonly timeout: Duration.Duration
  /** Upstream calls allowed per hour (BetsAPI's standard plan: 3,600). */
  readonly rateLimitPerHour: number
  /** The part of the hourly budget one partner's uncached requests may spend (0 < share <= 1). */
  readonly partnerQuotaShare: number
  /** The part of the hourly budget partners can never spend: kept for the scheduled refreshes (0 <= reserve < 1). */
  readonly scheduledReserve: number
  /** The longest any answer is reused; 0 keeps only the sharing of identical concurrent calls. */
  readonly cacheTtlMax: Duration.Duration
  /** The most the cached answers may hold, in encoded bytes (payload and decoded content); the least recently used go first. */
  readonly cacheMaxSize: ByteSize.ByteSize
  /**
   * An event the provider still calls in play this long after its kick-off is answered `suspended` (reason
   * `overdue`), never `final`: a feed that never sent the final whistle.
   */
  readonly overdueAfter: Duration.Duration
}>()("partner-api/sports/SportsConfig") {
  static readonly config = Config.all({
    provider: Config.Literals(["sandbox", "betsapi", "apifootball"], "SPORTS_PROVIDER").pipe(
      Config.withDefault("sandbox" as const)
    ),
    betsapi: Config.all({
      baseUrl: Config.URL("BETSAPI_BASE_URL").pipe(
        Config.map((url) => url.toString().replace(/\/$/, "")),
        Config.withDefault("https://api.b365api.com")
      ),
      token: Config.option(Config.Redacted("BETSAPI_TOKEN"))
    }),
    apifootball: Config.all({
      baseUrl: Config.URL("APIFOOTBALL_BASE_URL").pipe(
        Config.map((url) => url.toString().replace(/\/$/, "")),
        Config.withDefault("https://v3.football.api-sports.io")
      ),
      key: Config.option(Config.Redacted("APIFOOTBALL_KEY")),
      bookmakerId: Config.schema(
        Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)),
        "APIFOOTBALL_BOOKMAKER"
      ).pipe(Config.withDefault(8)),
      callsPerMinute: Config.schema(
        Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)),
        "APIFOOTBALL_CALLS_PER_MINUTE"
      ).pipe(Config.withDefault(10))
    }),
    timeout: Config.Duration("SPORTS_PROVIDER_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5))),
    rateLimitPerHour: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)),
      "SPORTS_PROVIDER_RATE_LIMIT"
    ).pipe(Config.withDefault(3600)),
    partnerQuotaShare: Config.schema(
      Schema.NumberFromString.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1)),
      "SPORTS_PARTNER_QUOTA_SHARE"
    ).pipe(Config.withDefault(0.25)),
    scheduledReserve: Config.schema(
      Schema.NumberFromString.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThan(1)),
      "SPORTS_SCHEDULED_RESERVE"
    ).pipe(Config.withDefault(0.25)),
    cacheTtlMax: Config.Duration("SPORTS_PROVIDER_CACHE_TTL_MAX").pipe(Config.withDefault(Duration.infinity)),
    cacheMaxSize: Config.ByteSize("SPORTS_PROVIDER_CACHE_MAX_SIZE").pipe(Config.withDefault(ByteSize.megabytes(64))),
    overdueAfter: Config.Duration("SPORTS_OVERDUE_AFTER").pipe(
      Config.withDefault(Duration.hours(6)),
      Config.mapEffect((after) =>
        Duration.isGreaterThan(after, Duration.zero) ? Effect.succeed(after) : Effect.fail(
          new Config.ConfigError(
            new Schema.SchemaError(
              new SchemaIssue.InvalidValue({ message: "SPORTS_OVERDUE_AFTER must be a duration above zero" })
            )
          )
        )
      )
    )
  })

  static readonly layer = Layer.effect(SportsConfig, Effect.map(SportsConfig.config, SportsConfig.of))
}
