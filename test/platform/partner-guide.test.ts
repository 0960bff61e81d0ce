/**
 * The partner guide on the service (GET /docs/guide and /docs/guide/<page>): the same markdown files as the
 * repository's docs/partner-guide, rendered as static pages under a policy that runs no script, every link between
 * them leading to a page and an anchor that exist, and raw HTML in the markdown shown as text.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { guidePages, pagePath, renderMarkdown, servedHref } from "../../src/platform/PartnerGuide.ts"
import { live } from "../support/live.ts"
import { request, TestApp, textBody } from "../support/TestApp.ts"

const markdownOf = (page: string) =>
  readFileSync(new URL(`../../docs/partner-guide/${page}.md`, import.meta.url), "utf8")

const ids = (html: string) => new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]))

describe("the guide's markdown, rendered", () => {
  it("shows raw HTML as text, and links only to the guide, anchors and http(s)", () => {
    const html = renderMarkdown(
      "# Title\n\n<script>alert(1)</script>\n\nA <b>bold</b> [x](javascript:alert(1)) [y](../operators.md)"
    )
    assert.notInclude(html, "<script>")
    assert.include(html, "&lt;script&gt;")
    assert.notInclude(html, "<b>")
    assert.notInclude(html, "javascript:")
    assert.notInclude(html, "operators.md")
    assert.include(html, `<h1 id="title">Title</h1>`)
    assert.notInclude(renderMarkdown("<!-- a marker -->\n\ntext"), "marker")
    assert.strictEqual(servedHref("callbacks.md#the-signature"), "/docs/guide/callbacks#the-signature")
    assert.strictEqual(servedHref("README.md"), "/docs/guide")
    assert.strictEqual(servedHref("https://example.com/x"), "https://example.com/x")
    assert.isUndefined(servedHref("missing.md"))
  })
})

layer(TestApp(), live)("the partner guide, served", (it) => {
  it.effect("each page is static HTML under a scriptless policy, titled by its file's heading", () =>
    Effect.gen(function*() {
      for (const page of guidePages) {
        const response = yield* request("GET", pagePath(page))
        assert.strictEqual(response.status, 200, page)
        assert.strictEqual(response.contentType, "text/html; charset=utf-8", page)
        const policy = response.headers["content-security-policy"]
        assert.include(policy, "default-src 'none'", page)
        assert.notInclude(policy, "script-src", page)
        assert.notInclude(policy, "unsafe-inline", page)
        assert.include(policy, "frame-ancestors 'none'", page)
        assert.strictEqual(response.headers["x-content-type-options"], "nosniff", page)
        const html = textBody(response)
        assert.notInclude(html, "<script", page)
        const heading = /^# (.+)$/m.exec(markdownOf(page))![1].replaceAll("`", "")
        assert.match(html, new RegExp(`<h1 id="[^"]+">${heading.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")}</h1>`), page)
        // Every page links to every other, and to the API reference.
        for (const other of guidePages) assert.include(html, `href="${pagePath(other)}"`, page)
        assert.include(html, `href="/docs"`, page)
      }
      // The portal's page shows the docs' screenshots, served beside it.
      const portal = textBody(yield* request("GET", "/docs/guide/portal"))
      const images = [...portal.matchAll(/<img src="([^"]+)"/g)].map((match) => match[1])
      assert.isAbove(images.length, 3)
      for (const src of images) {
        const image = yield* request("GET", src)
        assert.deepStrictEqual([image.status, image.contentType], [200, "image/png"], src)
      }
      const unknown = yield* request("GET", "/docs/guide/nowhere")
      assert.strictEqual(unknown.status, 404)
    }))

  it.effect("every link between the pages leads to a page served and an anchor it has", () =>
    Effect.gen(function*() {
      const pages = new Map<string, string>()
      for (const page of guidePages) pages.set(pagePath(page), textBody(yield* request("GET", pagePath(page))))
      let links = 0
      for (const [path, html] of pages) {
        const main = html.slice(html.indexOf("<main>"))
        for (const [, href] of main.matchAll(/href="([^"]+)"/g)) {
          if (/^(https?:|mailto:)/.test(href)) continue
          const [target, anchor] = href.startsWith("#") ? [path, href.slice(1)] : href.split("#")
          const served = pages.get(target)
          assert.isDefined(served, `${path} links to ${href}`)
          if (anchor !== undefined) assert.isTrue(ids(served!).has(anchor), `${path} links to ${href}`)
          links++
        }
      }
      assert.isAbove(links, 30)
    }))

  it.effect("the API reference links to the guide, and the guide's index to the reference and the documents", () =>
    Effect.gen(function*() {
      assert.include(textBody(yield* request("GET", "/docs")), "/docs/guide")
      const index = textBody(yield* request("GET", "/docs/guide"))
      assert.include(index, "/api/partner/v1/openapi.json")
      assert.include(index, `href="/docs/guide/quickstart"`)
    }))
})
