import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { Marked, type Tokens } from "marked"
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"

/**
 * The partner guide (docs/partner-guide/*.md) served as HTML under /docs/guide: the same files a partner reads in the
 * repository, read once at start and rendered by `marked`, so there is no build step and nothing to keep in step.
 */

export const guidePath = "/docs/guide"

/** The pages, in the order a partner reads them: each file's name without `.md` is its path under /docs/guide. */
export const guidePages = [
  "README",
  "quickstart",
  "callbacks",
  "certification",
  "casino",
  "statements-and-reconciliation",
  "sports",
  "errors-and-limits",
  "going-live",
  "portal"
] as const

export type GuidePage = (typeof guidePages)[number]

const guideFolder = new URL("../../docs/partner-guide/", import.meta.url)

/** Where a page is served: the index at /docs/guide itself. */
export const pagePath = (page: GuidePage): `/${string}` => page === "README" ? guidePath : `${guidePath}/${page}`

const isPage = (name: string): name is GuidePage => (guidePages as ReadonlyArray<string>).includes(name)

const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;")
    .replaceAll("'", "&#39;")

/**
 * Where a link of a page leads on the service: another page of the guide (`callbacks.md#the-signature`), an anchor of
 * this page, or an http(s) or mailto address. Anything else (a file of the repository outside the guide, a
 * `javascript:` URL) leads nowhere here: undefined, and the link is shown as its text.
 */
export const servedHref = (href: string): string | undefined => {
  if (/^(https?:|mailto:)/i.test(href) || href.startsWith("#")) return href
  const match = /^(?:\.\/)?([a-z0-9-]+|README)\.md(#[\w-]*)?$/i.exec(href)
  if (match === null || !isPage(match[1])) return undefined
  return `${pagePath(match[1])}${match[2] ?? ""}`
}

/** The docs' screenshot an image of a page shows (`../screenshots/<name>.png`), by its file name. */
export const screenshotOf = (href: string) => /^\.\.\/screenshots\/([\w-]+\.png)$/.exec(href)?.[1]

const screenshotFolder = new URL("../../docs/screenshots/", import.meta.url)

/** A heading's anchor as GitHub writes it, so `page.md#anchor` links work in the repository and here alike. */
export const headingAnchor = (text: string) =>
  text.toLowerCase().replaceAll(/[`*]/g, "").replaceAll(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-")

/** One page's markdown as HTML. Raw HTML in the markdown is shown as text, never passed through; comments are dropped. */
export const renderMarkdown = (markdown: string): string => {
  const seen = new Map<string, number>()
  const marked = new Marked({
    gfm: true,
    renderer: {
      // A comment (a marker for the guide's tests) is dropped; any other HTML is shown as text.
      html: ({ text }) => /^\s*<!--[\s\S]*-->\s*$/.test(text) ? "" : escapeHtml(text),
      heading({ depth, text, tokens }) {
        const base = headingAnchor(text)
        const count = seen.get(base) ?? 0
        seen.set(base, count + 1)
        const id = count === 0 ? base : `${base}-${count}`
        return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`
      },
      link({ href, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens)
        const served = servedHref(href)
        return served === undefined ? inner : `<a href="${escapeHtml(served)}">${inner}</a>`
      },
      // The docs' screenshots are served beside the pages; any other image is shown by its alt text, never fetched.
      image: ({ href, text }: Tokens.Image) => {
        const served = screenshotOf(href)
        return served === undefined
          ? escapeHtml(text)
          : `<img src="${guidePath}/screenshots/${served}" alt="${escapeHtml(text)}" loading="lazy">`
      }
    }
  })
  return marked.parse(markdown, { async: false })
}

const style = `
body{font:16px/1.55 system-ui,sans-serif;color:#1f2933;margin:0;display:flex}
nav{flex:0 0 15rem;padding:1.5rem 1rem;border-right:1px solid #d9e2ec;min-height:100vh;background:#f8fafc}
nav a{display:block;padding:.2rem 0;color:#0f766e;text-decoration:none}nav a[aria-current]{font-weight:600}
main{flex:1;max-width:60rem;padding:1.5rem 2.5rem;overflow-wrap:anywhere}
a{color:#0f766e}code{background:#f1f5f9;padding:.1rem .25rem;border-radius:3px;font-size:.9em}
pre{background:#0f172a;color:#e2e8f0;padding:1rem;overflow:auto;border-radius:6px}pre code{background:none;padding:0}
table{border-collapse:collapse;display:block;overflow:auto}img{max-width:100%;border:1px solid #d9e2ec}th,td{border:1px solid #d9e2ec;padding:.35rem .6rem;vertical-align:top}
`

/** A static page: no script at all, styles allowed by hash only, nothing loaded from anywhere. */
const guidePolicy = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'`,
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

const titleOf = (markdown: string, page: GuidePage) => /^# (.+)$/m.exec(markdown)?.[1] ?? page

const pageHtml = (page: GuidePage, body: string, titles: ReadonlyMap<GuidePage, string>) => {
  const links = guidePages.map((other) =>
    `<a href="${pagePath(other)}"${other === page ? " aria-current=\"page\"" : ""}>${
      escapeHtml(titles.get(other) ?? other)
    }</a>`
  ).join("")
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(titles.get(page) ?? page)} · Partner guide</title>` +
    `<link rel="icon" href="/favicon.svg"><style>${style}</style></head>` +
    `<body><nav aria-label="Partner guide">${links}<a href="/docs">API reference</a></nav><main>${body}</main></body></html>`
}

/** Every page rendered, read from docs/partner-guide: a missing page fails the start, as a missing module would. */
export const renderGuide = Effect.fnUntraced(function*() {
  const sources = yield* Effect.forEach(guidePages, (page) =>
    Effect.map(
      Effect.promise(() => readFile(new URL(`${page}.md`, guideFolder), "utf8")),
      (markdown) => [page, markdown] as const
    ))
  const titles = new Map(sources.map(([page, markdown]) => [page, titleOf(markdown.replaceAll("`", ""), page)]))
  return new Map(sources.map(([page, markdown]) => [page, pageHtml(page, renderMarkdown(markdown), titles)]))
})

/** The screenshots the pages show, read once at start: a missing one fails the start, as a missing page does. */
const readScreenshots = Effect.fnUntraced(function*() {
  const names = new Set<string>()
  for (const page of guidePages) {
    const markdown = yield* Effect.promise(() => readFile(new URL(`${page}.md`, guideFolder), "utf8"))
    for (const [, href] of markdown.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const name = screenshotOf(href)
      if (name !== undefined) names.add(name)
    }
  }
  return yield* Effect.forEach(names, (name) =>
    Effect.map(
      Effect.promise(() => readFile(new URL(name, screenshotFolder))),
      (bytes) => [name, new Uint8Array(bytes)] as const
    ))
})

/** GET /docs/guide and /docs/guide/<page>: the guide's pages, rendered once at start, and the screenshots they show. */
export const partnerGuideRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  for (const [name, bytes] of yield* readScreenshots()) {
    const image = HttpServerResponse.uint8Array(bytes, {
      contentType: "image/png",
      headers: { "x-content-type-options": "nosniff", "cache-control": "public, max-age=3600" }
    })
    yield* router.add("GET", `${guidePath}/screenshots/${name}`, Effect.succeed(image))
  }
  const pages = yield* renderGuide()
  for (const [page, html] of pages) {
    const response = HttpServerResponse.text(html, {
      contentType: "text/html; charset=utf-8",
      headers: {
        "content-security-policy": guidePolicy,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-cache"
      }
    })
    yield* router.add("GET", pagePath(page), Effect.succeed(response))
  }
}))
