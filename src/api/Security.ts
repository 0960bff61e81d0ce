import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import type { Partner } from "../domain/Partner.ts"
import { Unauthorized } from "./Errors.ts"

/** The authenticated partner of the current request. */
export class CurrentPartner extends Context.Service<CurrentPartner, Partner>()("partner-api/api/CurrentPartner") {}

/**
 * Partner authentication: `Authorization: Bearer <token>` or
 * `X-Partner-Key: <token>`, either accepted. The schemes are tried in this
 * order and the last failure is the one answered.
 */
export class PartnerAuth extends HttpApiMiddleware.Service<PartnerAuth, {
  provides: CurrentPartner
}>()("partner-api/api/PartnerAuth", {
  security: {
    bearer: HttpApiSecurity.bearer,
    partnerKey: HttpApiSecurity.apiKey({ key: "X-Partner-Key", in: "header" })
  },
  error: Unauthorized,
  requiredForClient: true
}) {}
