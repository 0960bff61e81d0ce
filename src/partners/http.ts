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
    const report = yield* StatusReport
    return handlers.handle("status", () =>
      Effect.map(Effect.service(CurrentPartner), (partner) =>
        ok(partner, {
          partner,
          aggregator_configured: report.aggregatorConfigured,
          sports_gateway: { configured: report.sportsProvider.configured, provider: report.sportsProvider.name }
        })))
  })
)
