/**
 * The contract as documents and a docs page: OpenAPI 3.0.3 that standard
 * tooling validates (3.1 beside it), a summary, description and realistic
 * example for every operation, integers typed as integers, and a docs page
 * whose "Try it" knows both auth schemes.
 */
import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { HttpServer } from "effect/http"
import { PartnerApi } from "../../src/api/Api.ts"
import { LaunchRequest } from "../../src/api/Casino.ts"
import { RefreshRequest } from "../../src/api/CatalogQuery.ts"
import { webhookBodies, webhookExamples } from "../../src/api/Webhooks.ts"
import { serversOf } from "../../src/platform/ApiDocs.ts"
import { live } from "../support/live.ts"
import { bodyAs, type RawResponse, request, TestApp, textBody } from "../support/TestApp.ts"

/**
 * Validation holds the event loop for a second or more (longer on a busy machine), during which the server's
 * kept-alive sockets pass their idle time-out unnoticed. Once it ends, the loop is let through a timers and a poll
 * phase, so the server's closes are sent and read, and the next request never goes out on a socket being closed
 * (which it otherwise did, ECONNRESET, once the documents carried the webhooks and took longer to validate).
 */
const loopCaughtUp = Effect.promise(() => new Promise<void>((resolve) => setTimeout(() => setImmediate(resolve), 1)))

const validate = (document: unknown) =>
  Effect.promise(() =>
    SwaggerParser.validate(structuredClone(document) as any).then(() => "valid", (error: Error) => error.message)
  ).pipe(Effect.tap(() => loopCaughtUp))

/** An OpenAPI document is free-form JSON, read here by path as the specification lays it out. */
type Json = Record<string, any>

/** A served document: a JSON object (checked), read as free-form JSON. */
const documentOf = (response: RawResponse): Json => bodyAs(Schema.Record(Schema.String, Schema.Unknown))(response)

const operationsOf = (document: Json) =>
  Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, operation]) => ({ path, method, operation: operation as Json }))
  )

const componentOf = (document: Json, schema: Json) =>
  document.components.schemas[String(schema.$ref).replace("#/components/schemas/", "")]

/** The contract's endpoints by operation id (`group.endpoint`). */
const endpoints = new Map(
  Object.values(PartnerApi.groups).flatMap((group) =>
    Object.entries(group.endpoints).map(([name, endpoint]) => [`${group.identifier}.${name}`, endpoint] as const)
  )
)

