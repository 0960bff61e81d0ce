import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { StorableText } from "../../domain/Text.ts"
import { CertificationEntry, CertificationRunEntry } from "../Certification.ts"
import { NotFound, ValidationFailed } from "../identity/Errors.ts"
import { PageMeta, PageQuery, PerPageQuery } from "../Paging.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { PortalAuth } from "./PortalSecurity.ts"

/**
 * The partner's wallet certification runs, read-only: the list and a run's report, as the partner API answers them
 * (src/api/Certification.ts). Runs start with the test token, the console or the CLI; none starts here.
 */
export class PortalCertificationsGroup extends HttpApiGroup.make("certifications")
  .add(
    HttpApiEndpoint.get("list", "/certifications", {
      query: { page: Schema.optional(PageQuery), per_page: Schema.optional(PerPageQuery) },
      success: Schema.Struct({
        success: Schema.Literal(true),
        certifications: Schema.Array(CertificationRunEntry),
        meta: PageMeta
      }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The partner's certification runs, newest first, without their cases, as " +
        "`GET /api/partner/v1/wallet/certifications` answers them"
    }))
  )
  .add(
    HttpApiEndpoint.get("show", "/certifications/:id", {
      params: { id: StorableText },
      success: Schema.Struct({ success: Schema.Literal(true), certification: CertificationEntry }),
      error: [NotFound, ValidationFailed]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "A run's report, case by case, as `GET /api/partner/v1/wallet/certifications/{id}` answers it"
    }))
  )
  .middleware(PortalAuth)
{}
