import { Effect, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { readFileSync } from "node:fs"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { sessionCookie } from "../../api/admin/AdminSecurity.ts"
import { AdminAccounts } from "../AdminAccounts.ts"

/**
 * The console's pages: one HTML shell and plain ES modules (no build step,
 * nothing from a CDN) that call the admin API. Every value reaches the page
 * as text (textContent), never as markup, and the Content-Security-Policy
 * allows scripts and styles from this service only.
 */
const panelFile = (name: string) => readFileSync(new URL(`../panel/${name}`, import.meta.url), "utf8")

const securityHeaders = {
  "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

/** The console's addresses: each serves the shell, whose script draws the page the path names. */
export const panelPages = ["", "/login", "/partners", "/wallet", "/statements", "/stuck", "/casino", "/sports", "/system", "/audit", "/certification"] as const

const assets: Record<string, string> = {
  "app.js": "text/javascript",
  "dom.js": "text/javascript",
  "session.js": "text/javascript",
  "partners.js": "text/javascript",
  "wallet.js": "text/javascript",
  "operations.js": "text/javascript",
  "casino.js": "text/javascript",
  "system.js": "text/javascript",
  "certification.js": "text/javascript",
  "style.css": "text/css"
}

export const PanelRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const shell = HttpServerResponse.text(panelFile("index.html"), { contentType: "text/html; charset=utf-8", headers: securityHeaders })
  for (const page of panelPages) yield* router.add("GET", `/admin${page}`, Effect.succeed(shell))
  for (const [name, contentType] of Object.entries(assets)) {
    const response = HttpServerResponse.text(panelFile(name), { contentType: `${contentType}; charset=utf-8`, headers: securityHeaders })
    yield* router.add("GET", `/admin/assets/${name}`, Effect.succeed(response))
  }
}))

export const adminOpenApiPath = "/admin/api/openapi.json"

/**
 * The admin API's OpenAPI document, for a logged-in admin only: it maps every operation the console can
 * make, which is nobody else's business.
 */
export const AdminOpenApiRoute = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const accounts = yield* AdminAccounts
  let document: OpenApi.OpenAPISpec | undefined
  yield* router.add(
    "GET",
    adminOpenApiPath,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const session = yield* accounts.session(request.cookies[sessionCookie] ?? "")
      if (Option.isNone(session)) {
        return HttpServerResponse.jsonUnsafe({ success: false, message: "Log in first." }, { status: 401, headers: { "cache-control": "no-store" } })
      }
      return HttpServerResponse.jsonUnsafe(document ??= OpenApi.fromApi(AdminApi), { headers: { "cache-control": "no-store" } })
    })
  )
}))
