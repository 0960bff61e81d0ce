import { Context, Effect, Layer } from "effect"
import { SessionForbidden } from "../../api/identity/Errors.ts"
import { CurrentPartnerUser, PortalAuth, RoleNeeded } from "../../api/portal/PortalSecurity.ts"
import { roleReaches } from "../../domain/PartnerUser.ts"
import { AuditRepo } from "../../identity/AuditRepo.ts"
import { PartnerUsers } from "../../identity/PartnerUsers.ts"
import { guarded } from "../../identity/http/SessionHttp.ts"

const refusal = (role: string, needed: string) =>
  new SessionForbidden({
    message: `Your role (${role}) cannot make this change: it needs a${needed === "owner" ? "n" : ""} ${needed}.`
  })

/**
 * The server side of PortalAuth, over the console's session checks: the portal cookie names a live session of a
 * user whose partner is active; a change also needs the session's CSRF token, the portal's own origin and a role
 * that reaches the endpoint's RoleNeeded. Every refused change is in the audit trail, as the user's.
 */
export const layer = Layer.effect(
  PortalAuth,
  Effect.gen(function*() {
    const users = yield* PartnerUsers
    const audit = yield* AuditRepo
    const session = guarded({
      find: users.session,
      csrfOf: (found) => found.csrfToken,
      forbids: (found, change, annotations) => {
        const needed = Context.get(annotations, RoleNeeded)
        return change && !roleReaches(found.user.role, needed) ? refusal(found.user.role, needed) : undefined
      },
      recordRefusal: (found, refused) =>
        audit.record({ name: found.user.email, via: "portal" }, {
          action: "portal.change-refused",
          target: refused.target,
          after: { ...refused.after, partner: found.partner.slug }
        })
    })
    return PortalAuth.of({
      session: (httpEffect, { credential, endpoint }) =>
        session(
          credential,
          endpoint,
          (found, sessionId) => Effect.provideService(httpEffect, CurrentPartnerUser, { ...found, sessionId })
        )
    })
  })
)
