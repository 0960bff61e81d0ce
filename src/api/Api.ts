import { HttpApi, OpenApi } from "effect/http-api"
import { AccountGroup } from "./Account.ts"
import { CasinoGroup } from "./Casino.ts"
import { CatalogGroup } from "./Catalog.ts"
import { PartnerAuth } from "./Security.ts"
import { SportsGroup } from "./Sports.ts"
import { WalletGroup } from "./Wallet.ts"

export const apiPrefix = "/api/partner/v1"

/**
 * The partner API contract (../shared/spec/partner-api-v1.md). Server
 * handlers, the OpenAPI document and the typed client all derive from it.
 */
export class PartnerApi extends HttpApi.make("partner-api")
  .add(AccountGroup)
  .add(CasinoGroup)
  .add(SportsGroup)
  .add(CatalogGroup)
  .add(WalletGroup)
  .prefix(apiPrefix)
  .middleware(PartnerAuth)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all" })
  .annotate(HttpApi.QueryParseOptions, { errors: "all" })
  .annotateMerge(OpenApi.annotations({
    title: "Partner Aggregator API",
    version: "1.0.0",
    description: "One gateway for casino (providers, games, launch) and sports (catalog, feeds, provider data). " +
      "Every answer is a JSON envelope; authenticate with `Authorization: Bearer <token>` or `X-Partner-Key: <token>`."
  }))
{}
