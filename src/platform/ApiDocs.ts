import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import { type HttpApi, type HttpApiGroup, HttpApiScalar, OpenApi } from "effect/http-api"
import { AppConfig } from "./AppConfig.ts"
import { toOpenApi30 } from "./OpenApi30.ts"
import { partnerGuideRoutes } from "./PartnerGuide.ts"

/** Where a contract's machine-readable descriptions are served under its prefix, without a token. */
export const openApiPaths = (apiPrefix: `/${string}`) => ({
  /** OpenAPI 3.0.3, as the contract promises: what partner tooling should read. */
  v30: `${apiPrefix}/openapi.json` as const,
  /** The same contract as OpenAPI 3.1, as effect writes it. */
  v31: `${apiPrefix}/openapi-3.1.json` as const
})

export const docsPath = "/docs"

/** A small mark for browser tabs, inline so the docs page needs nothing from outside. */
const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
  `<rect width="32" height="32" rx="7" fill="#0f766e"/>` +
  `<path d="M9 23V9h7.5a4.5 4.5 0 0 1 0 9H13v5z" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round"/>` +
  `</svg>`

const faviconResponse = HttpServerResponse.text(faviconSvg, {
  contentType: "image/svg+xml",
  headers: { "cache-control": "public, max-age=86400" }
})

/** The SHA-256 of each inline script of a page, as a Content-Security-Policy names it. */
const scriptHashes = (html: string) =>
  [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) =>
    `'sha256-${createHash("sha256").update(match[1]).digest("base64")}'`
  )

/**
 * The docs page shares this service's origin with the operator console (/admin), so a script injected
 * into it could call the console's API with an admin's cookie. Its policy runs only the page's own
 * scripts (Scalar's bundle and its start, both inline: allowed by hash), loads nothing from elsewhere,
 * and sends requests ("Try it") only here. Scalar writes its styles at run time, hence 'unsafe-inline'
 * for styles alone.
 */
const docsPolicy = (html: string) =>
  [
    "default-src 'none'",
    `script-src ${scriptHashes(html).join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")

/** The page is built once (the contract does not change while the process runs), so its policy is too. */
const policies = new WeakMap<object, string>()

const DocsPageSecurity = HttpRouter.middleware((httpEffect) =>
  Effect.map(httpEffect, (response) => {
    if (response.body._tag !== "Uint8Array") return response
    const body = response.body
    let policy = policies.get(body)
    if (policy === undefined) {
      policy = docsPolicy(body.text ?? new TextDecoder().decode(body.body))
      policies.set(body, policy)
    }
    return HttpServerResponse.setHeaders(response, {
      "content-security-policy": policy,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer"
    })
  })
).layer

/**
 * The documents' `servers`: PUBLIC_URL when it is set; otherwise "/", which OpenAPI reads relative to where the
 * document was fetched from, so it names this service's origin however it was reached (localhost:PORT would be
 * wrong from anywhere else). The Scalar page is not given them: its "Try it" may send only to the page's own origin
 * (its policy's connect-src), which it does when a document names no server.
 */
export const serversOf = (publicUrl: Option.Option<string>) =>
  Option.match(publicUrl, {
    onNone: () => [{ url: "/", description: "This service: the origin this document was read from" }],
    onSome: (url) => [{ url, description: "This service (its PUBLIC_URL)" }]
  })

/**
 * The docs page of `api` (Scalar, bundled: no CDN), its OpenAPI documents
 * under `apiPrefix` (with `servers`), the partner guide under /docs/guide, `/` leading to the docs page, and the
 * favicon browsers ask every page for.
 */
export const apiDocsRoutes = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  apiPrefix: `/${string}`
) => {
  const paths = openApiPaths(apiPrefix)
  return Layer.mergeAll(
    HttpApiScalar.layer(api, {
      path: docsPath,
      scalar: { withDefaultFonts: false, favicon: "/favicon.ico" }
    }).pipe(Layer.provide(DocsPageSecurity)),
    partnerGuideRoutes,
    HttpRouter.use(Effect.fnUntraced(function*(router) {
      const servers = serversOf((yield* AppConfig).publicUrl)
      // Built once, on first use: the contract does not change while the process runs.
      let v31: OpenApi.OpenAPISpec | undefined
      let v30: Record<string, unknown> | undefined
      const openApi31 = () => (v31 ??= { ...OpenApi.fromApi(api), servers })
      yield* router.add("GET", paths.v31, Effect.sync(() => HttpServerResponse.jsonUnsafe(openApi31())))
      yield* router.add(
        "GET",
        paths.v30,
        Effect.sync(() => HttpServerResponse.jsonUnsafe(v30 ??= toOpenApi30(openApi31())))
      )
      yield* router.add("GET", "/", Effect.succeed(HttpServerResponse.redirect(docsPath, { status: 302 })))
      yield* router.add("GET", "/favicon.ico", Effect.succeed(faviconResponse))
      yield* router.add("GET", "/favicon.svg", Effect.succeed(faviconResponse))
    }))
  )
}
