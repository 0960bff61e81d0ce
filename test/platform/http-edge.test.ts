import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { RequestValidation } from "../../src/api/RequestValidation.ts"
import { DirectAnswers } from "../../src/platform/DirectAnswers.ts"
import { HttpEdgeMiddleware, MaxBodySizeLive } from "../../src/platform/HttpEdge.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { makeLogCapture } from "../support/LogCapture.ts"
import { bearer, bodyAs, errorBody, givenPartner, request, TestApp, validationErrors } from "../support/TestApp.ts"
import { live } from "../support/live.ts"

/** What these tests read of the OpenAPI document. */
const OpenApiOutline = Schema.Struct({
  openapi: Schema.String,
  info: Schema.Struct({ version: Schema.String }),
  paths: Schema.Record(Schema.String, Schema.Unknown),
  components: Schema.Struct({
    securitySchemes: Schema.Record(Schema.String, Schema.Unknown),
    schemas: Schema.Record(Schema.String, Schema.Unknown)
  })
})

const logs = makeLogCapture()

layer(TestApp().pipe(Layer.provide(logs.layer)), live)("the service's edges", (it) => {
  it.effect("an unknown route is a 404 envelope, with or without a token", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      for (const headers of [{}, bearer(token)]) {
        const response = yield* request("GET", "/api/partner/v1/no-such-thing", { headers })
        assert.strictEqual(response.status, 404)
        assert.deepStrictEqual(response.body, { success: false, message: "Route not found." })
      }
      const wrongMethod = yield* request("DELETE", "/api/partner/v1/status", { headers: bearer(token) })
      assert.strictEqual(wrongMethod.status, 404)
      assert.strictEqual(errorBody(wrongMethod).success, false)
    }))

  it.effect("/health and /ready answer without a token", () =>
    Effect.gen(function*() {
      const health = yield* request("GET", "/health")
      assert.deepStrictEqual([health.status, health.body], [200, { success: true, message: "ok" }])
      const ready = yield* request("GET", "/ready")
      assert.deepStrictEqual([ready.status, ready.body], [200, {
        success: true,
        message: "ready",
        shared_store: "memory"
      }])
    }))

  it.effect("the OpenAPI document describes the contract, version 1.0.0, under the v1 prefix", () =>
    Effect.gen(function*() {
      const response = yield* request("GET", "/api/partner/v1/openapi.json")
      assert.strictEqual(response.status, 200)
      const document = bodyAs(OpenApiOutline)(response)
      assert.match(document.openapi, /^3\./)
      assert.strictEqual(document.info.version, "1.0.0")
      const paths = Object.keys(document.paths)
      assert.include(paths, "/api/partner/v1/status")
      for (const path of paths) assert.match(path, /^\/api\/partner\/v1\//)
      assert.deepStrictEqual(Object.keys(document.components.securitySchemes).sort(), ["bearer", "partnerKey"])
      // Error bodies carry no internals.
      assert.notInclude(JSON.stringify(document.components.schemas), "_tag")
    }))

  it.effect("the docs page is self-contained: no script or font from a CDN", () =>
    Effect.gen(function*() {
      const response = yield* request("GET", "/docs")
      assert.strictEqual(response.status, 200)
      assert.include(response.contentType, "text/html")
      assert.include(response.body, "createApiReference")
      assert.notMatch(response.body, /<script[^>]+src=["']https?:/)
      assert.notInclude(response.body, "fonts.googleapis")
    }))

  it.effect("writes one access-log line per request: method, path, status, duration, partner id, no token", () =>
    Effect.gen(function*() {
      const { partner, token } = yield* givenPartner()
      yield* request("GET", "/api/partner/v1/status?probe=access-log", { headers: bearer(token) })
      yield* request("GET", "/api/partner/v1/status?probe=access-log-anonymous")
      const lines = logs.entries.filter((entry) =>
        entry.message === "request" && entry.annotations.path === "/api/partner/v1/status"
      )
      const admitted = lines.find((line) => line.annotations.partner_id === partner.id)
      assert.isDefined(admitted)
      assert.strictEqual(admitted!.annotations.method, "GET")
      assert.strictEqual(admitted!.annotations.status, 200)
      assert.isNumber(admitted!.annotations.duration_ms)
      assert.isTrue(lines.some((line) => line.annotations.status === 401 && line.annotations.partner_id === null))
      assert.notInclude(JSON.stringify(logs.entries), token)
    }))
})

// A probe API exercising the request-validation middleware and the edge in isolation.
class ProbeGroup extends HttpApiGroup.make("probe").add(
  HttpApiEndpoint.post("echo", "/echo", {
    payload: Schema.Struct({
      name: Schema.String.check(
        Schema.isMaxLength(5, { message: "The :attribute field must not be greater than 5 characters." })
      ),
      age: Schema.Int,
      vip: Schema.optionalKey(Schema.Boolean)
    }),
    success: Schema.Struct({ name: Schema.String })
  }).middleware(RequestValidation),
  HttpApiEndpoint.get("boom", "/boom", { success: Schema.String })
) {}
class ProbeApi extends HttpApi.make("probe").add(ProbeGroup).annotate(HttpApi.PayloadParseOptions, { errors: "all" }) {}

const ProbeHandlers = HttpApiBuilder.group(ProbeApi, "probe", (handlers) =>
  handlers
    .handle("echo", ({ payload }) => Effect.succeed({ name: payload.name }))
    .handle("boom", () => Effect.die(new Error("secret internal detail"))))

const ProbeApp = HttpRouter.serve(
  Layer.mergeAll(
    HttpApiBuilder.layer(ProbeApi).pipe(Layer.provide(ProbeHandlers.pipe(Layer.provideMerge(RequestValidationLive)))),
    HttpEdgeMiddleware
  ),
  { disableLogger: true, disableListenLog: true }
).pipe(
  Layer.provide(DirectAnswers.layer),
  Layer.provide(MaxBodySizeLive),
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provide(logs.layer)
)

layer(ProbeApp, live)("request validation and failures", (it) => {
  describe("422 with every failing field", () => {
    it.effect("malformed JSON", () =>
      Effect.gen(function*() {
        const response = yield* request("POST", "/echo", {
          body: "{\"name\": \"x\",",
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(response.body, {
          success: false,
          message: "The given data was invalid.",
          errors: { body: ["The request body must be valid JSON."] }
        })
      }))

    it.effect("a content type that is not JSON", () =>
      Effect.gen(function*() {
        const response = yield* request("POST", "/echo", {
          body: "name=x&age=1",
          headers: { "content-type": "application/x-www-form-urlencoded" }
        })
        assert.strictEqual(response.status, 422)
        assert.strictEqual(errorBody(response).message, "The given data was invalid.")
        assert.deepStrictEqual(Object.keys(validationErrors(response)), ["body"])
      }))

    it.effect("all field errors at once, none with internals", () =>
      Effect.gen(function*() {
        const response = yield* request("POST", "/echo", { json: { name: "too long", vip: "yes" } })
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(response.body, {
          success: false,
          message: "The given data was invalid.",
          errors: {
            name: ["The name field must not be greater than 5 characters."],
            age: ["The age field is required."],
            vip: ["The vip field must be true or false."]
          }
        })
      }))

    it.effect("a body that is not an object", () =>
      Effect.gen(function*() {
        const response = yield* request("POST", "/echo", { json: [1, 2] })
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(Object.keys(validationErrors(response)), ["body"])
      }))

    it.effect("valid input passes through", () =>
      Effect.gen(function*() {
        const response = yield* request("POST", "/echo", { json: { name: "ok", age: 3 } })
        assert.deepStrictEqual([response.status, response.body], [200, { name: "ok" }])
      }))
  })

  it.effect("an unexpected failure is a generic 500 envelope; the detail is only logged", () =>
    Effect.gen(function*() {
      const response = yield* request("GET", "/boom")
      assert.strictEqual(response.status, 500)
      assert.deepStrictEqual(response.body, { success: false, message: "Internal server error." })
      assert.isTrue(
        logs.entries.some((entry) => entry.level === "ERROR" && String(entry.cause).includes("secret internal detail"))
      )
    }))

  it.effect("a body over 1 MiB is refused with 413 in the envelope", () =>
    Effect.gen(function*() {
      const response = yield* request("POST", "/echo", { json: { name: "x".repeat(2 * 1024 * 1024), age: 1 } })
      assert.strictEqual(response.status, 413)
      assert.strictEqual(errorBody(response).success, false)
    }))
})
