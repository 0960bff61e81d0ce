import { Effect, Option, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { Conflict, NotFound } from "../../api/admin/AdminErrors.ts"
import { CertificationCodec, certificationView } from "../../api/Certification.ts"
import type { Certification } from "../../domain/Certification.ts"
import { Partners } from "../../partners/Partners.ts"
import { Certifications } from "../../wallet/certification/Certifications.ts"
import { CertificationAdmin } from "../../changes/CertificationAdmin.ts"
import { currentActor, invalid, notFound } from "./Common.ts"

/** The contract's "certifications" group (src/api/admin/AdminCertifications.ts). */
export const AdminCertificationsHandlers = HttpApiBuilder.group(
  AdminApi,
  "certifications",
  Effect.fn(function*(handlers) {
    const partners = yield* Partners
    const certifications = yield* Certifications
    const settings = yield* CertificationAdmin
    const encode = (run: Certification) => Effect.orDie(Schema.encodeEffect(CertificationCodec)(certificationView(run)))
    const partnerOf = (slug: string) => partners.show(slug).pipe(Effect.mapError(notFound))

    return handlers
      .handle(
        "list",
        Effect.fn("AdminHandlers.certifications")(function*({ params }) {
          const partner = yield* partnerOf(params.slug)
          const requirement = yield* certifications.requirement(partner.id)
          const environments = yield* partners.environmentsOf([partner])
          const runs = yield* certifications.list(partner.id, 20)
          return {
            success: true as const,
            certification_required: requirement.required,
            live_token_issued: environments.some((settings) =>
              settings.environment === "live" && settings.tokenIssuedAt !== null
            ),
            runs: yield* Effect.forEach(runs, (run) => encode({ ...run, cases: [] }))
          }
        })
      )
      .handle(
        "start",
        Effect.fn("AdminHandlers.startCertification")(function*({ params, payload }) {
          const partner = yield* partnerOf(params.slug)
          const actor = yield* currentActor
          const run = yield* certifications.start(partner.id, payload.external_player_id, {
            name: actor.name,
            via: "console"
          }).pipe(
            Effect.catchTags({
              UnknownTestPlayer: (unknown) => Effect.fail(invalid("external_player_id", unknown.message)),
              CertificationInProgress: (running) => Effect.fail(new Conflict({ message: running.message })),
              // Only the partner's own starts are limited; an operator's is counted, never refused.
              CertificationRunsLimited: Effect.die
            })
          )
          return { success: true as const, certification: yield* encode(run) }
        })
      )
      .handle(
        "show",
        Effect.fn("AdminHandlers.certification")(function*({ params }) {
          const run = yield* certifications.find(params.id)
          if (Option.isNone(run)) return yield* new NotFound({ message: "Certification run not found." })
          return { success: true as const, certification: yield* encode(run.value) }
        })
      )
      .handle(
        "setRequirement",
        Effect.fn("AdminHandlers.setCertificationRequirement")(function*({ params, payload }) {
          const set = yield* Effect.flatMap(
            currentActor,
            (actor) => settings.setRequired(actor, params.slug, payload.required)
          ).pipe(
            Effect.mapError(notFound)
          )
          return {
            success: true as const,
            certification_required: set.required,
            live_token_withdrawn: set.liveTokenWithdrawn
          }
        })
      )
  })
)
