import { ByteSize, Config, Context, Duration, Effect, Layer, Schema, SchemaIssue } from "effect"

const positive = (name: string) => (duration: Duration.Duration) =>
  Duration.isGreaterThan(duration, Duration.zero) && Duration.isFinite(duration)
    ? Effect.succeed(duration)
    : Effect.fail(
      new Config.ConfigError(
        new Schema.SchemaError(
          new SchemaIssue.InvalidValue({ message: `${name} must be a finite duration above zero` })
        )
      )
    )

const duration = (name: string, fallback: Duration.Duration) =>
  Config.Duration(name).pipe(Config.withDefault(fallback), Config.mapEffect(positive(name)))

/** Settings of the live sports change stream (GET /sports/stream), from the environment. */
export class StreamConfig extends Context.Service<StreamConfig, {
  /** How long changes are kept to resume from; a client further behind is reset. */
  readonly retention: Duration.Duration
  /** A market no answer has carried for this long is sent suspended (stale). */
  readonly staleAfter: Duration.Duration
  /** A comment on every quiet stream this often, so proxies keep it open. */
  readonly heartbeatInterval: Duration.Duration
  /** Streams one partner may hold open at once in each environment, across the fleet. */
  readonly maxConnectionsPerPartner: number
  /** What a stream may have waiting for its client, in bytes; past it the client is too slow: reset and closed. */
  readonly clientBufferBytes: number
  /**
   * How long after a kick-off the provider is asked for an event's closing line, where the log held no pre-match
   * odds of it: the provider's last pre-match prices settled, and asks kept off the refresh that saw the kick-off.
   */
  readonly closingAskAfter: Duration.Duration
}>()("partner-api/sports/stream/StreamConfig") {
  static readonly config = Config.all({
    retention: duration("STREAM_RETENTION", Duration.hours(1)),
    staleAfter: duration("STREAM_STALE_AFTER", Duration.seconds(90)),
    heartbeatInterval: duration("STREAM_HEARTBEAT_INTERVAL", Duration.seconds(15)),
    maxConnectionsPerPartner: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1_000_000 })),
      "STREAM_MAX_CONNECTIONS_PER_PARTNER"
    ).pipe(Config.withDefault(20)),
    clientBufferBytes: Config.ByteSize("STREAM_CLIENT_BUFFER").pipe(
      Config.withDefault(ByteSize.mebibytes(1)),
      Config.map(ByteSize.toNumberUnsafe)
    ),
    closingAskAfter: duration("CLOSING_LINES_ASK_AFTER", Duration.minutes(2))
  })

  static readonly layer = Layer.effect(StreamConfig, Effect.map(StreamConfig.config, StreamConfig.of))
}
