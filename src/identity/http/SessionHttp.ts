import { type Context, Effect, Option, Predicate, Redacted } from "effect"
import { HttpEffect, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import { SessionForbidden, SessionUnauthorized, TooManyAttempts, ValidationFailed } from "../../api/identity/Errors.ts"
import { AppConfig } from "../../platform/AppConfig.ts"
import { sameSecret } from "../Sessions.ts"

/*
 * The HTTP side of a session, as the operator console (/admin) and the partner portal (/portal) both use it: the
 * cookie, the checks every request makes (a live session; for a change, the session's CSRF token, a same-origin
 * Origin and a role that may make it) and the audit of a change refused.
 */

const notLoggedIn = new SessionUnauthorized({ message: "Log in first." })
const expired = new SessionUnauthorized({ message: "Your session has ended: log in again." })
const badCsrf = new SessionForbidden({
  message: "This change lacks the session's CSRF token (X-CSRF-Token): reload the page."
})
/** The refusal of a change from another origin, in the words of the panel it was sent to (each has its own pages). */
const crossOrigin = (panel: SessionRules<unknown>["panel"]) =>
  new SessionForbidden({ message: `Changes are only taken from the ${panel}'s own pages.` })

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
  const inner = error instanceof ValidationFailed
    ? error
    : Predicate.hasProperty(error, "error")
    ? error.error
    : undefined
  return inner instanceof ValidationFailed ? inner : undefined
}

/** A change refused, as the audit trail records it: the method and path, the status, why, and the fields (never their values). */
export interface RefusedChange {
  readonly target: string
  readonly after: { readonly status: number; readonly reason: string; readonly fields?: ReadonlyArray<string> }
}

export interface SessionRules<S> {
  /** The panel the session is of, as its refusals name it to the person using it. */
  readonly panel: "console" | "portal"
  readonly find: (sessionId: string) => Effect.Effect<Option.Option<S>>
  readonly csrfOf: (session: S) => string
  /**
   * Why this session may not make this request (its role, a password to replace first), from the endpoint's
   * annotations; undefined: it may.
   */
  readonly forbids: (session: S, change: boolean, annotations: Context.Context<never>) => SessionForbidden | undefined
  readonly recordRefusal: (session: S, refused: RefusedChange) => Effect.Effect<void>
  /** The session's allowance, taken before any other check (a refused change counts too); none: unlimited. */
  readonly admit?: (sessionId: string) => Effect.Effect<void, TooManyAttempts, HttpServerRequest.HttpServerRequest>
}

/**
 * The checks of a request under a session cookie, then the handler with the session: 401 without a live session;
 * for a change, 403 without the session's CSRF token (compared in constant time), from another origin, or for a
 * role that may not make it, each recorded; a change answered 422 is recorded too (the fields' names only).
 */
export const guarded = <S>(rules: SessionRules<S>) =>
<A, E, R>(
  credential: Redacted.Redacted<string>,
  endpoint: { readonly annotations: Context.Context<never> },
  handle: (session: S, sessionId: string) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const sessionId = Redacted.value(credential)
    if (sessionId === "") return yield* notLoggedIn
    const found = yield* rules.find(sessionId)
    if (Option.isNone(found)) return yield* expired
    if (rules.admit !== undefined) yield* rules.admit(sessionId)
    const session = found.value
    const request = yield* HttpServerRequest.HttpServerRequest
    const change = !reads.has(request.method)
    const refused = (status: number, reason: string, fields?: ReadonlyArray<string>) =>
      rules.recordRefusal(session, {
        target: `${request.method} ${pathOf(request.url)}`,
        after: { status, reason, ...(fields === undefined ? {} : { fields }) }
      })
    const given = request.headers["x-csrf-token"]
    const forbidden = !change
      ? rules.forbids(session, false, endpoint.annotations)
      : given === undefined || !sameSecret(given, rules.csrfOf(session))
      ? badCsrf
      : !sameOrigin(request)
      ? crossOrigin(rules.panel)
      : rules.forbids(session, true, endpoint.annotations)
    if (forbidden !== undefined) {
      return yield* (change
        ? Effect.andThen(refused(403, forbidden.message), Effect.fail(forbidden))
        : Effect.fail(forbidden))
    }
    const handled = handle(session, sessionId)
    if (!change) return yield* handled
    return yield* Effect.tapError(handled, (error: unknown) => {
      const invalid = invalidInput(error)
      return invalid === undefined ? Effect.void : refused(422, invalid.message, Object.keys(invalid.errors))
    })
  })

/** The names of this machine's loopback, as a browser on it writes them in a URL. */
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

/** The Host header's name without its port (`[::1]:3000` is `[::1]`). */
const hostName = (host: string | undefined) => (host ?? "").trim().toLowerCase().replace(/:\d+$/, "")

/**
 * A session cookie scoped to `path`: HttpOnly and SameSite=Strict always; Secure everywhere but plain http on this
 * machine's loopback. A TLS proxy need not send X-Forwarded-Proto: a page reached by any other name is taken to be
 * behind https, since a browser would send the cookie in clear over plain http there.
 */
export const cookieOptions = (path: "/admin" | "/portal") =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const config = yield* AppConfig
    const https = request.headers["x-forwarded-proto"] === "https" ||
      Option.exists(config.publicUrl, (url) => url.startsWith("https://"))
    const plainLoopback = !https && loopbackHosts.has(hostName(request.headers.host))
    return { httpOnly: true, sameSite: "strict" as const, secure: !plainLoopback, path }
  })

/** Clears the session cookie on the answer (a log-out). */
export const expireCookie = (name: string, options: Parameters<typeof HttpServerResponse.expireCookie>[2]) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.orDie(HttpServerResponse.expireCookie(response, name, options))
  )

/** A 429 with Retry-After: the header on the answer, the seconds in its body too. */
export const tooMany = (message: string, retryAfterSeconds: number) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)))
  ).pipe(Effect.andThen(Effect.fail(new TooManyAttempts({ message, retry_after_seconds: retryAfterSeconds }))))

/**
 * An API's OpenAPI document at `path`, for a logged-in session only: it maps every operation the panel can make,
 * which is nobody else's business.
 */
export const sessionOpenApiRoute = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  path: `/${string}`,
  api: HttpApi.HttpApi<Id, Groups>,
  cookie: string,
  live: (sessionId: string) => Effect.Effect<boolean>
) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    let document: OpenApi.OpenAPISpec | undefined
    yield* router.add(
      "GET",
      path,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!(yield* live(request.cookies[cookie] ?? ""))) {
          return HttpServerResponse.jsonUnsafe({ success: false, message: "Log in first." }, {
            status: 401,
            headers: { "cache-control": "no-store" }
          })
        }
        return HttpServerResponse.jsonUnsafe(document ??= OpenApi.fromApi(api), {
          headers: { "cache-control": "no-store" }
        })
      })
    )
  }))
