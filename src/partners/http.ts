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
    // The answer depends on the partner alone (and the upstreams its token reaches): written once per partner this
    // instance keeps in memory.
    const status = envelopeWriter(StatusData, (partner: PartnerAccess) =>
      Effect.map(Effect.service(StatusReport), (report) => ({
        partner,
        aggregator_configured: report.aggregatorConfigured,
        sports_gateway: { configured: report.sportsProvider.configured, provider: report.sportsProvider.name }
      })))
    return handlers.handle("status", () => Effect.flatMap(Effect.service(CurrentPartner), (partner) => status(partner, partner)))
  })
)
