import { Context, Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import { createHash } from "node:crypto"
import { SessionForbidden } from "../../api/identity/Errors.ts"
import { CurrentPartnerUser, PortalAuth, RoleNeeded } from "../../api/portal/PortalSecurity.ts"
import { roleReaches } from "../../domain/PartnerUser.ts"
import { AuditRepo } from "../../identity/AuditRepo.ts"
import { PartnerUsers } from "../../identity/PartnerUsers.ts"
import { guarded, tooMany } from "../../identity/http/SessionHttp.ts"

/** Requests a portal session may make a minute (a burst of as many, refilled evenly). */
export const portalRequestsPerMinute = 120

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
    const limiter = yield* RateLimiter.RateLimiter
    /**
     * Each session's allowance, in the shared RateLimiter (every instance counts in it), keyed by a hash of the
     * session's id (the store never holds the cookie): refused changes write audit rows, test sends and redeliveries
     * reach the partner's wallet, so none may come at any rate. A store that cannot be reached admits the request.
     */
    const withinAllowance = (sessionId: string) =>
      limiter.consume({
        algorithm: "token-bucket",
        onExceeded: "fail",
        key: `portal-api:session:${createHash("sha256").update(sessionId).digest("base64url").slice(0, 22)}`,
        limit: portalRequestsPerMinute,
        window: Duration.minutes(1),
        tokens: 1
      }).pipe(
        Effect.asVoid,
        Effect.catch((error) =>
          error.reason._tag === "RateLimitExceeded"
            ? tooMany(
              "Too many requests from this session: try again in a moment.",
              Math.max(1, Math.ceil(Duration.toSeconds(error.reason.retryAfter)))
            )
            : Effect.logWarning("The portal's rate limit store failed; request admitted").pipe(
              Effect.annotateLogs({ detail: error.reason.message })
            )
        )
      )
    const session = guarded({
      panel: "portal",
      find: users.session,
      admit: withinAllowance,
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
