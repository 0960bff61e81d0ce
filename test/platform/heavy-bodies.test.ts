import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Option, Stream } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { maxBodyBytes, maxJsonDepth } from "../../src/platform/RequestBody.ts"
import { live } from "../support/live.ts"
import { bearer, errorBody, givenPartner, request, TestApp, validationErrors } from "../support/TestApp.ts"

const encoder = new TextEncoder()

/** About 1 MiB of nothing but nested arrays: the body that used to stall the service. */
const nestedMiB = encoder.encode("[".repeat(512 * 1024) + "]".repeat(512 * 1024))

/** Small enough to be read, nested too deep to be parsed. */
const nestedSmall = encoder.encode("[".repeat(maxBodyBytes / 4) + "]".repeat(maxBodyBytes / 4))

const post = (path: string, token: string, body: HttpClientRequest.HttpClientRequest["body"]) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(path).pipe(HttpClientRequest.setHeaders(bearer(token)), HttpClientRequest.setBody(body))
    )
    return { status: response.status, body: (yield* response.json) as unknown }
  }).pipe(Effect.orDie)

const bytes = (value: Uint8Array) =>
  HttpClientRequest.bodyUint8Array(HttpClientRequest.post("/"), value, "application/json").body

layer(TestApp(), live)("heavy bodies", (it) => {
  it.effect("a body over the limit is a 413 by its Content-Length; one sent without a length is cut off at the limit", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const declared = yield* post("/api/partner/v1/launch", token, bytes(nestedMiB))
      assert.deepStrictEqual(declared, {
        status: 413,
        body: { success: false, message: `The request body is larger than ${maxBodyBytes / 1024} KiB.` }
      })
      // Chunked: no Content-Length, so the limit applies while reading.
      const chunked = HttpClientRequest.bodyStream(
        HttpClientRequest.post("/"),
        Stream.make(nestedMiB.subarray(0, nestedMiB.length / 2), nestedMiB.subarray(nestedMiB.length / 2)),
        { contentType: "application/json" }
      ).body
      const streamed = yield* post("/api/partner/v1/launch", token, chunked)
      assert.strictEqual(streamed.status, 413)
      assert.strictEqual(errorBody(streamed).success, false)
    }))

  it.effect("a body within the limit but nested too deep is a 422 before it is parsed", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      for (const path of ["/api/partner/v1/launch", "/api/partner/v1/sports/catalog/refresh"]) {
        const response = yield* post(path, token, bytes(nestedSmall))
        assert.strictEqual(response.status, 422, path)
        assert.deepStrictEqual(validationErrors(response), {
          body: [`The request body nests arrays or objects deeper than ${maxJsonDepth} levels.`]
        })
      }
      const wallet = yield* post("/aggregator/wallet", token, bytes(nestedSmall))
      assert.deepStrictEqual([wallet.status, wallet.body], [400, { msg: "INVALID_REQUEST", balance: 0 }])
    }))

  it.effect("200 heavy bodies at once are all refused, and another partner is answered meanwhile", () =>
    Effect.gen(function*() {
      const heavy = yield* givenPartner({ name: "Heavy Partner" })
      const other = yield* givenPartner({ name: "Other Partner" })
      const flood = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i % 2 === 0 ? nestedMiB : nestedSmall),
        (body) => post("/api/partner/v1/launch", heavy.token, bytes(body)),
        { concurrency: "unbounded" }
      ).pipe(Effect.forkChild)
      // A bound far above an answer's time even on a loaded machine: the point is that it does not wait for the flood.
      const answered = yield* request("GET", "/api/partner/v1/status", { headers: bearer(other.token) }).pipe(
        Effect.timeoutOption("15 seconds")
      )
      assert.isTrue(Option.isSome(answered), "the other partner was answered while the flood was refused")
      assert.strictEqual(Option.getOrThrow(answered).status, 200)
      const refused = yield* Fiber.join(flood)
      assert.deepStrictEqual(
        [...new Set(refused.map((response) => response.status))].sort(),
        [413, 422]
      )
    }))
})
