import { ByteSize, Config, Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { CurrencyCode } from "../domain/Currency.ts"

export type CasinoGatewayKind = "sandbox" | "playfiver"

/** Settings of the casino area, from the environment. */
export class CasinoConfig extends Context.Service<CasinoConfig, {
  readonly gateway: CasinoGatewayKind
  readonly playfiver: {
    readonly baseUrl: string
    readonly agentToken: Option.Option<Redacted.Redacted>
    readonly secretKey: Option.Option<Redacted.Redacted>
    /** The one currency the agent plays in (an agent-level setting at PlayFiver; its calls carry none). */
    readonly currency: string
  }
  /** Time-out of each call to the aggregator. */
  readonly timeout: Duration.Duration
  /** How often the local catalog is refreshed from the aggregator. */
  readonly syncInterval: Duration.Duration
  /** How long catalog answers (/providers, /games, launch look-ups) are served from memory; 0 turns it off. */
  readonly catalogCacheTtl: Duration.Duration
  /** The most those answers may take in memory, by their encoded size. */
  readonly catalogCacheMaxBytes: number
}>()("partner-api/casino/CasinoConfig") {
  static readonly config = Config.all({
    gateway: Config.Literals(["sandbox", "playfiver"], "CASINO_GATEWAY").pipe(Config.withDefault("sandbox" as const)),
    playfiver: Config.all({
      baseUrl: Config.URL("PLAYFIVER_BASE_URL").pipe(
        Config.map((url) => url.toString().replace(/\/$/, "")),
        Config.withDefault("https://api.playfivers.com")
      ),
      agentToken: Config.option(Config.Redacted("PLAYFIVER_AGENT_TOKEN")),
      secretKey: Config.option(Config.Redacted("PLAYFIVER_SECRET_KEY")),
      currency: Config.schema(CurrencyCode, "PLAYFIVER_CURRENCY").pipe(Config.withDefault("BRL"))
    }),
    timeout: Config.Duration("CASINO_GATEWAY_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10))),
    syncInterval: Config.Duration("CASINO_SYNC_INTERVAL").pipe(Config.withDefault(Duration.hours(1))),
    catalogCacheTtl: Config.Duration("CASINO_CATALOG_CACHE_TTL").pipe(Config.withDefault(Duration.seconds(30))),
    catalogCacheMaxBytes: Config.ByteSize("CASINO_CATALOG_CACHE_MAX_SIZE").pipe(
      Config.withDefault(ByteSize.mebibytes(32)),
      Config.map(ByteSize.toNumberUnsafe)
    )
  })

  static readonly layer = Layer.effect(CasinoConfig, Effect.map(CasinoConfig.config, CasinoConfig.of))
}
