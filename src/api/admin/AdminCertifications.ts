import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CertificationEntry, TestPlayerField } from "../Certification.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { StorableText } from "../../domain/Text.ts"
import { Conflict, NotFound, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth } from "./AdminSecurity.ts"

const slugParam = { slug: Schema.String }
const Run = Schema.Struct({ success: Schema.Literal(true), certification: CertificationEntry })

/**
 * The wallet certification in the console: a partner's runs and its setting, a run started for an operator (it runs
 * in the background; the console reads it as its cases finish), one run's report, and the setting changed (audited).
 * The report is the partner API's (src/api/Certification.ts).
 */
export class AdminCertificationsGroup extends HttpApiGroup.make("certifications")
  .add(
    HttpApiEndpoint.get("list", "/partners/:slug/certifications", {
      params: slugParam,
      success: Schema.Struct({
        success: Schema.Literal(true),
        certification_required: Schema.Boolean.annotate({
          description: "Whether the partner's live token is issued only after a passed run"
        }),
        live_token_issued: Schema.Boolean,
        runs: Schema.Array(CertificationEntry).annotate({
          description: "The latest 20 runs, newest first, without their cases"
        })
      }),
      error: NotFound
    }).annotateMerge(OpenApi.annotations({ summary: "The partner's certification runs and its setting" }))
  )
  .add(
    HttpApiEndpoint.post("start", "/partners/:slug/certifications", {
      params: slugParam,
      payload: Schema.Struct({ external_player_id: TestPlayerField }),
      success: Run,
      error: [NotFound, ValidationFailed, Conflict]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Start a certification run of the partner's test wallet (in the background; read it as its cases finish)"
    }))
  )
  .add(
    HttpApiEndpoint.get("show", "/certifications/:id", {
      params: { id: StorableText },
      success: Run,
      error: [NotFound, ValidationFailed]
    })
      .middleware(RequestValidation)
      .annotateMerge(OpenApi.annotations({ summary: "A run's report, case by case, with every request and answer" }))
  )
  .add(
    HttpApiEndpoint.post("setRequirement", "/partners/:slug/certification-requirement", {
      params: slugParam,
      payload: Schema.Struct({ required: Schema.Boolean }),
      success: Schema.Struct({
        success: Schema.Literal(true),
        certification_required: Schema.Boolean,
        live_token_withdrawn: Schema.Boolean.annotate({
          description: "Turned on without a passed run, the live token was withdrawn at once"
        })
      }),
      error: [NotFound, ValidationFailed]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Require (or stop requiring) a passed certification before the live token is issued (audited)"
    }))
  )
  .middleware(AdminAuth)
{}
