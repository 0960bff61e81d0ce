/** The account group's contract rules, in memory (HttpApiTest over the memory repositories). */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Unauthorized } from "../../src/api/Errors.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { memoryClient, MemoryPartnerApi } from "../support/MemoryPartnerApi.ts"
import { givenPartner } from "../support/TestApp.ts"

layer(MemoryPartnerApi())("GET /status, in memory", (it) => {
  it.effect("answers the envelope with the partner and the configured gateways", () =>
    Effect.gen(function*() {
      const { partner, token } = yield* givenPartner({ name: "Acme Bets", slug: "acme", commissionPercent: 12.5 })
      const response = yield* (yield* memoryClient(token)).account.status()
      assert.deepStrictEqual(response, {
        success: true,
        partner: { id: partner.id, name: "Acme Bets", slug: "acme", status: "active" },
        data: {
          partner: { id: partner.id, name: "Acme Bets", slug: "acme", status: "active", commission_percent: 12.5 },
          aggregator_configured: true,
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
