import { HttpApi, OpenApi } from "effect/http-api"
import { AccountGroup } from "./Account.ts"
import { CasinoGroup } from "./Casino.ts"
import { CatalogGroup } from "./Catalog.ts"
import { CertificationGroup } from "./Certification.ts"
import { partnerApiPrefix } from "../domain/Partner.ts"
import { documentPartnerApi } from "./Documentation.ts"
import { PartnerAuth } from "./Security.ts"
import { SandboxGroup } from "./Sandbox.ts"
import { SportsGroup } from "./Sports.ts"
import { StatementsGroup } from "./Statements.ts"
import { SportsStreamGroup } from "./SportsStream.ts"
import { WalletGroup } from "./Wallet.ts"

export const apiPrefix = partnerApiPrefix

/**
 * The partner API contract (docs/partner-api-v1.md). Server
 * handlers, the OpenAPI document and the typed client all derive from it.
 */
export class PartnerApi extends HttpApi.make("partner-api")
  .add(AccountGroup)
  .add(CasinoGroup)
  .add(SportsGroup)
  .add(CatalogGroup)
  .add(SportsStreamGroup)
  .add(WalletGroup)
  .add(CertificationGroup)
  .add(StatementsGroup)
  .add(SandboxGroup)
  .prefix(apiPrefix)
  .middleware(PartnerAuth)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all" })
  .annotate(HttpApi.QueryParseOptions, { errors: "all" })
  .annotateMerge(OpenApi.annotations({
    title: "Partner Aggregator API",
    version: "1.0.0",
    description: "One gateway for casino (providers, games, launch) and sports (catalog, feeds, provider data).\n\n" +
      "Authenticate with `Authorization: Bearer <token>` or `X-Partner-Key: <token>` (either one; \"Try it\" " +
      "offers both). Every answer is a JSON envelope: `{success: true, partner, data}` with the endpoint's keys " +
      "under `data`, or `{success: false, message}` with `errors` (each failing field and its messages) on a 422. " +
      "Query values are read strictly: an integer is plain decimal digits, and a value that cannot be read is a 422 " +
      "naming the field. Each partner may send a number of requests a minute: every answer after authentication " +
      "carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds), and past the limit the " +
      "answer is a 429 with `Retry-After` (seconds).\n\n" +
      "The partner guide, from a test token to going live (the callbacks, their signature, certification, " +
      "statements), is at [/docs/guide](/docs/guide); the callbacks this service sends are the documents' webhooks.",
    transform: documentPartnerApi
  }))
{}
