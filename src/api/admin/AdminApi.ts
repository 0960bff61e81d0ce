import { HttpApi, OpenApi } from "effect/http-api"
import { AdminCasinoGroup } from "./AdminCasino.ts"
import { AdminCertificationsGroup } from "./AdminCertifications.ts"
import { AdminOperationsGroup } from "./AdminOperations.ts"
import { AdminPartnersGroup } from "./AdminPartners.ts"
import { AdminPartnerUsersGroup } from "./AdminPartnerUsers.ts"
import { AdminLoginGroup, AdminSessionGroup } from "./AdminSession.ts"
import { AdminSystemGroup } from "./AdminSystem.ts"
import { AdminWalletGroup } from "./AdminWallet.ts"

export const adminApiPrefix = "/admin/api"

/**
 * The operator console's API, apart from the partner API: its own security
 * (a session cookie and a CSRF token), its own OpenAPI document
 * (`/admin/api/openapi.json`, for a logged-in admin). The console's pages call it.
 */
export class AdminApi extends HttpApi.make("admin-api")
  .add(AdminLoginGroup)
  .add(AdminSessionGroup)
  .add(AdminPartnersGroup)
  .add(AdminPartnerUsersGroup)
  .add(AdminWalletGroup)
  .add(AdminCasinoGroup)
  .add(AdminSystemGroup)
  .add(AdminCertificationsGroup)
  .add(AdminOperationsGroup)
  .prefix(adminApiPrefix)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all" })
  .annotate(HttpApi.QueryParseOptions, { errors: "all" })
  .annotateMerge(OpenApi.annotations({
    title: "Partner Aggregator API: operator console",
    version: "1.0.0",
    description: "What the console at /admin calls. Log in with `POST /admin/api/session` (a session cookie, " +
      "HttpOnly and SameSite=Strict); every request but a GET also carries the session's CSRF token in " +
      "`X-CSRF-Token`. A `viewer` reads; an `operator` also changes. Answers are `{success: true, ...}` or " +
      "`{success: false, message}`."
  }))
{}
