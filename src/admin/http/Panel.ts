import { Effect, Layer, Option } from "effect"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { sessionCookie } from "../../api/admin/AdminSecurity.ts"
import { AdminAccounts } from "../../identity/AdminAccounts.ts"
import { sharedPanelAssets } from "../../identity/http/Panel.ts"
import { sessionOpenApiRoute } from "../../identity/http/SessionHttp.ts"
import { panelRoutes } from "../../platform/PanelPages.ts"

/** The console's pages (platform/PanelPages.ts): its own modules in panel/, beside the ones it shares with the portal. */
const panelDir = new URL("../panel/", import.meta.url)

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

const assets = {
  ...sharedPanelAssets,
  "app.js": "text/javascript",
  "partners.js": "text/javascript",
  "wallet.js": "text/javascript",
  "operations.js": "text/javascript",
  "casino.js": "text/javascript",
  "system.js": "text/javascript",
  "certification.js": "text/javascript"
}

export const PanelRoutes = panelRoutes({
  base: "/admin",
  title: "Operator console · Partner Aggregator API",
  styles: ["style.css"],
  dir: panelDir,
  pages: panelPages,
  assets
})

export const adminOpenApiPath = "/admin/api/openapi.json" as const

/** The admin API's OpenAPI document, for a logged-in admin only. */
export const AdminOpenApiRoute = Layer.unwrap(
  Effect.map(
    Effect.service(AdminAccounts),
    (accounts) =>
      sessionOpenApiRoute(
        adminOpenApiPath,
        AdminApi,
        sessionCookie,
        (sessionId) => Effect.map(accounts.session(sessionId), Option.isSome)
      )
  )
)
