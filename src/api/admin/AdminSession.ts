import { Schema } from "effect"
import { IsoDate } from "../../domain/IsoDate.ts"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Done } from "../identity/Session.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { SessionForbidden, SessionUnauthorized, TooManyAttempts, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth, AnyRole, BeforePasswordChange } from "./AdminSecurity.ts"

export const AdminView = Schema.Struct({
  email: Schema.String,
  role: Schema.Literals(["viewer", "operator"])
})

/** The session as the console reads it: who, their CSRF token for changes, and when it ends. */
export const SessionAnswer = Schema.Struct({
  success: Schema.Literal(true),
  admin: AdminView,
  csrfToken: Schema.String,
  mustChangePassword: Schema.Boolean,
  expiresAt: IsoDate
}).pipe(Schema.encodeKeys({
  csrfToken: "csrf_token",
  mustChangePassword: "must_change_password",
  expiresAt: "expires_at"
}))

/** Logging in: the one admin endpoint without a session. */
export class AdminLoginGroup extends HttpApiGroup.make("login").add(
  HttpApiEndpoint.post("login", "/session", {
    payload: Schema.Struct({
      email: Schema.String.check(Schema.isMaxLength(254)),
      password: Schema.String.check(Schema.isMaxLength(200))
    }),
    success: SessionAnswer,
    error: [SessionUnauthorized, TooManyAttempts]
  }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
    summary: "Log in",
    description:
      "Sets the session cookie (HttpOnly, SameSite=Strict; Secure unless reached over plain http on localhost) and answers the CSRF token " +
      "every later change must carry in `X-CSRF-Token`. A wrong e-mail or password, or an expired one-time " +
      "password, is a 401. A 429 (with `Retry-After`) after `ADMIN_LOGIN_MAX_FAILURES` attempts per e-mail and " +
      "client (lock-outs from `ADMIN_LOGIN_LOCKOUT`, doubling), `ADMIN_LOGIN_MAX_FAILURES_PER_ADDRESS` failures " +
      "per client within `ADMIN_LOGIN_WINDOW`, or while `ADMIN_LOGIN_CONCURRENT_HASHES` log-ins are being checked and the short queue behind them is full."
  }))
) {}

/** The current session: read it, end it, replace a password. */
export class AdminSessionGroup extends HttpApiGroup.make("session")
  .add(
    HttpApiEndpoint.get("current", "/session", { success: SessionAnswer })
      .annotate(BeforePasswordChange, true)
      .annotateMerge(OpenApi.annotations({ summary: "The current session (and its CSRF token)" }))
  )
  .add(
    HttpApiEndpoint.delete("logout", "/session", { success: Done })
      .annotate(AnyRole, true)
      .annotate(BeforePasswordChange, true)
      .annotateMerge(OpenApi.annotations({ summary: "Log out: the session ends and its cookie is cleared" }))
  )
  .add(
    HttpApiEndpoint.post("changePassword", "/session/password", {
      payload: Schema.Struct({
        current_password: Schema.String.check(Schema.isMaxLength(200)),
        new_password: Schema.String.check(Schema.isMaxLength(200))
      }),
      success: Done,
      error: [ValidationFailed, SessionForbidden, TooManyAttempts]
    }).middleware(RequestValidation)
      .annotate(AnyRole, true)
      .annotate(BeforePasswordChange, true)
      .annotateMerge(OpenApi.annotations({
        summary: "Choose a new password",
        description:
          "Required after a one-time password from the CLI; the account's other sessions end. A wrong current " +
          "password is a 422 and counts as a failed log-in of the account from this client: past the log-in's " +
          "allowance it is a 429 (with `Retry-After`), the right one too."
      }))
  )
  .middleware(AdminAuth)
{}
