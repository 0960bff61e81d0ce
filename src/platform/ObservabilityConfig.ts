import { Config, Context, Effect, Layer, Option, Redacted } from "effect"

/**
 * Settings of what the service tells its operators: who may read /metrics,
 * and where traces go (the OpenTelemetry variables' names and meaning).
 */
export class ObservabilityConfig extends Context.Service<ObservabilityConfig, {
  /** Bearer token GET /metrics asks for; none: /metrics is open (keep it off the public network then). */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /**
   * Where traces are posted (OTLP/HTTP, JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else
   * OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces`; none: no traces are exported.
   */
  readonly tracesEndpoint: Option.Option<string>
  /** `service.name` of exported traces. */
  readonly serviceName: string
}>()("partner-api/platform/ObservabilityConfig") {
  static readonly config = Config.all({
    metricsToken: Config.option(Config.Redacted("METRICS_TOKEN")).pipe(
      // An empty METRICS_TOKEN= is no token, not a token nobody can send.
      Config.map(Option.filter((token) => Redacted.value(token).trim() !== ""))
    ),
    tracesEndpoint: Config.all([
      Config.option(Config.URL("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
      Config.option(Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT"))
    ]).pipe(
      Config.map(([traces, base]) =>
        Option.orElse(
          Option.map(traces, (url) => url.toString()),
          () => Option.map(base, (url) => `${url.toString().replace(/\/$/, "")}/v1/traces`)
        )
      )
    ),
    serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("partner-aggregator-api"))
  })

  static readonly layer = Layer.effect(ObservabilityConfig, Effect.map(ObservabilityConfig.config, ObservabilityConfig.of))
}
