import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { certificationAnswer, foundRun, runsAnswer } from "../../api/Certification.ts"
import { notFound } from "../../api/identity/Errors.ts"
import { page } from "../../api/Paging.ts"
import { PortalApi } from "../../api/portal/PortalApi.ts"
import { CertificationRepo } from "../../wallet/certification/CertificationRepo.ts"
import { partnerOfSession } from "./Common.ts"

/** The contract's "certifications" group: the session's partner's runs and reports, read from their repository. */
export const PortalCertificationsHandlers = HttpApiBuilder.group(
  PortalApi,
  "certifications",
  Effect.fn(function*(handlers) {
    const repo = yield* CertificationRepo
    return handlers
      .handle(
        "list",
        ({ query }) =>
          Effect.flatMap(partnerOfSession, (partner) => repo.listPage(partner.id, page(query))).pipe(
            Effect.flatMap(runsAnswer),
            Effect.map((answer) => ({ success: true as const, ...answer }))
          )
      )
      .handle(
        "show",
        ({ params }) =>
          Effect.flatMap(partnerOfSession, (partner) => repo.find(params.id, partner.id)).pipe(
            Effect.flatMap(foundRun),
            Effect.mapError(notFound),
            Effect.flatMap(certificationAnswer),
            Effect.map((answer) => ({ success: true as const, ...answer }))
          )
      )
  })
)
