import { Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { AdminForbidden, AdminUnauthorized } from "../api/admin/AdminErrors.ts"
import { AdminAuth, AnyRole, BeforePasswordChange, csrfHeader, CurrentAdmin } from "../api/admin/AdminSecurity.ts"
import { AdminAccounts, sameSecret } from "./AdminAccounts.ts"

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

/**
 * The server side of AdminAuth: the session cookie names a live session of
 * an enabled account; a change also needs the session's CSRF token (and a
 * same-origin Origin when the browser sends one) and an operator, unless
 * the endpoint is marked AnyRole; until a one-time password is replaced,
 * only the endpoints marked BeforePasswordChange answer.
 */
export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const accounts = yield* AdminAccounts
    return AdminAuth.of({
      session: (httpEffect, { credential, endpoint }) =>
        Effect.gen(function*() {
          const sessionId = Redacted.value(credential)
          if (sessionId === "") return yield* notLoggedIn
          const found = yield* accounts.session(sessionId)
          if (Option.isNone(found)) return yield* expired
          const session = found.value
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!reads.has(request.method)) {
            const given = request.headers[csrfHeader]
            if (given === undefined || !sameSecret(given, session.csrfToken)) return yield* badCsrf
            if (!sameOrigin(request)) return yield* crossOrigin
            if (!session.account.canChange && !Context.get(endpoint.annotations, AnyRole)) return yield* viewerOnly
          }
          if (session.mustChangePassword && !Context.get(endpoint.annotations, BeforePasswordChange)) return yield* passwordFirst
          return yield* Effect.provideService(httpEffect, CurrentAdmin, {
            account: session.account,
            sessionId,
            csrfToken: session.csrfToken,
            mustChangePassword: session.mustChangePassword,
            expiresAt: session.expiresAt
          })
        })
    })
  })
)
