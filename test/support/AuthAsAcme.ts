/**
 * For handler specs over memory (HttpApiTest): the server side of PartnerAuth with every request Acme's, in
 * its live environment (authentication has its own tests, in test/partners).
 */
import { Effect, Layer } from "effect"
import { CurrentPartner, PartnerAuth } from "../../src/api/Security.ts"
import { PartnerAccess } from "../../src/domain/Partner.ts"

export const acme = new PartnerAccess({
  environment: "live",
  id: 7,
  name: "Acme Bets",
  slug: "acme",
  status: "active",
  commissionPercent: 10,
  callbackUrl: null,
  rateLimitPerMinute: null,
  rtpPolicy: { mode: "pass" },
  defaultCurrency: null,
  currencies: null,
  createdAt: new Date(0),
  updatedAt: new Date(0)
})

export const AuthAsAcme = Layer.succeed(
  PartnerAuth,
  PartnerAuth.of({
    bearer: (httpEffect) => Effect.provideService(httpEffect, CurrentPartner, acme),
    partnerKey: (httpEffect) => Effect.provideService(httpEffect, CurrentPartner, acme)
  })
)
