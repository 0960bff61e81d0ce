import { ByteSize, Config, Context, Duration, Effect, Layer, Schema } from "effect"

/** Settings of the local sports catalog, from the environment. */
export class SportsCatalogConfig extends Context.Service<SportsCatalogConfig, {
  /** How often the whole catalog (leagues, events) is refreshed from the provider. */
  readonly refreshInterval: Duration.Duration
  /** How often events in play are refreshed (score, minute, status). */
  readonly liveRefreshInterval: Duration.Duration
  /** The sports a refresh without sport_id covers. */
  readonly sportIds: ReadonlyArray<number>
  /** How long catalog and feed answers are served from memory; 0 turns it off. */
  readonly cacheTtl: Duration.Duration
  /** The most the answers kept in memory may take, by their encoded size. */
  readonly cacheMaxBytes: number
}>()("partner-api/catalog/SportsCatalogConfig") {
  static readonly config = Config.all({
    refreshInterval: Config.Duration("CATALOG_REFRESH_INTERVAL").pipe(Config.withDefault(Duration.minutes(5))),
    liveRefreshInterval: Config.Duration("CATALOG_LIVE_REFRESH_INTERVAL").pipe(
      Config.withDefault(Duration.seconds(30))
    ),
    sportIds: Config.Array(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThan(0)),
      "CATALOG_SPORT_IDS"
    ).pipe(Config.withDefault([1, 18, 13])),
    cacheTtl: Config.Duration("CATALOG_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(10))),
    cacheMaxBytes: Config.ByteSize("CATALOG_CACHE_MAX_SIZE").pipe(
      Config.withDefault(ByteSize.mebibytes(64)),
      Config.map(ByteSize.toNumberUnsafe)
    )
  })

  static readonly layer = Layer.effect(
    SportsCatalogConfig,
    Effect.map(SportsCatalogConfig.config, SportsCatalogConfig.of)
  )
}
