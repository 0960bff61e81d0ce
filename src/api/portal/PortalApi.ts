import { HttpApi, OpenApi } from "effect/http-api"
import { PortalCertificationsGroup } from "./PortalCertifications.ts"
import { PortalUsageGroup, PortalWalletGroup } from "./PortalData.ts"
import { PortalTokensGroup, PortalWebhooksGroup } from "./PortalIntegration.ts"
import { PortalLoginGroup, PortalSessionGroup } from "./PortalSession.ts"
import { PortalStatementsGroup } from "./PortalStatements.ts"
import { PortalUsersGroup } from "./PortalUsers.ts"

export const portalApiPrefix = "/portal/api"

const about = OpenApi.annotations({
  title: "Partner Aggregator API: partner portal",
  version: "1.0.0",
  description:
    "What the partner portal at /portal calls, for a partner's own users. Log in with `POST /portal/api/session` " +
    "(a session cookie, HttpOnly, SameSite=Strict, Path=/portal); every request but a GET also carries the session's CSRF " +
    "token in `X-CSRF-Token`. A `viewer` reads; a `developer` also changes tokens and webhooks; an `owner` also manages " +
    "users. Answers are `{success: true, ...}` or `{success: false, message}`."
})

/**
 * The partner portal's API, apart from the partner API and the console's: its own security (a session cookie with
 * Path=/portal and a CSRF token), its own OpenAPI document (`/portal/api/openapi.json`, for a logged-in partner
 * user). Every call is the session's partner's: nothing answers another partner's data. Input is read as the
 * console's is: every failing field named at once.
 */
export class PortalApi extends HttpApi.make("portal-api")
  .add(
    PortalLoginGroup,
    PortalSessionGroup,
    PortalTokensGroup,
    PortalWebhooksGroup,
    PortalWalletGroup,
    PortalStatementsGroup,
    PortalUsageGroup,
    PortalCertificationsGroup,
    PortalUsersGroup
  )
  .prefix(portalApiPrefix)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all" })
  .annotate(HttpApi.QueryParseOptions, { errors: "all" })
  .annotateMerge(about)
{}
