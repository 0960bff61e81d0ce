import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import type { PartnerAccess } from "../domain/Partner.ts"
import { TooManyRequests, Unauthorized } from "./Errors.ts"

/** The authenticated partner of the current request, and the environment its token belongs to. */
export class CurrentPartner
  extends Context.Service<CurrentPartner, PartnerAccess>()("partner-api/api/CurrentPartner")
{}

/**
 * Partner authentication: `Authorization: Bearer <token>` or
 * `X-Partner-Key: <token>`, either accepted. The schemes are tried in this
 * order and the last failure is the one answered. An admitted partner over
 * its rate limit is answered 429, and so is an address past its invalid
 * tokens (AUTH_FAILURE_LIMIT).
 */
export class PartnerAuth extends HttpApiMiddleware.Service<PartnerAuth, {
  provides: CurrentPartner
}>()("partner-api/api/PartnerAuth", {
  security: {
    // Spelled `bearer`, the form OpenAPI's examples and the docs page's "Try it" know (`Bearer` made it ask
    // for Basic credentials); the server reads the scheme in any case, as RFC 9110 says.
    bearer: HttpApiSecurity.http({ scheme: "bearer" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "`Authorization: Bearer <token>`, the partner's token: `pak_live_…` (live) or `pak_test_…` (test: only the sandboxes, never real money; the envelope's `partner.environment` says which)"
      )
    ),
    partnerKey: HttpApiSecurity.apiKey({ key: "X-Partner-Key", in: "header" }).pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "`X-Partner-Key: <token>`, the same token (live or test) in a header of its own"
      )
    )
  },
  // Auth also applies the partner's rate limit and the per-address limit on invalid tokens (429), so every operation answers both.
  error: [Unauthorized, TooManyRequests],
  requiredForClient: true
}) {}

/**
 * The services PartnerUpstreams provides, named by the area that provides them (src/upstreams/Upstreams.ts adds its
 * services to this interface): the contract names no service of the areas above it, and its handlers still take
 * those services as provided.
 */
export interface PartnerUpstreamServices {}

/**
 * The upstreams the partner's token reaches (src/upstreams), in the context of every request of the groups that
 * use them: the casino aggregator, the sports provider, the services over them. A handler takes them as it takes
 * any service; which environment they are of is this middleware's business (a test token's are the sandboxes).
 * It runs after PartnerAuth, whose partner it reads.
 */
export class PartnerUpstreams extends HttpApiMiddleware.Service<PartnerUpstreams, {
  requires: CurrentPartner
  provides: PartnerUpstreamServices[keyof PartnerUpstreamServices]
}>()("partner-api/api/PartnerUpstreams") {}
