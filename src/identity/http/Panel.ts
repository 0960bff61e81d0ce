import { panelBasics } from "../../platform/PanelPages.ts"

const panelDir = new URL("../panel/", import.meta.url)

/**
 * The page modules both panels serve under their own assets: platform's DOM helpers and stylesheet, the session's
 * client (log-in, the bar, the password form: session.js) and a partner's users as an owner or an operator manages
 * them (portal-users.js), from identity's panel/.
 */
export const sharedPanelAssets = {
  ...panelBasics,
  "session.js": { contentType: "text/javascript", dir: panelDir },
  "portal-users.js": { contentType: "text/javascript", dir: panelDir }
} as const
