import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"

/**
 * Where state shared by every instance of the service lives: Redis when
 * REDIS_URL is set, this process's memory otherwise (one instance).
 */
export class SharedStoreConfig extends Context.Service<SharedStoreConfig, {
  readonly redisUrl: Option.Option<Redacted.Redacted>
  /** Put before every key this service writes in Redis, so several deployments (or test runs) share one Redis. */
  readonly keyPrefix: string
  /**
   * Instances in the fleet. While Redis is unreachable each instance keeps
   * to its own part (1/FLEET_SIZE) of every shared limit, in memory, so the
   * fleet as a whole still stays within it.
   */
  readonly fleetSize: number
}>()("partner-api/platform/SharedStoreConfig") {
  static readonly config = Config.all({
    redisUrl: Config.option(Config.Redacted("REDIS_URL")),
    keyPrefix: Config.String("REDIS_KEY_PREFIX").pipe(Config.withDefault("pag:")),
    fleetSize: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)),
      "FLEET_SIZE"
    ).pipe(Config.withDefault(1))
  })

  static readonly layer = Layer.effect(SharedStoreConfig, Effect.map(SharedStoreConfig.config, SharedStoreConfig.of))
}
