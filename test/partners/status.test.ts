/** GET /status: the account group's contract rules, in memory (HttpApiTest over the memory repositories). */
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { Unauthorized } from "../../src/api/Errors.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { memoryClient, MemoryPartnerApi } from "../support/MemoryPartnerApi.ts"
import { givenPartner } from "../support/TestApp.ts"

layer(MemoryPartnerApi())("GET /status", (it) => {
  it.effect("answers the envelope with the partner and the configured gateways", () =>
    Effect.gen(function*() {
      const { partner, token } = yield* givenPartner({ name: "Acme Bets", slug: "acme", commissionPercent: 12.5 })
      const response = yield* (yield* memoryClient(token)).account.status()
      assert.deepStrictEqual(response, {
        success: true,
        partner: { id: partner.id, name: "Acme Bets", slug: "acme", status: "active", environment: "live" },
        data: {
          partner: {
            id: partner.id,
            name: "Acme Bets",
            slug: "acme",
            status: "active",
            commission_percent: 12.5,
            environment: "live"
          },
          aggregator_configured: true,
          aggregators: [{
            name: "sandbox",
            configured: true,
            last_catalog_sync: null,
            wallet_calls: 0,
            last_wallet_call: null
          }],
          sports_gateway: { configured: true, provider: "sandbox" }
        }
      })
    }))

  it.effect("refuses an unknown token, and an inactive partner's, with the invalid-partner message", () =>
    Effect.gen(function*() {
      const unknown = yield* Effect.flip((yield* memoryClient("pak_unknown")).account.status())
      assert.instanceOf(unknown, Unauthorized)
      assert.strictEqual((unknown as Unauthorized).message, "Parceiro invalido ou inativo.")
      const { token } = yield* givenPartner({ slug: "paused" })
      yield* (yield* Partners).setStatus("paused", "inactive")
      const inactive = yield* Effect.flip((yield* memoryClient(token)).account.status())
      assert.instanceOf(inactive, Unauthorized)
    }))
})

const playfiver = (agentToken: Option.Option<string>, secretKey: Option.Option<string>) =>
  MemoryPartnerApi({
    casino: {
      gateways: ["playfiver"],
      playfiver: {
        baseUrl: "http://127.0.0.1:9",
        agentToken: Option.map(agentToken, Redacted.make),
        secretKey: Option.map(secretKey, Redacted.make),
        currency: "BRL"
      }
    }
  })

layer(playfiver(Option.none(), Option.some("secret")))("GET /status with PlayFiver and no agent token", (it) => {
  it.effect("reports the aggregator as not configured", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const response = yield* (yield* memoryClient(token)).account.status()
      assert.isFalse(response.data.aggregator_configured)
    }))
})

layer(playfiver(Option.some("agent"), Option.some("secret")))("GET /status with PlayFiver credentials", (it) => {
  it.effect("reports the aggregator as configured", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const response = yield* (yield* memoryClient(token)).account.status()
      assert.isTrue(response.data.aggregator_configured)
    }))
})
