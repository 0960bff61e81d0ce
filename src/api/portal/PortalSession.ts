import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { IsoDate } from "../../domain/IsoDate.ts"
import { PartnerRole } from "../../domain/PartnerUser.ts"
import {
  Conflict,
  NotFound,
  SessionForbidden,
  SessionUnauthorized,
  TooManyAttempts,
  ValidationFailed
} from "../identity/Errors.ts"
import { Done } from "../identity/Session.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { PortalAuth, RoleNeeded } from "./PortalSecurity.ts"

const PortalPartner = Schema.Struct({ name: Schema.String, slug: Schema.String })

/** The session as the portal reads it: who, for which partner, the CSRF token for changes, and when it ends. */
export const PortalSessionAnswer = Schema.Struct({
  success: Schema.Literal(true),
  user: Schema.Struct({ email: Schema.String, role: PartnerRole }),
  partner: PortalPartner,
  csrfToken: Schema.String,
  expiresAt: IsoDate
}).pipe(Schema.encodeKeys({ csrfToken: "csrf_token", expiresAt: "expires_at" }))

const Invitation = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)).annotate({
  description: "The secret of the invitation link (the part after `#`): sent in the body, never in a URL"
})
const Password = Schema.String.check(Schema.isMaxLength(200))

/** Logging in and accepting an invitation: the portal's endpoints without a session. */
export class PortalLoginGroup extends HttpApiGroup.make("login")
  .add(
    HttpApiEndpoint.post("login", "/session", {
      payload: Schema.Struct({ email: Schema.String.check(Schema.isMaxLength(254)), password: Password }),
      success: PortalSessionAnswer,
      error: [SessionUnauthorized, TooManyAttempts]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Log in",
      description:
        "Sets the session cookie (HttpOnly, SameSite=Strict, Path=/portal) and answers the CSRF token every later " +
        "change carries in `X-CSRF-Token`. A wrong e-mail or password is a 401; a 429 (with `Retry-After`) after too many " +
        "failures, throttled as the operator console's log-ins are."
    }))
  )
  .add(
    HttpApiEndpoint.post("invitation", "/invitation", {
      payload: Schema.Struct({ invitation: Invitation }),
      success: Schema.Struct({
        success: Schema.Literal(true),
        email: Schema.String,
        role: PartnerRole,
        partner: PortalPartner,
        expiresAt: IsoDate
      }).pipe(Schema.encodeKeys({ expiresAt: "expires_at" })),
      error: [NotFound, ValidationFailed]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Who an invitation is for (404 once it was used, replaced or expired)"
    }))
  )
  .add(
    HttpApiEndpoint.post("accept", "/invitation/accept", {
      payload: Schema.Struct({ invitation: Invitation, password: Password }),
      success: PortalSessionAnswer,
      error: [NotFound, ValidationFailed, TooManyAttempts, Conflict]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Accept an invitation: choose a password (12 characters or more) and log in",
      description: "The link works once and until it expires (PORTAL_INVITATION_TTL); the user's other sessions end. " +
        "An e-mail that has an accepted account at another partner is refused (409): one account per e-mail."
    }))
  )
{}

/** The current session: read it, end it, replace the password. */
export class PortalSessionGroup extends HttpApiGroup.make("session")
  .add(HttpApiEndpoint.get("current", "/session", { success: PortalSessionAnswer }))
  .add(
    HttpApiEndpoint.delete("logout", "/session", { success: Done })
      .annotate(RoleNeeded, "viewer")
      .annotateMerge(OpenApi.annotations({ summary: "Log out: the session ends and its cookie is cleared" }))
  )
  .add(
    HttpApiEndpoint.post("changePassword", "/session/password", {
      payload: Schema.Struct({ current_password: Password, new_password: Password }),
      success: Done,
      error: [ValidationFailed, SessionForbidden, TooManyAttempts]
    }).middleware(RequestValidation)
      .annotate(RoleNeeded, "viewer")
      .annotateMerge(OpenApi.annotations({ summary: "Choose a new password; the user's other sessions end" }))
  )
  .middleware(PortalAuth)
{}
