import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { statusAnswer, StatusData } from "../api/Account.ts"
import { PartnerApi } from "../api/Api.ts"
import { servedApi } from "../platform/QueryOnce.ts"
import { envelopeWriter } from "../api/Envelope.ts"
import { respondWritten } from "../api/Respond.ts"
import type { PartnerAccess } from "../domain/Partner.ts"
import { StatusReport } from "./StatusReport.ts"

export const AccountHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "account",
  Effect.fn(function*(handlers) {
    // The answer depends on the partner alone (and the upstreams its token reaches, PartnerUpstreams): written once
    // per partner this instance keeps in memory.
    const status = envelopeWriter(
      StatusData,
      (partner: PartnerAccess) => StatusReport.use((report) => statusAnswer(partner, report))
    )
    return handlers.handle("status", () => respondWritten(Effect.succeed, status))
  })
)
