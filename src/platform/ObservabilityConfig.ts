import { Config, Context, Effect, Layer, Option, Redacted } from "effect"

/**
 * Settings of what the service tells its operators: who may read /metrics,
 * and the name traces carry. (Where traces go, OTEL_EXPORTER_OTLP_ENDPOINT and
 * its siblings, is read by effect's OTLP exporter itself; see Tracing.ts.)
 */
export class ObservabilityConfig extends Context.Service<ObservabilityConfig, {
  /** Bearer token GET /metrics asks for; none: /metrics is open (keep it off the public network then). */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** `service.name` of exported traces. */
  readonly serviceName: string
}>()("partner-api/platform/ObservabilityConfig") {
  static readonly config = Config.all({
    metricsToken: Config.option(Config.Redacted("METRICS_TOKEN")).pipe(
      // An empty METRICS_TOKEN= is no token, not a token nobody can send.
      Config.map(Option.filter((token) => Redacted.value(token).trim() !== ""))
    ),
    serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("partner-aggregator-api"))
  })

  static readonly layer = Layer.effect(ObservabilityConfig, Effect.map(ObservabilityConfig.config, ObservabilityConfig.of))
}
