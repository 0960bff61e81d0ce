import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { StatusData } from "../api/Account.ts"
import { PartnerApi } from "../api/Api.ts"
import { envelopeWriter } from "../api/Envelope.ts"
import { CurrentPartner } from "../api/Security.ts"
import type { PartnerAccess } from "../domain/Partner.ts"
import { StatusReport } from "./StatusReport.ts"

export const AccountHandlers = HttpApiBuilder.group(
  PartnerApi,
  "account",
  Effect.fn(function*(handlers) {
    const reports = yield* StatusReport
    // The answer depends on the partner alone: written once per partner this instance keeps in memory.
    const status = envelopeWriter(StatusData, (partner: PartnerAccess) => {
      // The upstreams the token reaches: a test token's are the sandboxes.
      const report = reports[partner.environment]
      return Effect.succeed({
        partner,
        aggregator_configured: report.aggregatorConfigured,
        sports_gateway: { configured: report.sportsProvider.configured, provider: report.sportsProvider.name }
      })
    })
    return handlers.handle("status", () => Effect.flatMap(Effect.service(CurrentPartner), (partner) => status(partner, partner)))
  })
)
