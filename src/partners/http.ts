import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { statusAnswer, StatusData } from "../api/Account.ts"
import { PartnerApi } from "../api/Api.ts"
import { servedApi } from "../platform/QueryOnce.ts"
import { envelopeWriter } from "../api/Envelope.ts"
import { respondWritten } from "../api/Respond.ts"
import type { PartnerAccess } from "../domain/Partner.ts"
import { StatusReport } from "./StatusReport.ts"

/**
 * `/status`'s answer, by its HttpApi handler and by the edge's direct answer alike (src/routes.ts). It depends on
 * the partner alone (and the upstreams its token reaches, PartnerUpstreams): written once per partner this instance
 * keeps in memory.
 */
export const answeredStatus = respondWritten(
  Effect.succeed,
  envelopeWriter(StatusData, (partner: PartnerAccess) => StatusReport.use((report) => statusAnswer(partner, report)))
)

export const AccountHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "account",
  (handlers) => Effect.succeed(handlers.handle("status", () => answeredStatus))
)
