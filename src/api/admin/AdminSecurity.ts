import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import type { AdminAccount } from "../../domain/Admin.ts"
import { SessionForbidden, SessionUnauthorized } from "./AdminErrors.ts"

/** The console's session cookie: HttpOnly, SameSite=Strict, Secure unless reached over plain http on localhost. */
export const sessionCookie = "admin_session"
/** The header every change carries with the session's CSRF token. */
export const csrfHeader = "x-csrf-token"

/** The admin of the current request and their session. */
export class CurrentAdmin extends Context.Service<CurrentAdmin, {
  readonly account: AdminAccount
  readonly sessionId: string
  readonly csrfToken: string
  readonly mustChangePassword: boolean
  readonly expiresAt: Date
}>()("partner-api/api/admin/CurrentAdmin") {}

/** Marks an endpoint a `viewer` may call although it is a change (logging out, their own password). */
export const AnyRole = Context.Reference<boolean>("partner-api/api/admin/AnyRole", { defaultValue: () => false })
/** Marks an endpoint an admin may call before replacing a one-time password. */
export const BeforePasswordChange = Context.Reference<boolean>("partner-api/api/admin/BeforePasswordChange", {
  defaultValue: () => false
})

/**
 * The console's authentication: the session cookie. Every request other
 * than GET must also carry the session's CSRF token in `X-CSRF-Token`
 * (compared in constant time), and come from an `operator` unless the
 * endpoint is marked AnyRole.
 */
export class AdminAuth extends HttpApiMiddleware.Service<AdminAuth, {
  provides: CurrentAdmin
}>()("partner-api/api/admin/AdminAuth", {
  security: {
    session: HttpApiSecurity.apiKey({ key: sessionCookie, in: "cookie" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "The session cookie `POST /admin/api/session` sets; changes also need `X-CSRF-Token`"
      )
    )
  },
  error: [SessionUnauthorized, SessionForbidden]
}) {}
