import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import { readFileSync } from "node:fs"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { sessionCookie } from "../../api/admin/AdminSecurity.ts"
import { AdminAccounts } from "../../identity/AdminAccounts.ts"

/**
 * The console's pages: one HTML shell and plain ES modules (no build step,
 * nothing from a CDN) that call the admin API. Every value reaches the page
 * as text (textContent), never as markup, and the Content-Security-Policy
 * allows scripts and styles from this service only.
 */
const panelDir = new URL("../panel/", import.meta.url)

const securityHeaders = {
  "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

/** The console's addresses: each serves the shell, whose script draws the page the path names. */
export const panelPages = [
  "",
  "/login",
  "/partners",
  "/portal-users",
  "/wallet",
  "/statements",
  "/stuck",
  "/casino",
  "/sports",
  "/system",
  "/audit",
  "/certification"
] as const

const assets: Record<string, string> = {
  "app.js": "text/javascript",
  "dom.js": "text/javascript",
  "session.js": "text/javascript",
  "partners.js": "text/javascript",
  "portal-users.js": "text/javascript",
  "wallet.js": "text/javascript",
  "operations.js": "text/javascript",
  "casino.js": "text/javascript",
  "system.js": "text/javascript",
  "certification.js": "text/javascript",
  "style.css": "text/css"
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" })[c]!)

/**
 * A panel's one HTML page: its title, its stylesheets and its shell script (`<base>/assets/app.js`), which draws the
 * page the path names into `main` and the bar into `top`.
 */
const shellHtml = (base: string, title: string, styles: ReadonlyArray<string>) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)}</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
${styles.map((name) => `  <link rel="stylesheet" href="${base}/assets/${name}">`).join("\n")}
  <script type="module" src="${base}/assets/app.js"></script>
</head>
<body>
  <a class="skip" href="#main">Skip to content</a>
  <header id="top"></header>
  <main id="main" tabindex="-1">
    <noscript><p class="notice error">This page needs JavaScript (served by this service; nothing from elsewhere).</p></noscript>
  </main>
</body>
</html>
`

/**
 * A panel's routes under `base`: the shell at each page's address, and each asset, read from `dir` unless it names
 * a folder of its own (a module another panel shares), at `<base>/assets/<name>`.
 */
export const panelRoutes = (options: {
  readonly base: "/admin" | "/portal"
  readonly title: string
  readonly styles: ReadonlyArray<string>
  readonly dir: URL
  readonly pages: ReadonlyArray<string>
  readonly assets: Readonly<Record<string, string | { readonly contentType: string; readonly dir: URL }>>
}) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const file = (dir: URL, name: string) => readFileSync(new URL(name, dir), "utf8")
    const shell = HttpServerResponse.text(shellHtml(options.base, options.title, options.styles), {
      contentType: "text/html; charset=utf-8",
      headers: securityHeaders
    })
    for (const page of options.pages) yield* router.add("GET", `${options.base}${page}`, Effect.succeed(shell))
    for (const [name, asset] of Object.entries(options.assets)) {
      const { contentType, dir } = typeof asset === "string" ? { contentType: asset, dir: options.dir } : asset
      const response = HttpServerResponse.text(file(dir, name), { contentType: `${contentType}; charset=utf-8`, headers: securityHeaders })
      yield* router.add("GET", `${options.base}/assets/${name}`, Effect.succeed(response))
    }
  }))

/** The console's modules, which the portal's pages share (served again under /portal/assets). */
export const sharedPanelAssets = {
  "dom.js": { contentType: "text/javascript", dir: panelDir },
  "session.js": { contentType: "text/javascript", dir: panelDir },
  "portal-users.js": { contentType: "text/javascript", dir: panelDir },
  "style.css": { contentType: "text/css", dir: panelDir }
} as const

export const PanelRoutes = panelRoutes({
  base: "/admin",
  title: "Operator console · Partner Aggregator API",
  styles: ["style.css"],
  dir: panelDir,
  pages: panelPages,
  assets
})

export const adminOpenApiPath = "/admin/api/openapi.json" as const


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
          return HttpServerResponse.jsonUnsafe({ success: false, message: "Log in first." }, { status: 401, headers: { "cache-control": "no-store" } })
        }
        return HttpServerResponse.jsonUnsafe(document ??= OpenApi.fromApi(api), { headers: { "cache-control": "no-store" } })
      })
    )
  }))

/** The admin API's OpenAPI document, for a logged-in admin only. */
export const AdminOpenApiRoute = Layer.unwrap(Effect.map(Effect.service(AdminAccounts), (accounts) =>
  sessionOpenApiRoute(adminOpenApiPath, AdminApi, sessionCookie, (sessionId) => Effect.map(accounts.session(sessionId), Option.isSome))))
