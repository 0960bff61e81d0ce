/**
 * A stand-in for test tokens, until partners are issued their own: a partner's live token behind
 * `testTokenPrefix` is admitted as that partner in its test environment. Wrap the Partners the routes
 * see with `TestEnvironmentTokens` (between the routes and the services).
 */
import { Effect, Layer, Option } from "effect"
import { PartnerAccess } from "../../src/domain/Partner.ts"
import { Partners } from "../../src/partners/Partners.ts"

export const testTokenPrefix = "hooktest_"

/** The stand-in test token of a partner whose live token is `liveToken`. */
export const testTokenOf = (liveToken: string) => `${testTokenPrefix}${liveToken}`

const liveTokenIn = (token: string) => token.startsWith(testTokenPrefix) ? token.slice(testTokenPrefix.length) : undefined

export const TestEnvironmentTokens = Layer.effect(
  Partners,
  Effect.map(Effect.service(Partners), (partners) =>
    Partners.of({
      ...partners,
      isKnownToken: (token) => partners.isKnownToken(liveTokenIn(token) ?? token),
      authenticate: (token) => {
        const live = liveTokenIn(token)
        return live === undefined
          ? partners.authenticate(token)
          : Effect.map(partners.authenticate(live), Option.map((partner) => new PartnerAccess({ ...partner, environment: "test" })))
      }
    }))
)
