import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option, Redacted, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { CasinoGateway } from "../../src/casino/CasinoGateway.ts"
import * as PlayFiverGateway from "../../src/integrations/playfiver/PlayFiverGateway.ts"
import { ObservabilityConfig } from "../../src/platform/ObservabilityConfig.ts"
import { SharedStoreConfig } from "../../src/platform/SharedStore.ts"
import { TracingLive } from "../../src/platform/Tracing.ts"
import { SharedStoresLive } from "../../src/server.ts"
import * as BetsApiProvider from "../../src/integrations/betsapi/BetsApiProvider.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { SportsProvider } from "../../src/sports/SportsProvider.ts"
import { betsApiToken, healthyBetsApi } from "../support/BetsApiScripts.ts"
import { FakeUpstream, type RecordedCall } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { makeLogCapture } from "../support/LogCapture.ts"
import { healthyAggregator } from "../support/PlayFiverScripts.ts"
import { testCasinoConfig, testSharedStoreConfig, testSportsConfig } from "../support/TestApp.ts"

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

/** `work` run under the tracing layer the environment `env` configures; the layer is closed (spans flushed) after it. */
const tracingUnder = (env: Record<string, string>) => <A, E, R>(work: Effect.Effect<A, E, R>) =>
  Effect.scoped(
    work.pipe(
      Effect.provide(TracingLive.pipe(
        Layer.provide(ObservabilityConfig.layer),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
      ))
    )
  )

/** A named operation run under the tracing layer the environment `env` configures; the layer is closed after it. */
const tracedUnder = (env: Record<string, string>) =>
  tracingUnder(env)(Effect.withSpan(Effect.void, "Test.tracedOperation"))

const agentToken = "playfiver-agent-token-in-trace-test"
const secretKey = "playfiver-secret-key-in-trace-test"

/** One fake for everything: the collector at /v1/traces, PlayFiver under /api/v2, BetsAPI at its paths. */
const collector = FakeUpstream.layer((call) =>
  call.path === "/v1/traces"
    ? { kind: "json", body: {} }
    : call.path.startsWith("/api/v2/")
    ? healthyAggregator(call)
    : healthyBetsApi(call)
)

const exportsOf = (fake: FakeUpstream["Service"]) =>
  fake.calls.filter((call) => call.method === "POST" && call.path === "/v1/traces")

/** Every span exported, with its attributes as a name-to-value record. */
const exportedSpans = (exports: ReadonlyArray<RecordedCall>) =>
  exports.flatMap((call) => call.body.resourceSpans).flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans))
    .map((span: any) => ({
      name: span.name as string,
      attributes: Object.fromEntries(
        (span.attributes as Array<any>).map((
          a
        ) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue])
      ) as Record<string, unknown>
    }))

