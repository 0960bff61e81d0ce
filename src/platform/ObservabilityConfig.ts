import { Config, Context, Duration, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"

/** An HTTP header name (RFC 9110's token). */
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * OTEL_EXPORTER_OTLP_HEADERS' format: `name=value` pairs separated by commas, values percent-decoded,
 * blanks around each part ignored. What is wrong is said without the value, which is a secret.
 */
const parseOtlpHeaders = (
  variable: string,
  text: string
): Effect.Effect<ReadonlyArray<readonly [string, Redacted.Redacted]>, Config.ConfigError> => {
  const refuse = (why: string) =>
    Effect.fail(
      new Config.ConfigError(
        new Schema.SchemaError(
          new SchemaIssue.InvalidValue({ message: `${variable} must be name=value pairs separated by commas: ${why}` })
        )
      )
    )
  const headers: Array<readonly [string, Redacted.Redacted]> = []
  const entries = text.split(",").map((entry) => entry.trim())
  for (const [index, entry] of entries.entries()) {
    if (entry === "") continue
    const equals = entry.indexOf("=")
    const name = equals === -1 ? "" : entry.slice(0, equals).trim()
    if (!headerName.test(name)) return refuse(`entry ${index + 1} has no header name before its "="`)
    let value: string
    try {
      value = decodeURIComponent(entry.slice(equals + 1).trim())
    } catch {
      return refuse(`the value of ${name} is not valid percent-encoding`)
    }
    if (/[\r\n\0]/.test(value)) return refuse(`the value of ${name} holds a line break or NUL`)
    headers.push([name.toLowerCase(), Redacted.make(value, { label: name.toLowerCase() })])
  }
  return Effect.succeed(headers)
}

const otlpHeaders = (variable: string) =>
  Config.option(Config.Redacted(variable)).pipe(
    Config.mapEffect(Option.match({
      onNone: () => Effect.succeedNone,
      onSome: (text) => Effect.map(parseOtlpHeaders(variable, Redacted.value(text)), Option.some)
    }))
  )

/**
 * Settings of what the service tells its operators: who may read /metrics,
 * and where traces go (the OpenTelemetry variables' names and meaning).
 */
export class ObservabilityConfig extends Context.Service<ObservabilityConfig, {
  /** Bearer token GET /metrics asks for. */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** METRICS_PUBLIC=true: without a token, /metrics is served to anyone (otherwise it is refused). */
  readonly metricsPublic: boolean
  /** How long the gauges read from the database serve scrapes before they are read again (not a setting). */
  readonly metricsGaugeMaxAge: Duration.Duration
  /**
   * Where traces are posted (OTLP/HTTP, JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else
   * OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces`; none: no traces are exported.
   */
  readonly tracesEndpoint: Option.Option<string>
  /**
   * Headers every trace export carries (a collector's API key): OTEL_EXPORTER_OTLP_TRACES_HEADERS,
   * else OTEL_EXPORTER_OTLP_HEADERS. Values are secrets.
   */
  readonly tracesHeaders: ReadonlyArray<readonly [name: string, value: Redacted.Redacted]>
  /** `service.name` of exported traces. */
  readonly serviceName: string
}>()("partner-api/platform/ObservabilityConfig") {
  static readonly config = Config.all({
    metricsToken: Config.option(Config.Redacted("METRICS_TOKEN")).pipe(
      // An empty METRICS_TOKEN= is no token, not a token nobody can send.
      Config.map(Option.filter((token) => Redacted.value(token).trim() !== ""))
    ),
    metricsPublic: Config.Boolean("METRICS_PUBLIC").pipe(Config.withDefault(false)),
    metricsGaugeMaxAge: Config.succeed(Duration.seconds(5)),
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
    tracesHeaders: Config.all([
      otlpHeaders("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
      otlpHeaders("OTEL_EXPORTER_OTLP_HEADERS")
    ]).pipe(
      // The signal's own variable, when set, is used instead of the general one (not merged with it).
      Config.map(([traces, general]) => Option.getOrElse(Option.orElse(traces, () => general), () => []))
    ),
    serviceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("partner-aggregator-api"))
  })

  static readonly layer = Layer.effect(
    ObservabilityConfig,
    Effect.map(ObservabilityConfig.config, ObservabilityConfig.of)
  )
}
