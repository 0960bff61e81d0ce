import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { ok } from "../api/Envelope.ts"
import { CurrentPartner } from "../api/Security.ts"
import { CasinoGateway } from "../casino/CasinoGateway.ts"
import { SportsProvider } from "../sports/SportsProvider.ts"

export const AccountHandlers = HttpApiBuilder.group(
  PartnerApi,
  "account",
  Effect.fn(function*(handlers) {
    const casino = yield* CasinoGateway
    const sports = yield* SportsProvider
    return handlers.handle("status", () =>
      Effect.map(Effect.service(CurrentPartner), (partner) =>
        ok(partner, {
          partner: {
            id: partner.id,
            name: partner.name,
            slug: partner.slug,
            status: partner.status,
            commission_percent: partner.commission_percent
          },
          aggregator_configured: casino.configured,
          sports_gateway: { configured: sports.configured, provider: sports.name }
        })))
  })
)
