import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { SessionUnauthorized } from "../../api/admin/AdminErrors.ts"
import { AdminAuth, CurrentAdmin, sessionCookie } from "../../api/admin/AdminSecurity.ts"
import { AppConfig } from "../../platform/AppConfig.ts"
import { ClientAddress } from "../../platform/ClientAddress.ts"
import { AdminAccounts } from "../../identity/AdminAccounts.ts"
import { invalid } from "./Common.ts"
import { cookieOptions, expireCookie, tooMany } from "../../identity/http/SessionHttp.ts"

const sessionAnswer = (
  session: {
    account: { email: string; role: "viewer" | "operator" }
    csrfToken: string
    mustChangePassword: boolean
    expiresAt: Date
  }
) => ({
  success: true as const,
  admin: { email: session.account.email, role: session.account.role },
  csrfToken: session.csrfToken,
  mustChangePassword: session.mustChangePassword,
  expiresAt: session.expiresAt
})

export const AdminLoginHandlers = HttpApiBuilder.group(
  AdminApi,
  "login",
  Effect.fn(function*(handlers) {
    const accounts = yield* AdminAccounts
    const config = yield* AppConfig
    const clients = yield* ClientAddress
    return handlers.handle(
      "login",
      Effect.fn("AdminHandlers.login")(function*({ payload }) {
        const request = yield* HttpServerRequest.HttpServerRequest
        const session = yield* accounts.login(payload.email, payload.password, clients.of(request)).pipe(
          Effect.catchTags({
            LoginRefused: (refused) => Effect.fail(new SessionUnauthorized({ message: refused.message })),
            OneTimePasswordExpired: (expired) => Effect.fail(new SessionUnauthorized({ message: expired.message })),
            LoginThrottled: (throttled) => tooMany(throttled.message, throttled.retryAfterSeconds),
            HashersBusy: (busy) => tooMany(busy.message, busy.retryAfterSeconds)
          })
        )
        const options = yield* Effect.provideService(cookieOptions("/admin"), AppConfig, config)
        yield* HttpApiBuilder.securitySetCookie(AdminAuth.security.session, session.sessionId, {
          ...options,
          expires: session.expiresAt
        })
        return sessionAnswer(session)
      })
    )
  })
)

export const AdminSessionHandlers = HttpApiBuilder.group(
  AdminApi,
  "session",
  Effect.fn(function*(handlers) {
    const accounts = yield* AdminAccounts
    const config = yield* AppConfig
    const clients = yield* ClientAddress
    return handlers
      .handle("current", () => Effect.map(Effect.service(CurrentAdmin), sessionAnswer))
      .handle(
        "logout",
        Effect.fn("AdminHandlers.logout")(function*() {
          const admin = yield* CurrentAdmin
          yield* accounts.logout(admin.sessionId, admin.account)
          yield* expireCookie(sessionCookie, yield* Effect.provideService(cookieOptions("/admin"), AppConfig, config))
          return { success: true as const, message: "Logged out." }
        })
      )
      .handle(
        "changePassword",
        Effect.fn("AdminHandlers.changePassword")(function*({ payload }) {
          const admin = yield* CurrentAdmin
          const client = clients.of(yield* HttpServerRequest.HttpServerRequest)
          yield* accounts.changePassword(
            admin.sessionId,
            admin.account,
            payload.current_password,
            payload.new_password,
            client
          )
            .pipe(
              Effect.catchTags({
                LoginRefused: () => Effect.fail(invalid("current_password", "The current password is wrong.")),
                LoginThrottled: (throttled) => tooMany(throttled.message, throttled.retryAfterSeconds),
                InvalidAccountInput: (error) => Effect.fail(invalid(error.field, error.message)),
                HashersBusy: (busy) => tooMany(busy.message, busy.retryAfterSeconds)
              })
            )
          return { success: true as const, message: "Your password was changed." }
        })
      )
  })
)
