import { Effect, Option } from "effect"
import { HttpServerRequest, HttpServerResponse, HttpEffect } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../api/admin/AdminApi.ts"
import { AdminUnauthorized, Conflict, NotFound, TooManyAttempts, ValidationFailed } from "../api/admin/AdminErrors.ts"
import { AdminAuth, CurrentAdmin, sessionCookie } from "../api/admin/AdminSecurity.ts"
import type { Actor } from "../domain/Admin.ts"
import type { Partner } from "../domain/Partner.ts"
import { Partners } from "../partners/Partners.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { ClientAddress } from "../platform/ClientAddress.ts"
import { AdminAccounts } from "./AdminAccounts.ts"
import { PartnerAdmin } from "./AdminChanges.ts"
import { partnerView } from "./PartnerView.ts"


/** The admin making the current request, as the audit trail names them. */
export const currentActor = Effect.map(Effect.service(CurrentAdmin), (admin): Actor => ({ name: admin.account.email, via: "console" }))

export const invalid = (field: string, message: string) => new ValidationFailed({ message, errors: { [field]: [message] } })
const notFound = (error: { readonly message: string }) => new NotFound({ message: error.message })

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
          InvalidAdminInput: (error) => Effect.fail(invalid(error.field, error.message)),
          HashersBusy: (busy) => tooMany(busy.message, busy.retryAfterSeconds)
        })
      )
      return { success: true as const, message: "Your password was changed." }
    }))
}))

const matches = (search: string) => (partner: Partner) =>
  partner.name.toLowerCase().includes(search) || partner.slug.includes(search)

export const AdminPartnersHandlers = HttpApiBuilder.group(AdminApi, "partners", Effect.fn(function*(handlers) {
  const partners = yield* Partners
  const changes = yield* PartnerAdmin
  const inputError = (error: { readonly message: string }) => new ValidationFailed({ message: error.message, errors: { partner: [error.message] } })
  const partnerAnswer = (partner: Partner) => ({ success: true as const, partner: partnerView(partner) })
  const blankIsNull = (url: string | null | undefined) => url === undefined ? undefined : url === null || url.trim() === "" ? null : url.trim()

  return handlers
    .handle("list", ({ query }) =>
      Effect.map(partners.list, (all) => ({
        success: true as const,
        partners: all.filter(matches((query.search ?? "").trim().toLowerCase())).map(partnerView)
      })))
    .handle("show", ({ params }) => partners.show(params.slug).pipe(Effect.mapError(notFound), Effect.map(partnerAnswer)))
    .handle("create", Effect.fn("AdminHandlers.createPartner")(function*({ payload }) {
      const created = yield* changes.create(yield* currentActor, {
        name: payload.name.trim(),
        slug: payload.slug === undefined || payload.slug.trim() === "" ? undefined : payload.slug.trim(),
        commissionPercent: payload.commission_percent,
        callbackUrl: blankIsNull(payload.callback_url)
      }).pipe(Effect.catchTags({
        InvalidPartnerInput: (error) => Effect.fail(inputError(error)),
        SlugTaken: (error) => Effect.fail(new Conflict({ message: error.message }))
      }))
      return { success: true as const, partner: partnerView(created.partner), token: created.token, webhook_secret: created.webhookSecret }
    }))
    .handle("update", Effect.fn("AdminHandlers.updatePartner")(function*({ params, payload }) {
      const partner = yield* changes.update(yield* currentActor, params.slug, {
        name: payload.name?.trim(),
        commissionPercent: payload.commission_percent,
        callbackUrl: blankIsNull(payload.callback_url),
        rateLimitPerMinute: payload.rate_limit_per_minute
      }).pipe(Effect.catchTags({ InvalidPartnerInput: (error) => Effect.fail(inputError(error)), PartnerNotFound: (error) => Effect.fail(notFound(error)) }))
      return partnerAnswer(partner)
    }))
    .handle("activate", ({ params }) =>
      Effect.flatMap(currentActor, (actor) => changes.setStatus(actor, params.slug, "active")).pipe(Effect.mapError(notFound), Effect.map(partnerAnswer)))
    .handle("deactivate", ({ params }) =>
      Effect.flatMap(currentActor, (actor) => changes.setStatus(actor, params.slug, "inactive")).pipe(Effect.mapError(notFound), Effect.map(partnerAnswer)))
    .handle("rotateToken", ({ params }) =>
      Effect.flatMap(currentActor, (actor) => changes.rotateToken(actor, params.slug)).pipe(
        Effect.mapError(notFound),
        Effect.map(({ partner, token }) => ({ success: true as const, partner: partnerView(partner), token }))
      ))
    .handle("rotateWebhookSecret", ({ params }) =>
      Effect.flatMap(currentActor, (actor) => changes.rotateWebhookSecret(actor, params.slug)).pipe(
        Effect.mapError(notFound),
        Effect.map(({ partner, webhookSecret }) => ({ success: true as const, partner: partnerView(partner), webhook_secret: webhookSecret }))
      ))
}))
