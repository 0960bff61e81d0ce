import { Effect, Option, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { CertificationCodec, certificationView } from "../../api/Certification.ts"
import { ok } from "../../api/Envelope.ts"
import { Conflict, ErrorMessages, Forbidden, NotFound, ValidationFailed } from "../../api/Errors.ts"
import { CurrentPartner } from "../../api/Security.ts"
import type { Certification } from "../../domain/Certification.ts"
import type { PartnerAccess } from "../../domain/Partner.ts"
import { Certifications } from "./Certifications.ts"

const testTokenOnly = new Forbidden({
  message: "Wallet certification runs against your test environment: call it with your test token (pak_test_…). " +
    "A live token neither starts nor reads a run."
})

/** The certification group: the calling partner's own runs, with its test token only. */
export const CertificationHandlers = HttpApiBuilder.group(
  PartnerApi,
  "certifications",
  Effect.fn(function*(handlers) {
    const certifications = yield* Certifications
    const encode = Schema.encodeEffect(CertificationCodec)
    const answer = (partner: PartnerAccess, run: Certification) =>
      Effect.map(Effect.orDie(encode(certificationView(run))), (certification) => ok(partner, { certification }))
    const testPartner = Effect.gen(function*() {
      const partner = yield* CurrentPartner
      return partner.environment === "test" ? partner : yield* testTokenOnly
    })

    return handlers
      .handle("start", Effect.fn("CertificationHandlers.start")(function*({ payload }) {
        const partner = yield* testPartner
        const run = yield* certifications.start(partner.id, payload.external_player_id, {
          name: `partner ${partner.slug} (test token)`,
          via: "api"
        }).pipe(Effect.catchTags({
          UnknownTestPlayer: (unknown) =>
            Effect.fail(new ValidationFailed({ message: ErrorMessages.invalidData, errors: { external_player_id: [unknown.message] } })),
          CertificationInProgress: (running) => Effect.fail(new Conflict({ message: running.message }))
        }))
        return yield* answer(partner, run)
      }))
      .handle("show", Effect.fn("CertificationHandlers.show")(function*({ params }) {
        const partner = yield* testPartner
        const run = yield* certifications.find(params.certification_id, partner.id)
        if (Option.isNone(run)) return yield* new NotFound({ message: "Certification run not found." })
        return yield* answer(partner, run.value)
      }))
  })
)
