import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import type { PartnerRole, PartnerUser } from "../../domain/PartnerUser.ts"
import { SessionForbidden, SessionUnauthorized, TooManyAttempts } from "../identity/Errors.ts"

/** The portal's session cookie: HttpOnly, SameSite=Strict, Path=/portal (apart from the console's). */
export const portalSessionCookie = "portal_session"

/** The partner user of the current request, the partner they act for, and their session. */
export class CurrentPartnerUser extends Context.Service<CurrentPartnerUser, {
  readonly user: PartnerUser
  readonly partner: {
    readonly id: number
    readonly name: string
    readonly slug: string
    readonly status: "active" | "inactive"
  }
  readonly sessionId: string
  readonly csrfToken: string
  readonly expiresAt: Date
}>()("partner-api/api/portal/CurrentPartnerUser") {}

/**
 * The least role a change endpoint needs (a read needs none): the role matrix of domain/PartnerUser.ts. Unmarked,
 * a change needs an owner, so a change added without thought is the most guarded.
 */
export const RoleNeeded = Context.Reference<PartnerRole>("partner-api/api/portal/RoleNeeded", {
  defaultValue: () => "owner"
})

/**
 * The portal's authentication: the session cookie. Every request other than a GET must also carry the session's
 * CSRF token in `X-CSRF-Token` (compared in constant time), come from the portal's own origin, and come from a
 * user whose role reaches the endpoint's RoleNeeded.
 */
export class PortalAuth extends HttpApiMiddleware.Service<PortalAuth, {
  provides: CurrentPartnerUser
}>()("partner-api/api/portal/PortalAuth", {
  security: {
    session: HttpApiSecurity.apiKey({ key: portalSessionCookie, in: "cookie" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The session cookie `POST /portal/api/session` sets; changes also need `X-CSRF-Token`"
      )
    )
  },
  error: [SessionUnauthorized, SessionForbidden, TooManyAttempts]
}) {}
