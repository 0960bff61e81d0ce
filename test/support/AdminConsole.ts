import { Effect } from "effect"
import { HttpClient, HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import * as http from "node:http"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { AdminApi } from "../../src/api/admin/AdminApi.ts"
import { AdminAuth, csrfHeader, sessionCookie } from "../../src/api/admin/AdminSecurity.ts"
import type { AdminRole } from "../../src/domain/Admin.ts"

export const testPassword = "correct horse battery"

/** An admin account with a password of the test's choosing (no one-time password to replace). */
export const givenAdmin = (email: string, role: AdminRole = "operator", password = testPassword) =>
  Effect.flatMap(
    Effect.service(AdminAccounts),
    (accounts) => accounts.create({ name: "test", via: "cli" }, { email, role, password })
  ).pipe(Effect.orDie)

export interface AdminAnswer {
  readonly status: number
  readonly body: any
  readonly setCookie: ReadonlyArray<string>
  readonly headers: Record<string, string>
}

/** One request to the admin API (or the console's pages), with a session cookie and CSRF token when given. */
export const adminRequest = (
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  options: {
    readonly session?: AdminSession
    readonly csrf?: string | null
    readonly json?: unknown
    readonly headers?: Record<string, string>
  } = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const headers: Record<string, string> = { ...options.headers }
    if (options.session !== undefined) headers.cookie = options.session.cookie
    const csrf = options.csrf === undefined ? options.session?.csrf : options.csrf
    if (csrf !== undefined && csrf !== null) headers["x-csrf-token"] = csrf
    let req = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders(headers))
    if (options.json !== undefined) req = HttpClientRequest.bodyJsonUnsafe(req, options.json)
    const response = yield* client.execute(req)
    const text = yield* response.text
    const setCookie = response.headers["set-cookie"]
    return {
      status: response.status,
      body: response.headers["content-type"]?.includes("json") && text !== "" ? JSON.parse(text) : text,
      setCookie: setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie],
      headers: response.headers
    } satisfies AdminAnswer
  }).pipe(Effect.orDie)

export interface AdminSession {
  readonly cookie: string
  readonly csrf: string
}

/**
 * The typed client's side of AdminAuth: the session's cookie, and its CSRF token (which a change needs and
 * a read ignores); no session at all sends neither. A test of a refusal on the wire itself (a missing or
 * wrong token, a cross-origin change) sends the headers with `adminRequest` instead.
 */
export const asAdmin = (session?: AdminSession) =>
  HttpApiMiddleware.layerClient(
    AdminAuth,
    ({ next, request }) =>
      next(
        session === undefined
          ? request
          : HttpClientRequest.setHeaders(request, { cookie: session.cookie, [csrfHeader]: session.csrf })
      )
  )

/** The admin API's typed client (the contract's own encoding and decoding), as `session`: for reading the contract's answers. */
export const adminClient = (session?: AdminSession) =>
  HttpApiClient.make(AdminApi).pipe(Effect.provide(asAdmin(session)))

/** A session made by the service itself (no request): its cookie and CSRF token, as a log-in answers them. */
export const sessionOf = (email: string, password = testPassword, client = "192.0.2.1") =>
  Effect.flatMap(Effect.service(AdminAccounts), (accounts) => accounts.login(email, password, client)).pipe(
    Effect.map((session): AdminSession => ({
      cookie: `${sessionCookie}=${session.sessionId}`,
      csrf: session.csrfToken
    })),
    Effect.orDie
  )

/** Logs in through the API: the session cookie to send back and the CSRF token. */
export const loginAs = (email: string, password = testPassword) =>
  Effect.gen(function*() {
    const answer = yield* adminRequest("POST", "/admin/api/session", { json: { email, password } })
    if (answer.status !== 200) {
      return yield* Effect.die(new Error(`log-in refused: ${answer.status} ${JSON.stringify(answer.body)}`))
    }
    const cookie = answer.setCookie.find((line) => line.startsWith("admin_session="))!.split(";")[0]
    return { cookie, csrf: answer.body.csrf_token as string } satisfies AdminSession
  })

/**
 * A log-in over node:http with a Host header of the test's choosing (fetch never sends one of its own), as
 * a reverse proxy forwards the browser's: the Set-Cookie lines of the answer.
 */
export const loginWithHost = (host: string, email: string, password = testPassword) =>
  Effect.flatMap(
    Effect.service(HttpServer.HttpServer),
    (server) =>
      Effect.callback<{ status: number; setCookie: ReadonlyArray<string> }>((resume) => {
        const address = server.address
        if (address._tag === "UnixPathAddress") {
          return resume(Effect.die(new Error("the test server does not listen on TCP")))
        }
        const body = JSON.stringify({ email, password })
        const req = http.request({
          host: "127.0.0.1",
          port: address.port,
          method: "POST",
          path: "/admin/api/session",
          headers: { host, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
        }, (response) => {
          response.resume()
          response.on("end", () =>
            resume(
              Effect.succeed({ status: response.statusCode ?? 0, setCookie: response.headers["set-cookie"] ?? [] })
            ))
        })
        req.on("error", (error) => resume(Effect.die(error)))
        req.end(body)
      })
  )
