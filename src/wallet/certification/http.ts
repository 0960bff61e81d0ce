import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { servedApi } from "../../platform/QueryOnce.ts"
import {
  apiStarter,
  asTestPartner,
  certificationAnswer,
  foundRun,
  reportAnswer,
  reportPaging,
  runsAnswer,
  startRefusals
} from "../../api/Certification.ts"
import { page } from "../../api/Paging.ts"
import { respond } from "../../api/Respond.ts"
import { pageOf, type PageRequest } from "../../domain/Paging.ts"
import { CertificationRepo } from "./CertificationRepo.ts"
import { Certifications } from "./Certifications.ts"

/**
 * The certification group: the calling partner's own runs, with its test token only. Runs start through
 * Certifications; reports and lists are read from the repository, which pages them.
 */
export const CertificationHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "certifications",
  Effect.fn(function*(handlers) {
    const certifications = yield* Certifications
    const repo = yield* CertificationRepo
    /** The report: whole, or with a page of its cases when one is asked for. */
    const reportOf = (id: string, partnerId: number, paging: PageRequest | undefined) =>
      paging === undefined
        ? Effect.map(repo.find(id, partnerId), Option.map((run) => ({ run })))
        : Effect.map(
          repo.findPage(id, partnerId, paging),
          Option.map(({ casesFinished, run }) => ({ run, page: pageOf(paging, run.cases, casesFinished) }))
        )
    return handlers
      .handle("start", ({ payload }) =>
        respond(
          (partner) =>
            asTestPartner(partner, certifications.start(partner.id, payload.external_player_id, apiStarter(partner))),
          certificationAnswer
        ).pipe(Effect.catchTags(startRefusals)))
      .handle(
        "list",
        ({ query }) => respond((partner) => asTestPartner(partner, repo.listPage(partner.id, page(query))), runsAnswer)
      )
      .handle("show", ({ params, query }) =>
        respond(
          (partner) =>
            asTestPartner(
              partner,
              Effect.flatMap(reportOf(params.certification_id, partner.id, reportPaging(query)), foundRun)
            ),
          reportAnswer
        ))
  })
)
