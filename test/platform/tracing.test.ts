import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Tracer } from "effect"
import { ObservabilityConfig } from "../../src/platform/ObservabilityConfig.ts"
import { TracingLive } from "../../src/platform/Tracing.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"

/** The tracer spans go to under the tracing layer the environment `env` configures. */
const tracerUnder = (env: Record<string, string>) =>
  Effect.scoped(
    Effect.withFiber((fiber) => Effect.succeed(fiber.getRef(Tracer.Tracer))).pipe(
      Effect.provide(TracingLive.pipe(
        Layer.provide(ObservabilityConfig.layer),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
      ))
    )
  )

/** A named operation run under the tracing layer the environment `env` configures; the layer is closed after it. */
const tracedUnder = (env: Record<string, string>) =>
  Effect.scoped(
    Effect.withSpan(Effect.void, "Test.tracedOperation").pipe(
      Effect.provide(TracingLive.pipe(
        Layer.provide(ObservabilityConfig.layer),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
      ))
    )
  )

const collector = FakeUpstream.layer(() => ({ kind: "json", body: {} }))

layer(collector, live)("traces over OTLP", (it) => {
  it.effect("with OTEL_EXPORTER_OTLP_ENDPOINT, spans reach <endpoint>/v1/traces under OTEL_SERVICE_NAME", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      yield* tracedUnder({ OTEL_EXPORTER_OTLP_ENDPOINT: fake.url, OTEL_SERVICE_NAME: "partner-api-trace-test" })
      const exports = fake.calls.filter((call) => call.method === "POST" && call.path === "/v1/traces")
      assert.isNotEmpty(exports)
      const resourceSpans = exports.flatMap((call) => call.body.resourceSpans)
      const serviceNames = resourceSpans.flatMap((rs: any) =>
        rs.resource.attributes.filter((a: any) => a.key === "service.name").map((a: any) => a.value.stringValue))
      assert.include(serviceNames, "partner-api-trace-test")
      const spanNames = resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => s.name)))
      assert.include(spanNames, "Test.tracedOperation")
    }))

  it.effect("without it, no exporter is set up: spans stay with effect's own tracer and nothing is sent", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      assert.strictEqual(yield* tracerUnder({}), Tracer.nativeTracer)
      assert.notStrictEqual(yield* tracerUnder({ OTEL_EXPORTER_OTLP_ENDPOINT: fake.url }), Tracer.nativeTracer)
      fake.reset()
      yield* tracedUnder({})
      assert.deepStrictEqual(fake.calls, [])
    }))
})
