import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { PartnerUsers } from "../../src/identity/PartnerUsers.ts"
import { PortalApi } from "../../src/api/portal/PortalApi.ts"
import { PortalAuth, portalSessionCookie } from "../../src/api/portal/PortalSecurity.ts"
import type { PartnerRole } from "../../src/domain/PartnerUser.ts"
import type { AdminSession } from "./AdminConsole.ts"
import { testPassword } from "./AdminConsole.ts"

/** A partner as the portal's services name it. */
export interface PortalPartner {
  readonly id: number
  readonly name: string
  readonly slug: string
  readonly status: "active" | "inactive"
}

/**
 * A portal user of `partner` who accepted their invitation (password `testPassword`), invited by an operator through
 * the CLI's actor, and their session as the portal's cookie and CSRF token (the same shape as an admin's, so
 * `adminRequest` sends either).
 */
export const givenPortalUser = (partner: PortalPartner, email: string, role: PartnerRole = "owner") =>
  Effect.gen(function*() {
    const users = yield* PartnerUsers
    const invited = yield* users.invite({ name: "test", via: "cli" }, partner, { email, role })
    const session = yield* users.accept(invited.invitation, testPassword, "192.0.2.1")
    return {
      user: invited.user,
      session: { cookie: `${portalSessionCookie}=${session.sessionId}`, csrf: session.csrfToken } satisfies AdminSession
    }
  }).pipe(Effect.orDie)

/** The typed client's side of PortalAuth: send `session`'s cookie and CSRF token (none: neither). */
export const asPortalUser = (session?: AdminSession) =>
  HttpApiMiddleware.layerClient(
    PortalAuth,
    ({ next, request }) =>
      next(
        session === undefined
          ? request
          : HttpClientRequest.setHeaders(request, { cookie: session.cookie, "x-csrf-token": session.csrf })
      )
  )

/** The portal API's typed client as `session` (its cookie and CSRF token; none: neither). */
export const portalClient = (session?: AdminSession) =>
  HttpApiClient.make(PortalApi).pipe(Effect.provide(asPortalUser(session)))
