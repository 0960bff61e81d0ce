import { Context, Effect, Layer, Option, Predicate, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { AdminForbidden, AdminUnauthorized, ValidationFailed } from "../../api/admin/AdminErrors.ts"
import { AdminAuth, AnyRole, BeforePasswordChange, csrfHeader, CurrentAdmin } from "../../api/admin/AdminSecurity.ts"
import type { AdminAccount } from "../../domain/Admin.ts"
import { AdminAccounts } from "../AdminAccounts.ts"
import { sameSecret } from "../Sessions.ts"
import { AuditRepo } from "../AuditRepo.ts"

const notLoggedIn = new AdminUnauthorized({ message: "Log in first." })
const expired = new AdminUnauthorized({ message: "Your session has ended: log in again." })
const badCsrf = new AdminForbidden({ message: "This change lacks the session's CSRF token (X-CSRF-Token): reload the page." })
const crossOrigin = new AdminForbidden({ message: "Changes are only taken from the console's own pages." })
const viewerOnly = new AdminForbidden({ message: "Your role (viewer) can read but not change anything." })
const passwordFirst = new AdminForbidden({ message: "Choose a new password first." })

const reads = new Set(["GET", "HEAD", "OPTIONS"])

/** A browser's Origin (sent with every cross-site request) must name the host the request was sent to. */
const sameOrigin = (request: HttpServerRequest.HttpServerRequest) => {
  const origin = request.headers.origin
  if (origin === undefined || origin === "null") return origin === undefined
  try {
    return new URL(origin).host === request.headers.host
  } catch {
    return false
  }
}

const pathOf = (url: string) => url.split("?")[0]

/** A 422 the endpoint answered; HttpApiBuilder hands a security middleware its endpoint's errors wrapped (in `error`). */
const invalidInput = (error: unknown): ValidationFailed | undefined => {
  const inner = error instanceof ValidationFailed ? error : Predicate.hasProperty(error, "error") ? error.error : undefined
  return inner instanceof ValidationFailed ? inner : undefined
}

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

    /**
     * A change a logged-in admin asked for and was refused, in the audit trail: who, which endpoint, the
     * status and the message; for invalid input the names of the fields, never what was in them (it may
     * be a password).
     */
    const refused = (account: AdminAccount, request: HttpServerRequest.HttpServerRequest, status: number, reason: string, fields?: ReadonlyArray<string>) =>
      audit.record({ name: account.email, via: "console" }, {
        action: "console.change-refused",
        target: `${request.method} ${pathOf(request.url)}`,
        after: { status, reason, ...(fields === undefined ? {} : { fields }) }
      })

    return AdminAuth.of({
      session: (httpEffect, { credential, endpoint }) =>
        Effect.gen(function*() {
          const sessionId = Redacted.value(credential)
          if (sessionId === "") return yield* notLoggedIn
          const found = yield* accounts.session(sessionId)
          if (Option.isNone(found)) return yield* expired
          const session = found.value
          const request = yield* HttpServerRequest.HttpServerRequest
          const change = !reads.has(request.method)
          const refuse = (error: AdminForbidden) =>
            change ? Effect.andThen(refused(session.account, request, 403, error.message), Effect.fail(error)) : Effect.fail(error)
          if (change) {
            const given = request.headers[csrfHeader]
            if (given === undefined || !sameSecret(given, session.csrfToken)) return yield* refuse(badCsrf)
            if (!sameOrigin(request)) return yield* refuse(crossOrigin)
            if (!session.account.canChange && !Context.get(endpoint.annotations, AnyRole)) return yield* refuse(viewerOnly)
          }
          if (session.mustChangePassword && !Context.get(endpoint.annotations, BeforePasswordChange)) return yield* refuse(passwordFirst)
          const handled = Effect.provideService(httpEffect, CurrentAdmin, {
            account: session.account,
            sessionId,
            csrfToken: session.csrfToken,
            mustChangePassword: session.mustChangePassword,
            expiresAt: session.expiresAt
          })
          if (!change) return yield* handled
          return yield* Effect.tapError(handled, (error: unknown) => {
            const invalid = invalidInput(error)
            return invalid === undefined ? Effect.void : refused(session.account, request, 422, invalid.message, Object.keys(invalid.errors))
          })
        })
    })
  })
)