/** The real PlayFiver and BetsAPI adapters, with their secrets, both upstreams being the fake. */
const upstreamAdapters = Layer.unwrap(Effect.map(Effect.service(FakeUpstream), (fake) =>
  Layer.mergeAll(
    PlayFiverGateway.layer.pipe(
      Layer.provide(Layer.succeed(
        CasinoConfig,
        testCasinoConfig({
          gateways: ["playfiver"],
          playfiver: {
            baseUrl: fake.url,
            agentToken: Option.some(Redacted.make(agentToken)),
            secretKey: Option.some(Redacted.make(secretKey)),
            currency: "BRL"
          }
        })
      ))
    ),
    BetsApiProvider.layer.pipe(
      Layer.provide(SharedStoresLive.pipe(Layer.provide(Layer.succeed(SharedStoreConfig, testSharedStoreConfig())))),
      Layer.provide(Layer.succeed(
        SportsConfig,
        testSportsConfig({
          provider: "betsapi",
          betsapi: { baseUrl: fake.url, token: Option.some(Redacted.make(betsApiToken)) }
        })
      ))
    )
  ).pipe(Layer.provide(FetchHttpClient.layer))))

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
        rs.resource.attributes.filter((a: any) => a.key === "service.name").map((a: any) => a.value.stringValue)
      )
      assert.include(serviceNames, "partner-api-trace-test")
      const spanNames = resourceSpans.flatMap((rs: any) =>
        rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => s.name))
      )
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

  it.effect("upstream calls are traced without their secrets: PlayFiver's agent token and secret key, BetsAPI's token", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      yield* tracingUnder({ OTEL_EXPORTER_OTLP_ENDPOINT: fake.url })(
        Effect.gen(function*() {
          const casino = yield* CasinoGateway
          assert.isNotEmpty(yield* casino.providers)
          const sports = yield* SportsProvider
          assert.isNotEmpty((yield* sports.leagues({ sportId: 1, page: 1 })).value.results)
        }).pipe(Effect.provide(upstreamAdapters))
      )

      // The upstreams got the secrets in the query, as their protocols say.
      const providersCall = fake.calls.find((call) => call.path === "/api/v2/providers")
      assert.deepInclude(providersCall?.query, { agentToken, secretKey })
      assert.strictEqual(fake.calls.find((call) => call.path === "/v1/league")?.query.token, betsApiToken)

      const exports = exportsOf(fake)
      const spans = exportedSpans(exports)
      const clientSpanOf = (path: string) =>
        spans.find((span) => String(span.attributes["url.full"] ?? "").includes(path))
      // The client spans are there, with their URLs, and the parameters' names but not their values.
      const playFiver = clientSpanOf("/api/v2/providers")
      const betsApi = clientSpanOf("/v1/league")
      assert.isDefined(playFiver, JSON.stringify(spans.map((span) => span.name)))
      assert.isDefined(betsApi, JSON.stringify(spans.map((span) => span.name)))
      assert.include(String(playFiver!.attributes["url.full"]), "agentToken=REDACTED")
      assert.include(String(betsApi!.attributes["url.full"]), "token=REDACTED")
      for (const secret of [agentToken, secretKey, betsApiToken]) {
        for (const call of exports) assert.notInclude(call.raw, secret, "an exported span holds a secret")
      }
    }))

  it.effect("OTEL_EXPORTER_OTLP_HEADERS' headers reach the collector; OTEL_EXPORTER_OTLP_TRACES_HEADERS, when set, is used instead", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      fake.reset()
      const logs = makeLogCapture()
      yield* tracedUnder({
        OTEL_EXPORTER_OTLP_ENDPOINT: fake.url,
        OTEL_EXPORTER_OTLP_HEADERS: " x-collector-key = k%3Dey%2C1 ,Team=blue,"
      }).pipe(Effect.provide(logs.layer))
      const general = exportsOf(fake)
      assert.isNotEmpty(general)
      for (const call of general) {
        // Percent-decoded, blanks around the parts dropped.
        assert.strictEqual(call.headers["x-collector-key"], "k=ey,1")
        assert.strictEqual(call.headers.team, "blue")
      }

      fake.reset()
      yield* tracedUnder({
        OTEL_EXPORTER_OTLP_ENDPOINT: fake.url,
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=general,team=blue",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-collector-key=for-traces"
      }).pipe(Effect.provide(logs.layer))
      for (const call of exportsOf(fake)) {
        assert.strictEqual(call.headers["x-collector-key"], "for-traces")
        assert.isUndefined(call.headers.team)
      }
      // The values are secrets: the configuration shows them redacted, and no log line holds them.
      const config = yield* ObservabilityConfig.config.parse(
        ConfigProvider.fromUnknown({ OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k%3Dey%2C1" })
      )
      assert.notInclude(JSON.stringify(config.tracesHeaders), "k=ey")
      assert.notInclude(String(config.tracesHeaders), "k=ey")
      assert.notInclude(JSON.stringify(logs.entries), "k=ey")
    }))

  it.effect("a malformed OTEL_EXPORTER_OTLP_HEADERS stops the start, naming the variable and not the value", () =>
    Effect.gen(function*() {
      for (
        const [text, why] of [["no-equals-sign-secret", /entry 1/], ["=secret-without-name", /entry 1/], [
          "key=%E0%A4%secret",
          /key is not valid percent-encoding/
        ], ["key=line%0Abreak-secret", /line break/]] as const
      ) {
        const error = yield* Effect.flip(
          ObservabilityConfig.config.parse(ConfigProvider.fromUnknown({ OTEL_EXPORTER_OTLP_HEADERS: text }))
        )
        assert.match(error.message, /OTEL_EXPORTER_OTLP_HEADERS/)
        assert.match(error.message, why)
        assert.notInclude(error.message, "secret")
      }
    }))
})
