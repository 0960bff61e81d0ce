import {
  ByteSize,
  Config,
  Context,
  Duration,
  Effect,
  Layer,
  Option,
  Redacted,
  Result,
  Schema,
  SchemaIssue
} from "effect"
import { CurrencyCode } from "../domain/Currency.ts"

export const casinoGatewayKinds = ["sandbox", "playfiver", "hub88"] as const
export type CasinoGatewayKind = (typeof casinoGatewayKinds)[number]
/** A real aggregator (not the sandbox). */
export type RealAggregator = Exclude<CasinoGatewayKind, "sandbox">

/**
 * CASINO_GATEWAY read: one name or a comma-separated list of real aggregators (`playfiver,hub88`), each once, the
 * first serving a studio they share unless the operator chooses otherwise; `sandbox` only alone.
 */
export const gatewayList = (text: string): Result.Result<ReadonlyArray<CasinoGatewayKind>, string> => {
  const names = text.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "")
  if (names.length === 0) return Result.fail("CASINO_GATEWAY names no aggregator")
  for (const name of names) {
    if (!(casinoGatewayKinds as ReadonlyArray<string>).includes(name)) {
      return Result.fail(`CASINO_GATEWAY names ${name}: expected ${casinoGatewayKinds.join(", ")}`)
    }
  }
  if (new Set(names).size !== names.length) return Result.fail("CASINO_GATEWAY names an aggregator twice")
  if (names.includes("sandbox") && names.length > 1) {
    return Result.fail("CASINO_GATEWAY=sandbox stands alone: it is not listed with real aggregators")
  }
  return Result.succeed(names as ReadonlyArray<CasinoGatewayKind>)
}

/** Whether the sandbox aggregator is the live one (CASINO_GATEWAY=sandbox). */
export const sandboxSelected = (config: { readonly gateways: ReadonlyArray<CasinoGatewayKind> }) =>
  config.gateways.includes("sandbox")

/** Settings of the casino area, from the environment. */
export class CasinoConfig extends Context.Service<CasinoConfig, {
  /** CASINO_GATEWAY: the live aggregators, in its order (`sandbox` alone, or real ones). */
  readonly gateways: ReadonlyArray<CasinoGatewayKind>
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
    gateways: Config.String("CASINO_GATEWAY").pipe(
      Config.withDefault("sandbox"),
      Config.mapEffect((text) =>
        Result.match(gatewayList(text), {
          onFailure: (message) =>
            Effect.fail(new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message })))),
          onSuccess: Effect.succeed
        })
      )
    ),
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
