import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiMiddleware, HttpApiTest } from "effect/http-api"
import { PartnerApi } from "../../src/api/Api.ts"
import { PartnerAuth } from "../../src/api/Security.ts"
import { ApiHandlersLive } from "../../src/server.ts"
import { givenPartner, type TestSettings, TestServices } from "../support/TestApp.ts"
import { live } from "../support/live.ts"

/** The typed client's side of PartnerAuth: send this token as a bearer. */
const asPartner = (token: string) =>
  HttpApiMiddleware.layerClient(PartnerAuth, ({ next, request }) => next(HttpClientRequest.bearerToken(request, token)))

const statusClient = (token: string) =>
  HttpApiTest.groups(PartnerApi, ["account"]).pipe(Effect.provide(asPartner(token)))

/** In memory: the handlers and middleware of the real API, no socket. */
const InMemoryApi = (settings: TestSettings = {}) =>
  ApiHandlersLive.pipe(Layer.provideMerge(TestServices(settings)), Layer.provideMerge(HttpServer.layerServices))

const playfiver = (agentToken: Option.Option<string>, secretKey: Option.Option<string>) =>
  InMemoryApi({
    casino: {
      gateway: "playfiver",
      playfiver: {
        baseUrl: "http://127.0.0.1:9",
        agentToken: Option.map(agentToken, Redacted.make),
        secretKey: Option.map(secretKey, Redacted.make)
      }
    }
  })

layer(playfiver(Option.none(), Option.some("secret")), live)("GET /status with PlayFiver and no agent token", (it) => {
  it.effect("reports the aggregator as not configured", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const response = yield* (yield* statusClient(token)).account.status()
      assert.isFalse(response.data.aggregator_configured)
    }))
})

layer(playfiver(Option.some("agent"), Option.some("secret")), live)("GET /status with PlayFiver credentials", (it) => {
  it.effect("reports the aggregator as configured", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const response = yield* (yield* statusClient(token)).account.status()
      assert.isTrue(response.data.aggregator_configured)
    }))
})
