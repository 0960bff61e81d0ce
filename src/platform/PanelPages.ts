import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { readFileSync } from "node:fs"

/**
 * How a panel's pages are served, the operator console's and the partner portal's alike: one HTML shell and plain ES
 * modules (no build step, nothing from a CDN). Every value reaches a page as text (textContent), never as markup,
 * and the Content-Security-Policy allows scripts and styles from this service only.
 */

const securityHeaders = {
  "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" })[c]!)

/**
 * A panel's one HTML page: its title, its stylesheets and its shell script (`<base>/assets/app.js`), which draws the
 * page the path names into `main` and the bar into `top`.
 */
const shellHtml = (base: string, title: string, styles: ReadonlyArray<string>) =>
  `<!doctype html>
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

/** A module or stylesheet a panel serves: its content type, and the folder it lives in when not the panel's own. */
export type PanelAsset = string | { readonly contentType: string; readonly dir: URL }

/**
 * A panel's routes under `base`: the shell at each page's address, and each asset, read from `dir` unless it names
 * a folder of its own (a module the panels share), at `<base>/assets/<name>`.
 */
export const panelRoutes = (options: {
  readonly base: "/admin" | "/portal"
  readonly title: string
  readonly styles: ReadonlyArray<string>
  readonly dir: URL
  readonly pages: ReadonlyArray<string>
  readonly assets: Readonly<Record<string, PanelAsset>>
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
      const response = HttpServerResponse.text(file(dir, name), {
        contentType: `${contentType}; charset=utf-8`,
        headers: securityHeaders
      })
      yield* router.add("GET", `${options.base}/assets/${name}`, Effect.succeed(response))
    }
  }))

const panelDir = new URL("./panel/", import.meta.url)

/** The DOM helpers and the stylesheet every panel's pages start from (panel/), served under each panel's assets. */
export const panelBasics = {
  "dom.js": { contentType: "text/javascript", dir: panelDir },
  "style.css": { contentType: "text/css", dir: panelDir }
} as const
