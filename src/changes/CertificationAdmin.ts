import { Context, Effect, Layer } from "effect"
import type { Actor } from "../domain/Admin.ts"
import { liveTokenIssuerRefusal, liveTokenRefusal, LiveTokenWithheld } from "../domain/Certification.ts"
import type { Partner } from "../domain/Partner.ts"
import type { PartnerNotFound } from "../partners/PartnerInputs.ts"
import { Partners } from "../partners/Partners.ts"
import { CertificationRepo } from "../wallet/certification/CertificationRepo.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"

/**
 * The partner setting of the wallet certification, as operators change it (console and CLI alike, audited): a
 * partner that requires a passed run has a live token only once its latest verdict on its own test wallet is a pass,
 * on the host of its live callback URL (liveTokenRefusal). Turning it on for a partner without one withdraws its live
 * token at once, in the same transaction; issuing one is then refused
 * (PartnerAdmin.rotateToken asks `liveTokenGate`) until a run passes. The token look-up is never involved: a
 * withheld token is simply not there.
 */
export class CertificationAdmin extends Context.Service<CertificationAdmin, {
  setRequired(
    actor: Actor,
    slug: string,
    required: boolean
  ): Effect.Effect<
    { readonly partner: Partner; readonly required: boolean; readonly liveTokenWithdrawn: boolean },
    PartnerNotFound
  >
}>()("partner-api/changes/CertificationAdmin") {
  static readonly layer = Layer.effect(
    CertificationAdmin,
    Effect.gen(function*() {
      const partners = yield* Partners
      const repo = yield* CertificationRepo
      const audit = yield* AuditRepo
      return CertificationAdmin.of({
        setRequired: Effect.fn("CertificationAdmin.setRequired")(
          function*(actor: Actor, slug: string, required: boolean) {
            return yield* audit.atomically(Effect.gen(function*() {
              const partner = yield* partners.show(slug)
              yield* repo.lockPartner(partner.id)
              const before = yield* repo.requirement(partner.id)
              yield* repo.setRequired(partner.id, required)
              const withhold = liveTokenRefusal(slug, {
                required,
                latest: before.latest,
                liveCallbackUrl: partner.callbackUrl
              }) !== null
              const liveTokenWithdrawn = withhold ? yield* partners.withdrawToken(slug, "live") : false
              yield* audit.record(actor, {
                action: "partner.set-certification-requirement",
                target: `partner:${slug}`,
                before: { certification_required: before.required },
                after: {
                  certification_required: required,
                  ...(liveTokenWithdrawn ? { live_token_withdrawn: true } : {})
                }
              })
              return { partner, required, liveTokenWithdrawn }
            }))
          }
        )
      })
    })
  )
}

/**
 * Fails when `actor` may not issue the partner's live token now (domain/Certification.ts liveTokenIssuerRefusal and
 * liveTokenRefusal say why), holding the partner's certification lock for the rest of the calling transaction.
 */
export const liveTokenGate = (repo: CertificationRepo["Service"], partner: Partner, actor: Actor) =>
  Effect.gen(function*() {
    yield* repo.lockPartner(partner.id)
    const requirement = yield* repo.requirement(partner.id)
    const refusal = liveTokenIssuerRefusal(partner.slug, requirement.required, actor) ??
      liveTokenRefusal(partner.slug, { ...requirement, liveCallbackUrl: partner.callbackUrl })
    if (refusal !== null) return yield* new LiveTokenWithheld({ message: refusal })
  })
