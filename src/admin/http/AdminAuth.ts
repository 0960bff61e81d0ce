import { Context, Effect, Layer } from "effect"
import { SessionForbidden } from "../../api/admin/AdminErrors.ts"
import { AdminAuth, AnyRole, BeforePasswordChange, CurrentAdmin } from "../../api/admin/AdminSecurity.ts"
import { AdminAccounts } from "../../identity/AdminAccounts.ts"
import { AuditRepo } from "../../identity/AuditRepo.ts"
import { guarded } from "../../identity/http/SessionHttp.ts"

const viewerOnly = new SessionForbidden({ message: "Your role (viewer) can read but not change anything." })
const passwordFirst = new SessionForbidden({ message: "Choose a new password first." })

/**
 * The server side of AdminAuth: the session cookie names a live session of
 * an enabled account; a change also needs the session's CSRF token (and a
 * same-origin Origin when the browser sends one) and an operator, unless
 * the endpoint is marked AnyRole; until a one-time password is replaced,
 * only the endpoints marked BeforePasswordChange answer.
 */
export const layer = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const accounts = yield* AdminAccounts
    const audit = yield* AuditRepo
    const session = guarded({
      panel: "console",
      find: accounts.session,
      csrfOf: (found) => found.csrfToken,
      forbids: (found, change, annotations) =>
        change && !found.account.canChange && !Context.get(annotations, AnyRole)
          ? viewerOnly
          : found.mustChangePassword && !Context.get(annotations, BeforePasswordChange)
          ? passwordFirst
          : undefined,
      // A change a logged-in admin asked for and was refused, in the audit trail (never what the fields held).
      recordRefusal: (found, refused) =>
        audit.record({ name: found.account.email, via: "console" }, { action: "console.change-refused", ...refused })
    })
    return AdminAuth.of({
      session: (httpEffect, { credential, endpoint }) =>
        session(
          credential,
          endpoint,
          (found, sessionId) => Effect.provideService(httpEffect, CurrentAdmin, { ...found, sessionId })
        )
    })
  })
)
