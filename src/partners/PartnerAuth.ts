import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiSecurity } from "effect/http-api"
import { ErrorMessages, TooManyRequests, Unauthorized } from "../api/Errors.ts"
import { CurrentPartner, PartnerAuth } from "../api/Security.ts"
import { isPartnerTokenShaped, type PartnerAccess } from "../domain/Partner.ts"
import { AuthFailureLimit } from "../platform/AuthFailureLimit.ts"
import { ClientAddress } from "../platform/ClientAddress.ts"
import { currentRecord, recordPartner } from "../platform/RequestRecord.ts"
import { PartnerRateLimit } from "./PartnerRateLimit.ts"
import { Partners } from "./Partners.ts"
import { admitsTokenOf, PartnersConfig } from "./PartnersConfig.ts"

const missingToken = new Unauthorized({ message: ErrorMessages.missingToken })
const invalidPartner = new Unauthorized({ message: ErrorMessages.invalidPartner })
const bearerCredential = HttpApiBuilder.securityDecode(HttpApiSecurity.bearer)

/** Whole seconds, rounded up: a client told 0 would come back at once and be refused again. */
const seconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(duration) / 1000))

/**
 * The server side of PartnerAuth. A token that is absent is 401 "nao
 * informada"; a token that is unknown, or whose partner is not active, is
 * 401 "invalido ou inativo", and so is a live token on a staging deployment
 * (SERVICE_ENVIRONMENT=staging admits test tokens only). Any other Authorization scheme is no token.
 * An admitted partner then spends one request of its rate limit (429 past it).
 *
 * Invalid tokens are limited per client address (AuthFailureLimit): a token
 * that has not the shape of one is refused without a look-up; each look-up
 * of a token this instance does not know as a partner's counts before the
 * database is asked (given back when the token admits its partner), and past
 * AUTH_FAILURE_LIMIT the address is answered 429 without one. A token this
 * instance has seen belong to a partner is looked up whatever its address
 * did, so a partner sharing an address with a guesser keeps working; only
 * its failures count.
 *
 * The partner it admits, its limit's headers and an address's Retry-After go into the request's record, which the
 * edge step (platform/HttpEdge.ts) writes the access line, the metrics and the answer's headers from.
 */
export const layer = Layer.effect(
  PartnerAuth,
  Effect.gen(function*() {
    const partners = yield* Partners
    const rateLimit = yield* PartnerRateLimit
    const failures = yield* AuthFailureLimit
    const clientAddress = yield* ClientAddress
    const { serviceEnvironment } = yield* PartnersConfig
    /** The configured mode of the service: a staging deployment never lets a live token in. */
    const admittedHere = (partner: PartnerAccess) => admitsTokenOf(serviceEnvironment, partner)
    // A request refused with a 429 (its partner's rate limit, or its address's invalid tokens) must be answered
    // 429 when the X-Partner-Key scheme runs after the bearer one (the last scheme's failure is the answer).
    const refusedForRate = new WeakMap<HttpServerRequest.HttpServerRequest, TooManyRequests>()
    const keepRefusal = (refusal: TooManyRequests) =>
      Effect.withFiber<void>((fiber) => {
        refusedForRate.set(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest), refusal)
        return Effect.void
      })
    const admitWithinLimit = (partner: PartnerAccess) =>
      rateLimit.admit(partner).pipe(
        Effect.mapError((limited) => new TooManyRequests({ message: limited.message })),
        Effect.tapError(keepRefusal)
      )

    /** The 429 for an address past its invalid tokens, with Retry-After (on the 429 only: another scheme may still admit). */
    const tooManyInvalid = (retryAfter: Duration.Duration) => {
      const refusal = new TooManyRequests({ message: ErrorMessages.invalidTokensLimited(seconds(retryAfter)) })
      return Effect.withFiber<never, TooManyRequests>((fiber) => {
        const record = currentRecord(fiber.context)
        if (record !== undefined) record.retryAfterOn429 = String(seconds(retryAfter))
        return Effect.andThen(keepRefusal(refusal), Effect.fail(refusal))
      })
    }

    /** Counts one invalid token of `address`: 401, or 429 once the address is past its limit. */
    const refuseInvalid = (address: string) =>
      Effect.flatMap(
        failures.take("partner-api", address),
        Option.match({
          onNone: () => Effect.fail(invalidPartner),
          onSome: tooManyInvalid
        })
      )

    /** Past the limit of this address's invalid tokens: that 429 instead of a look-up. */
    const countBeforeLookup = (address: () => string) => (known: boolean) =>
      // A token nobody here knows is counted before it costs a query, and not asked past the limit.
      known ? Effect.void : Effect.flatMap(
        failures.take("partner-api", address()),
        Option.match({
          onNone: () => Effect.void,
          onSome: tooManyInvalid
        })
      )

    const admit = <A, E, R>(
      token: string,
      httpEffect: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | Unauthorized | TooManyRequests, Exclude<R, CurrentPartner>> =>
      // One step on every request: a partner this instance has in memory is admitted without a look-up.
      Effect.withFiber((fiber) => {
        const address = () => clientAddress.of(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest))
        if (!isPartnerTokenShaped(token)) return refuseInvalid(address())
        return Effect.flatMap(partners.access(token, countBeforeLookup(address)), ({ known, partner: found }) => {
          if (Option.isNone(found) || !found.value.isActive || !admittedHere(found.value)) {
            return known ? refuseInvalid(address()) : Effect.fail(invalidPartner)
          }
          const partner = found.value
          // Counted before its look-up as any unknown token; found, it is no refusal.
          const counted = known ? Effect.void : failures.giveBack("partner-api", address())
          recordPartner(fiber.context, partner)
          return counted.pipe(
            Effect.andThen(admitWithinLimit(partner)),
            Effect.andThen(Effect.provideService(httpEffect, CurrentPartner, partner))
          )
        })
      })

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
          return Effect.flatMap(
            Effect.service(HttpServerRequest.HttpServerRequest),
            (request) => Effect.fail(refusedForRate.get(request) ?? invalidPartner)
          )
        })
      }
    })
  })
)
