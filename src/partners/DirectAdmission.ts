import { Context, Effect, Layer, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { isPartnerTokenShaped, type PartnerAccess, type PartnerRateLimited } from "../domain/Partner.ts"
import { recordPartner } from "../platform/RequestRecord.ts"
import { PartnerRateLimit } from "./PartnerRateLimit.ts"
import { Partners } from "./Partners.ts"
import { admitsTokenOf, PartnersConfig } from "./PartnersConfig.ts"

/** The token of a request that carries exactly one, in the usual spelling of one scheme; otherwise none. */
const tokenOf = (headers: HttpServerRequest.HttpServerRequest["headers"]): string | undefined => {
  const authorization = headers.authorization
  const partnerKey = headers["x-partner-key"]
  if (authorization !== undefined) {
    return partnerKey === undefined && authorization.startsWith("Bearer ") ? authorization.slice(7) : undefined
  }
  return partnerKey
}

/** A token this instance does not know: the whole of PartnerAuth decides (and counts) it. */
class NotKnownHere {
  readonly _tag = "NotKnownHere"
}
const notKnownHere = Effect.fail(new NotKnownHere())

/**
 * PartnerAuth's admission for the edge's direct answers (platform/DirectAnswers): a request with one token, in one
 * scheme, of a partner this instance has in memory, active and admitted on this deployment, is the partner's, and
 * takes one request of its rate limit (PartnerRateLimit, the same RateLimit-* headers, the same 429). Anything else
 * is `undefined`, nothing taken or counted: the request goes the whole way through PartnerAuth, which refuses it,
 * counts it against its address, or looks the token up, as the contract says.
 */
export class DirectAdmission extends Context.Service<DirectAdmission, {
  admit(
    request: HttpServerRequest.HttpServerRequest
  ): Effect.Effect<PartnerAccess | undefined, PartnerRateLimited>
}>()("partner-api/partners/DirectAdmission") {
  static readonly layer = Layer.effect(
    DirectAdmission,
    Effect.gen(function*() {
      const partners = yield* Partners
      const rateLimit = yield* PartnerRateLimit
      const { serviceEnvironment } = yield* PartnersConfig
      const knownOnly = (known: boolean) => known ? Effect.void : notKnownHere
      return DirectAdmission.of({
        admit: (request) => {
          const token = tokenOf(request.headers)
          if (token === undefined || !isPartnerTokenShaped(token)) return Effect.undefined
          return partners.access(token, knownOnly).pipe(
            Effect.flatMap(({ known, partner: found }) => {
              if (!known || Option.isNone(found)) return Effect.undefined
              const partner = found.value
              if (!partner.isActive || !admitsTokenOf(serviceEnvironment, partner)) return Effect.undefined
              return Effect.withFiber((fiber) => {
                recordPartner(fiber.context, partner)
                return Effect.as(rateLimit.admit(partner), partner)
              })
            }),
            Effect.catchTag("NotKnownHere", () => Effect.undefined)
          )
        }
      })
    })
  )
}
