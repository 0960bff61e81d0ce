import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { ok } from "../api/Envelope.ts"
import { CurrentPartner } from "../api/Security.ts"
import { StatusReport } from "./StatusReport.ts"

export const AccountHandlers = HttpApiBuilder.group(
  PartnerApi,
  "account",
  Effect.fn(function*(handlers) {
    const reports = yield* StatusReport
    return handlers.handle("status", () =>
      Effect.map(Effect.service(CurrentPartner), (partner) => {
        // The upstreams the token reaches: a test token's are the sandboxes.
        const report = reports[partner.environment]
        return ok(partner, {
          partner,
          aggregator_configured: report.aggregatorConfigured,
          sports_gateway: { configured: report.sportsProvider.configured, provider: report.sportsProvider.name }
        })
      }))
  })
)
