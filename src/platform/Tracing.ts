import { Effect, Layer, Option, Redacted, References } from "effect"
import { FetchHttpClient, Headers } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import { ObservabilityConfig } from "./ObservabilityConfig.ts"

/**
 * Traces (every `Effect.fn` span, each request's span) sent with effect's
 * OTLP exporter (JSON over HTTP) to OTEL_EXPORTER_OTLP_ENDPOINT
 * (`<endpoint>/v1/traces`, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), named
 * OTEL_SERVICE_NAME, with the headers OTEL_EXPORTER_OTLP_TRACES_HEADERS or
 * OTEL_EXPORTER_OTLP_HEADERS name (a collector's key). The endpoint alone
 * turns it on (effect's own `layerFromConfig` also wants
 * OTEL_TRACES_EXPORTER=otlp). Pending spans are flushed at shutdown.
 *
 * Without one, tracing is off (effect's TracerEnabled): no request span, and every `Effect.fn` or `withSpan`
 * makes a no-op span instead of a timed one with its attributes, which nobody would read.
 */
export const TracingLive = Layer.unwrap(
  Effect.map(Effect.service(ObservabilityConfig), (config) =>
    Option.match(config.tracesEndpoint, {
      onNone: () => Layer.succeed(References.TracerEnabled, false),
      onSome: (url) =>
        OtlpTracer.layer({
          url,
          resource: { serviceName: config.serviceName },
          headers: Object.fromEntries(config.tracesHeaders.map(([name, value]) => [name, Redacted.value(value)]))
        }).pipe(
          Layer.provide([FetchHttpClient.layer, OtlpSerialization.layerJson]),
          // The exporter's own log lines (a collector that fails) print its request redacted: these headers too.
          Layer.provide(Layer.succeed(Headers.CurrentRedactedNames, [
            ...Headers.CurrentRedactedNames.defaultValue(),
            ...config.tracesHeaders.map(([name]) => name)
          ]))
        )
    }))
)
