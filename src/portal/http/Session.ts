import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Conflict, invalid, notFound, SessionUnauthorized } from "../../api/identity/Errors.ts"
import { PortalApi } from "../../api/portal/PortalApi.ts"
import { CurrentPartnerUser, PortalAuth, portalSessionCookie } from "../../api/portal/PortalSecurity.ts"
import { AppConfig } from "../../platform/AppConfig.ts"
import { ClientAddress } from "../../platform/ClientAddress.ts"
import { cookieOptions, expireCookie, tooMany } from "../../identity/http/SessionHttp.ts"
import { type NewPortalSession, PartnerUsers, type PortalSession } from "../../identity/PartnerUsers.ts"

const sessionAnswer = (session: PortalSession) => ({
  success: true as const,
  user: { email: session.user.email, role: session.user.role },
  partner: { name: session.partner.name, slug: session.partner.slug },
  csrfToken: session.csrfToken,
  expiresAt: session.expiresAt
})

const busy = {
  HashersBusy: (error: { message: string; retryAfterSeconds: number }) =>
    tooMany(error.message, error.retryAfterSeconds)
}

/** Logging in and accepting an invitation: each sets the portal's cookie (Path=/portal) and answers the session. */
export const PortalLoginHandlers = HttpApiBuilder.group(
  PortalApi,
  "login",
  Effect.fn(function*(handlers) {
    const users = yield* PartnerUsers
    const config = yield* AppConfig
    const clients = yield* ClientAddress
    const started = Effect.fnUntraced(function*(session: NewPortalSession) {
      const options = yield* Effect.provideService(cookieOptions("/portal"), AppConfig, config)
      yield* HttpApiBuilder.securitySetCookie(PortalAuth.security.session, session.sessionId, {
        ...options,
        expires: session.expiresAt
      })
      return sessionAnswer(session)
    })
    const client = Effect.map(Effect.service(HttpServerRequest.HttpServerRequest), (request) => clients.of(request))
    return handlers
      .handle(
        "login",
        ({ payload }) =>
          Effect.flatMap(client, (address) => users.login(payload.email, payload.password, address)).pipe(
            Effect.catchTags({
              LoginRefused: (refused) => Effect.fail(new SessionUnauthorized({ message: refused.message })),
              LoginThrottled: (throttled) => tooMany(throttled.message, throttled.retryAfterSeconds),
              ...busy
            }),
            Effect.flatMap(started)
          )
      )
      .handle("invitation", ({ payload }) =>
        users.invitation(payload.invitation).pipe(
          Effect.mapError(notFound),
          Effect.map(({ partner, user }) => ({
            success: true as const,
            email: user.email,
            role: user.role,
            partner: { name: partner.name, slug: partner.slug },
            expiresAt: user.invitationExpiresAt!
          }))
        ))
      .handle(
        "accept",
        ({ payload }) =>
          Effect.flatMap(client, (address) => users.accept(payload.invitation, payload.password, address)).pipe(
            Effect.catchTags({
              InvitationInvalid: (error) => Effect.fail(notFound(error)),
              EmailHasAccount: (error) => Effect.fail(new Conflict({ message: error.message })),
              InvalidAccountInput: (error) => Effect.fail(invalid(error.field, error.message)),
              ...busy
            }),
            Effect.flatMap(started)
          )
      )
  })
)

export const PortalSessionHandlers = HttpApiBuilder.group(
  PortalApi,
  "session",
  Effect.fn(function*(handlers) {
    const users = yield* PartnerUsers
    const config = yield* AppConfig
    const clients = yield* ClientAddress
    return handlers
      .handle("current", () => Effect.map(Effect.service(CurrentPartnerUser), sessionAnswer))
      .handle(
        "logout",
        Effect.fn("PortalHandlers.logout")(function*() {
          const session = yield* CurrentPartnerUser
          yield* users.logout(session.sessionId, session)
          yield* expireCookie(
            portalSessionCookie,
            yield* Effect.provideService(cookieOptions("/portal"), AppConfig, config)
          )
          return { success: true as const, message: "Logged out." }
        })
      )
      .handle(
        "changePassword",
        Effect.fn("PortalHandlers.changePassword")(function*({ payload }) {
          const session = yield* CurrentPartnerUser
          const client = clients.of(yield* HttpServerRequest.HttpServerRequest)
          yield* users.changePassword(
            session.sessionId,
            session,
            payload.current_password,
            payload.new_password,
            client
          ).pipe(
            Effect.catchTags({
              LoginRefused: () => Effect.fail(invalid("current_password", "The current password is wrong.")),
              LoginThrottled: (throttled) => tooMany(throttled.message, throttled.retryAfterSeconds),
              InvalidAccountInput: (error) => Effect.fail(invalid(error.field, error.message)),
              ...busy
            })
          )
          return { success: true as const, message: "Your password was changed." }
        })
      )
  })
)
