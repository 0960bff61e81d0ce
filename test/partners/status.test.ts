import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiMiddleware, HttpApiTest } from "effect/http-api"
import { PartnerApi } from "../../src/api/Api.ts"
import { Unauthorized } from "../../src/api/Errors.ts"
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

layer(InMemoryApi(), live)(
  "GET /status",
  (it) => {
    it.effect("answers the envelope with the partner and the configured gateways", () =>
      Effect.gen(function*() {
        const { partner, token } = yield* givenPartner({ name: "Acme Bets", slug: "acme", commissionPercent: 12.5 })
        const client = yield* statusClient(token)
        const response = yield* client.account.status()
        assert.deepStrictEqual(response, {
          success: true,
          partner: { id: partner.id, name: "Acme Bets", slug: "acme", status: "active" },
          data: {
            partner: { id: partner.id, name: "Acme Bets", slug: "acme", status: "active", commission_percent: 12.5 },
            aggregator_configured: true, // the sandbox aggregator needs nothing
            sports_gateway: { configured: true, provider: "sandbox" }
          }
        })
      }))

    it.effect("refuses an unknown token with the invalid-partner message", () =>
      Effect.gen(function*() {
        const client = yield* statusClient("pak_unknown")
        const error = yield* Effect.flip(client.account.status())
        assert.instanceOf(error, Unauthorized)
        assert.strictEqual((error as Unauthorized).message, "Parceiro invalido ou inativo.")
      }))
  }
)

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
