import { Effect, Option } from "effect"
import { HttpServerRequest, HttpServerResponse, HttpEffect } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { AdminUnauthorized, TooManyAttempts } from "../../api/admin/AdminErrors.ts"
import { AdminAuth, CurrentAdmin, sessionCookie } from "../../api/admin/AdminSecurity.ts"
import { AppConfig } from "../../platform/AppConfig.ts"
import { ClientAddress } from "../../platform/ClientAddress.ts"
import { AdminAccounts } from "../AdminAccounts.ts"
import { invalid } from "./Common.ts"


/** The names of this machine's loopback, as a browser on it writes them in a URL. */
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

/** The Host header's name without its port (`[::1]:3000` is `[::1]`). */
const hostName = (host: string | undefined) => (host ?? "").trim().toLowerCase().replace(/:\d+$/, "")

/**
 * The session cookie: HttpOnly and SameSite=Strict always; Secure everywhere but plain http on this
 * machine's loopback. A TLS proxy need not send X-Forwarded-Proto: a console reached by any other name
 * is taken to be behind https, since a browser would send the cookie in clear over plain http there.
 */
const cookieOptions = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* AppConfig
  const https = request.headers["x-forwarded-proto"] === "https" || Option.exists(config.publicUrl, (url) => url.startsWith("https://"))
  const plainLoopback = !https && loopbackHosts.has(hostName(request.headers.host))
  return { httpOnly: true, sameSite: "strict" as const, secure: !plainLoopback, path: "/admin" }
})

const sessionAnswer = (session: { account: { email: string; role: "viewer" | "operator" }; csrfToken: string; mustChangePassword: boolean; expiresAt: Date }) => ({
  success: true as const,
  admin: { email: session.account.email, role: session.account.role },
  csrf_token: session.csrfToken,
  must_change_password: session.mustChangePassword,
  expires_at: session.expiresAt.toISOString()
})

/** A 429 with Retry-After: the header on the answer, the seconds in its body too. */
const tooMany = (message: string, retryAfterSeconds: number) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)))
  ).pipe(Effect.andThen(Effect.fail(new TooManyAttempts({ message, retry_after_seconds: retryAfterSeconds }))))

export const AdminLoginHandlers = HttpApiBuilder.group(AdminApi, "login", Effect.fn(function*(handlers) {
  const accounts = yield* AdminAccounts
  const config = yield* AppConfig
  const clients = yield* ClientAddress
  return handlers.handle("login", Effect.fn("AdminHandlers.login")(function*({ payload }) {
    const request = yield* HttpServerRequest.HttpServerRequest
    const session = yield* accounts.login(payload.email, payload.password, clients.of(request)).pipe(
      Effect.catchTags({
        LoginRefused: (refused) => Effect.fail(new AdminUnauthorized({ message: refused.message })),
        OneTimePasswordExpired: (expired) => Effect.fail(new AdminUnauthorized({ message: expired.message })),
        LoginThrottled: (throttled) => tooMany(throttled.message, throttled.retryAfterSeconds),
        HashersBusy: (busy) => tooMany(busy.message, busy.retryAfterSeconds)
      })
    )
    const options = yield* Effect.provideService(cookieOptions, AppConfig, config)
    yield* HttpApiBuilder.securitySetCookie(AdminAuth.security.session, session.sessionId, { ...options, expires: session.expiresAt })
    return sessionAnswer({ ...session, csrfToken: session.csrfToken })
  }))
}))

export const AdminSessionHandlers = HttpApiBuilder.group(AdminApi, "session", Effect.fn(function*(handlers) {
  const accounts = yield* AdminAccounts
  const config = yield* AppConfig
  return handlers
    .handle("current", () => Effect.map(Effect.service(CurrentAdmin), sessionAnswer))
    .handle("logout", Effect.fn("AdminHandlers.logout")(function*() {
      const admin = yield* CurrentAdmin
      yield* accounts.logout(admin.sessionId, admin.account)
      const options = yield* Effect.provideService(cookieOptions, AppConfig, config)
      yield* HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.orDie(HttpServerResponse.expireCookie(response, sessionCookie, options)))
      return { success: true as const, message: "Logged out." }
    }))
    .handle("changePassword", Effect.fn("AdminHandlers.changePassword")(function*({ payload }) {
      const admin = yield* CurrentAdmin
      yield* accounts.changePassword(admin.sessionId, admin.account, payload.current_password, payload.new_password).pipe(
        Effect.catchTags({
          LoginRefused: () => Effect.fail(invalid("current_password", "The current password is wrong.")),
          InvalidAccountInput: (error) => Effect.fail(invalid(error.field, error.message)),
          HashersBusy: (busy) => tooMany(busy.message, busy.retryAfterSeconds)
        })
      )
      return { success: true as const, message: "Your password was changed." }
    }))
}))
