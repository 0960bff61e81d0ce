import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { apiStarter, asTestPartner, certificationAnswer, foundRun, startRefusals } from "../../api/Certification.ts"
import { respond } from "../../api/Respond.ts"
import { Certifications } from "./Certifications.ts"

/** The certification group: the calling partner's own runs, with its test token only. */
export const CertificationHandlers = HttpApiBuilder.group(
  PartnerApi,
  "certifications",
  Effect.fn(function*(handlers) {
    const certifications = yield* Certifications
    return handlers
      .handle("start", ({ payload }) =>
        respond(
          (partner) =>
            asTestPartner(partner, certifications.start(partner.id, payload.external_player_id, apiStarter(partner))),
          certificationAnswer
        ).pipe(Effect.catchTags(startRefusals)))
      .handle("show", ({ params }) =>
        respond(
          (partner) =>
            asTestPartner(partner, Effect.flatMap(certifications.find(params.certification_id, partner.id), foundRun)),
          certificationAnswer
        ))
  })
)
