import { Effect, Layer, Option } from "effect"
import { PortalApi, portalApiPrefix } from "../../api/portal/PortalApi.ts"
import { portalSessionCookie } from "../../api/portal/PortalSecurity.ts"
import { sharedPanelAssets } from "../../identity/http/Panel.ts"
import { sessionOpenApiRoute } from "../../identity/http/SessionHttp.ts"
import { PartnerUsers } from "../../identity/PartnerUsers.ts"
import { panelRoutes } from "../../platform/PanelPages.ts"

/** The portal's addresses: each serves the shell, whose script draws the page the path names. */
export const portalPages = [
  "",
  "/login",
  "/invitation",
  "/tokens",
  "/webhooks",
  "/wallet",
  "/statements",
  "/usage",
  "/certification",
  "/users",
  "/account"
] as const

/**
 * The portal's pages, as the console's are made (platform/PanelPages.ts: one shell, plain ES modules, the same
 * Content-Security-Policy), its own modules beside the ones both panels share (the API client and the DOM helpers),
 * all under /portal/assets.
 */
export const PortalPanelRoutes = panelRoutes({
  base: "/portal",
  title: "Partner portal · Partner Aggregator API",
  styles: ["style.css", "portal.css"],
  dir: new URL("../panel/", import.meta.url),
  pages: portalPages,
  assets: {
    ...sharedPanelAssets,
    "app.js": "text/javascript",
    "who.js": "text/javascript",
    "integration.js": "text/javascript",
    "data.js": "text/javascript",
    "statements.js": "text/javascript",
    "certification.js": "text/javascript",
    "users.js": "text/javascript",
    "portal.css": "text/css"
  }
})

/** The portal API's OpenAPI document, for a logged-in partner user only. */
export const PortalOpenApiRoute = Layer.unwrap(
  Effect.map(
    Effect.service(PartnerUsers),
    (users) =>
      sessionOpenApiRoute(
        `${portalApiPrefix}/openapi.json`,
        PortalApi,
        portalSessionCookie,
        (sessionId) => Effect.map(users.session(sessionId), Option.isSome)
      )
  )
)
