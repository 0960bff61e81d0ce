import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { type HttpApi, type HttpApiGroup, HttpApiScalar, OpenApi } from "effect/http-api"
import { toOpenApi30 } from "./OpenApi30.ts"

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

/**
 * The docs page of `api` (Scalar, bundled: no CDN), its OpenAPI documents
 * under `apiPrefix`, `/` leading to the docs page, and the favicon browsers
 * ask every page for.
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
    }),
    HttpRouter.use(Effect.fnUntraced(function*(router) {
      // Built once, on first use: the contract does not change while the process runs.
      let v31: OpenApi.OpenAPISpec | undefined
      let v30: Record<string, unknown> | undefined
      const openApi31 = () => (v31 ??= OpenApi.fromApi(api))
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