layer(TestApp(), live)("the contract as documents and a docs page", (it) => {
  it.effect("/api/partner/v1/openapi.json is OpenAPI 3.0.3 that a 3.0 validator accepts; 3.1 is beside it", () =>
    Effect.gen(function*() {
      const v30Response = yield* request("GET", "/api/partner/v1/openapi.json")
      assert.strictEqual(v30Response.status, 200)
      const v30 = documentOf(v30Response)
      assert.strictEqual(v30.openapi, "3.0.3")
      assert.strictEqual(yield* validate(v30), "valid")
      const v31 = documentOf(yield* request("GET", "/api/partner/v1/openapi-3.1.json"))
      assert.strictEqual(v31.openapi, "3.1.0")
      assert.strictEqual(yield* validate(v31), "valid")
      assert.deepStrictEqual(Object.keys(v30.paths), Object.keys(v31.paths))
      // The validator is strict enough to tell: the 3.1 document merely relabelled is refused.
      assert.notStrictEqual(yield* validate({ ...v31, openapi: "3.0.3" }), "valid")
    }))

  it.effect("every operation documents the 429 with Retry-After, and the RateLimit-* headers on every answer past auth", () =>
    Effect.gen(function*() {
      const document = documentOf(yield* request("GET", "/api/partner/v1/openapi.json"))
      const rateLimitHeaders = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]
      for (const { method, operation, path } of operationsOf(document)) {
        const where = `${method} ${path}`
        const refused = operation.responses["429"]
        assert.isDefined(refused, where)
        const body = componentOf(document, refused.content["application/json"].schema)
        assert.deepStrictEqual(body.required, ["success", "message"], where)
        assert.includeMembers(Object.keys(refused.headers), ["Retry-After", ...rateLimitHeaders], where)
        assert.strictEqual(refused.headers["Retry-After"].schema.type, "integer", where)
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          if (status === "401") assert.isUndefined(response.headers, where)
          else assert.includeMembers(Object.keys(response.headers ?? {}), rateLimitHeaders, `${where} ${status}`)
        }
      }
    }))

  it.effect("every operation has a summary, a description naming its answer's keys, and a realistic example", () =>
    Effect.gen(function*() {
      const document = documentOf(yield* request("GET", "/api/partner/v1/openapi.json"))
      const operations = operationsOf(document)
      assert.strictEqual(operations.length, endpoints.size)
      for (const { method, operation, path } of operations) {
        const where = `${method} ${path}`
        assert.isString(operation.summary, where)
        // The change stream answers events, not an envelope: each is documented with the schema of its data.
        const events = operation.responses["200"].content["text/event-stream"]?.schema
        if (events !== undefined) {
          const documented = events.anyOf.map((event: Json) => componentOf(document, event))
          assert.deepStrictEqual(
            documented.map((event: Json) => event.properties.event.enum[0]),
            ["connected", "event", "score", "odds", "result", "closing", "reset"],
            where
          )
          for (const event of documented) {
            // Sent as JSON text, documented as the JSON it holds.
            const data = componentOf(document, event.properties.data)
            assert.isDefined(componentOf(document, data.allOf[0]).properties, where)
            assert.include(operation.description, `\`${event.properties.event.enum[0]}\``, where)
          }
          continue
        }
        assert.match(operation.description, /Answers, in the envelope's `data`: `data\./, where)
        const success = componentOf(document, operation.responses["200"].content["application/json"].schema)
        assert.isDefined(success.example, where)
        // The example is what the service would send: the contract's own schema reads it.
        const endpoint = endpoints.get(operation.operationId)!
        const [schema] = endpoint.success
        assert.doesNotThrow(() => Schema.decodeUnknownSync(schema as any)(success.example), where)
      }
      const describedAs = (path: string) => document.paths[`/api/partner/v1${path}`].get.description
      assert.include(describedAs("/providers"), "`data.list` (array)")
      assert.include(describedAs("/games"), "`data.games` (array), `data.meta` (object)")
      assert.include(describedAs("/sports/feed/prematch"), "`data.results` (array)")
      assert.notInclude(JSON.stringify(document), "9007199254740991")
      const launch = document.components.schemas.LaunchRequest.example
      assert.doesNotThrow(() => Schema.decodeUnknownSync(LaunchRequest)(launch))
      assert.doesNotThrow(() =>
        Schema.decodeUnknownSync(RefreshRequest)(document.components.schemas.CatalogRefreshRequest.example)
      )
    }))

  it.effect("page, per_page and sport ids are integers; both auth schemes are ones doc pages know", () =>
    Effect.gen(function*() {
      const document = documentOf(yield* request("GET", "/api/partner/v1/openapi.json"))
      const parameter = (path: string, name: string) =>
        document.paths[`/api/partner/v1${path}`].get.parameters.find((p: Json) => p.name === name).schema
      for (const path of ["/games", "/sports/feed/prematch", "/sports/catalog/teams", "/wallet/transactions"]) {
        assert.deepInclude(parameter(path, "page"), { type: "integer", minimum: 1, maximum: 1_000_000 }, path)
        assert.deepInclude(parameter(path, "per_page"), { type: "integer", minimum: 1, example: 50 }, path)
      }
      assert.deepInclude(parameter("/sports/leagues", "sport_id"), { type: "integer", minimum: 1 })
      const { bearer, partnerKey } = document.components.securitySchemes
      assert.deepInclude(bearer, { type: "http", scheme: "bearer" })
      assert.deepInclude(partnerKey, { type: "apiKey", in: "header", name: "X-Partner-Key" })
      assert.deepStrictEqual(document.paths["/api/partner/v1/status"].get.security, [{ bearer: [] }, {
        partnerKey: []
      }])
    }))

  it.effect("the docs page carries the contract with the lowercase bearer scheme and a favicon; / leads to it", () =>
    Effect.gen(function*() {
      const docs = yield* request("GET", "/docs")
      assert.strictEqual(docs.status, 200)
      assert.include(textBody(docs), `"scheme":"bearer"`)
      assert.include(textBody(docs), `"favicon":"/favicon.ico"`)
      const root = yield* request("GET", "/") // the test client follows the redirect
      assert.strictEqual(root.status, 200)
      assert.include(textBody(root), "createApiReference")
      const server = yield* HttpServer.HttpServer
      const unfollowed = yield* Effect.promise(() =>
        fetch(new URL("/", HttpServer.formatAddress(server.address)), { redirect: "manual" })
      )
      assert.deepStrictEqual([unfollowed.status, unfollowed.headers.get("location")], [302, "/docs"])
      const favicon = yield* request("GET", "/favicon.ico")
      assert.strictEqual(favicon.status, 200)
      assert.strictEqual(favicon.contentType, "image/svg+xml")
      assert.match(textBody(favicon), /^<svg /)
    }))

  it.effect("both documents name this service as their server and every callback as a webhook whose example decodes", () =>
    Effect.gen(function*() {
      const v31 = documentOf(yield* request("GET", "/api/partner/v1/openapi-3.1.json"))
      const v30 = documentOf(yield* request("GET", "/api/partner/v1/openapi.json"))
      const kinds = ["balance", "bet", "win", "refund", "rollback", "test"] as const
      for (const [document, webhooks] of [[v31, v31.webhooks], [v30, v30["x-webhooks"]]] as const) {
        // No PUBLIC_URL in the tests: "/", this service's origin wherever the document was read.
        assert.deepStrictEqual(document.servers.map((server: Json) => server.url), ["/"])
        assert.deepStrictEqual(Object.keys(webhooks).sort(), [...kinds].sort())
        for (const kind of kinds) {
          const operation = webhooks[kind].post
          assert.includeMembers(
            operation.parameters.map((parameter: Json) => parameter.name),
            ["x-partner-event-id", "x-partner-timestamp", "x-partner-signature"],
            kind
          )
          const media = operation.requestBody.content["application/json"]
          assert.isDefined(
            componentOf(document, media.schema.$ref === undefined ? media.schema.allOf[0] : media.schema)
          )
          // The example is what the service sends, and the service's own schema reads it.
          const decoded = Schema.decodeUnknownExit(webhookBodies[kind])(media.example)
          assert.strictEqual(decoded._tag, "Success", `${kind}: ${String(decoded)}`)
          assert.deepStrictEqual(media.example, webhookExamples[kind])
          assert.includeMembers(
            Object.keys(operation.responses),
            kind === "balance" || kind === "bet" ? ["200"] : ["2XX"]
          )
        }
      }
      assert.isUndefined(v30.webhooks)
      assert.deepStrictEqual(serversOf(Option.some("https://api.example.com")), [{
        url: "https://api.example.com",
        description: "This service (its PUBLIC_URL)"
      }])
    }))
})
