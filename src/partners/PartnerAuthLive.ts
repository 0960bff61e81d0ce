import { Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiSecurity } from "effect/http-api"
import { ErrorMessages, type TooManyRequests, Unauthorized } from "../api/Errors.ts"
import { CurrentPartner, PartnerAuth } from "../api/Security.ts"
import type { Partner } from "../domain/Partner.ts"
import { RequestLog } from "../platform/HttpEdge.ts"
import { PartnerRateLimit } from "./PartnerRateLimit.ts"
import { Partners } from "./Partners.ts"

const missingToken = new Unauthorized({ message: ErrorMessages.missingToken })
const invalidPartner = new Unauthorized({ message: ErrorMessages.invalidPartner })
const bearerCredential = HttpApiBuilder.securityDecode(HttpApiSecurity.bearer)

/**
 * The server side of PartnerAuth. A token that is absent is 401 "nao
 * informada"; a token that is unknown, or whose partner is not active, is
 * 401 "invalido ou inativo". Any other Authorization scheme is no token.
 * An admitted partner then spends one request of its rate limit (429 past it).
 */
export const PartnerAuthLive = Layer.effect(
  PartnerAuth,
  Effect.gen(function*() {
    const partners = yield* Partners
    const rateLimit = yield* PartnerRateLimit
    // A bearer partner refused for its rate limit must be answered 429 when the X-Partner-Key scheme runs
    // after it (the last scheme's failure is the answer): its refusal is kept for the request.
    const refusedForRate = new WeakMap<HttpServerRequest.HttpServerRequest, TooManyRequests>()
    const admitWithinLimit = (partner: Partner) =>
      Effect.tapError(rateLimit.admit(partner), (refusal) =>
        Effect.withFiber((fiber) => {
          refusedForRate.set(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest), refusal)
          return Effect.void
        }))

    const admit = <A, E, R>(
      token: string,
      httpEffect: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | Unauthorized | TooManyRequests, Exclude<R, CurrentPartner>> =>
      Effect.flatMap(
        partners.authenticate(token),
        (found): Effect.Effect<A, E | Unauthorized | TooManyRequests, Exclude<R, CurrentPartner>> => {
          if (Option.isNone(found) || !found.value.isActive) return Effect.fail(invalidPartner)
          const partner = found.value
          return Effect.flatMap(Effect.service(RequestLog), (log) => {
            log.partnerId = partner.id
            log.partnerSlug = partner.slug
            return Effect.andThen(admitWithinLimit(partner), Effect.provideService(httpEffect, CurrentPartner, partner))
          })
        }
      )

    return PartnerAuth.of({
      bearer: (httpEffect, { credential }) => {
        const token = Redacted.value(credential)
        return token === "" ? Effect.fail(missingToken) : admit(token, httpEffect)
      },
      partnerKey: (httpEffect, { credential }) => {
        const token = Redacted.value(credential)
        if (token !== "") return admit(token, httpEffect)
        // The bearer scheme ran first; when it refused a token, the answer is "invalid" (or its 429), not "missing".
        return Effect.flatMap(bearerCredential, (bearer) => {
          if (Redacted.value(bearer) === "") return Effect.fail(missingToken)
          return Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
            Effect.fail(refusedForRate.get(request) ?? invalidPartner))
        })
      }
    })
  })
)
