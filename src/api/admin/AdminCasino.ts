import { Schema } from "effect"
import { IsoDate } from "../../domain/IsoDate.ts"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PageMeta, PageQuery, PerPageQuery } from "../Paging.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { NotFound, UpstreamFailed, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth } from "./AdminSecurity.ts"

const ProviderView = Schema.Struct({
  id: Schema.Int,
  slug: Schema.String,
  name: Schema.String,
  enabled: Schema.Boolean
})
const GameView = Schema.Struct({
  game_code: Schema.String,
  name: Schema.String,
  provider: Schema.String,
  enabled: Schema.Boolean
})
const Counts = Schema.Struct({ added: Schema.Int, changed: Schema.Int, absent: Schema.Int })
export const SyncView = Schema.Struct({ providers: Counts, games: Counts })
const SyncRecord = Schema.Struct({ at: IsoDate, actor: Schema.String, changes: Schema.Unknown })

export class AdminCasinoGroup extends HttpApiGroup.make("casino")
  .add(
    HttpApiEndpoint.get("providers", "/casino/providers", {
      success: Schema.Struct({
        success: Schema.Literal(true),
        providers: Schema.Array(ProviderView),
        syncs: Schema.Array(SyncRecord)
      })
    }).annotateMerge(
      OpenApi.annotations({ summary: "Every provider, and the last syncs made from the console or the CLI" })
    )
  )
  .add(
    HttpApiEndpoint.get("games", "/casino/games", {
      query: {
        provider: Schema.optional(Schema.String),
        search: Schema.optional(Schema.String),
        page: Schema.optional(PageQuery),
        per_page: Schema.optional(PerPageQuery)
      },
      success: Schema.Struct({ success: Schema.Literal(true), games: Schema.Array(GameView), meta: PageMeta }),
      error: ValidationFailed
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.post("setProvider", "/casino/providers/:provider/:action", {
      params: { provider: Schema.String, action: Schema.Literals(["enable", "disable"]) },
      success: Schema.Struct({ success: Schema.Literal(true), provider: ProviderView }),
      error: NotFound
    })
  )
  .add(
    HttpApiEndpoint.post("setGame", "/casino/games/:provider/:game_code/:action", {
      params: { provider: Schema.String, game_code: Schema.String, action: Schema.Literals(["enable", "disable"]) },
      success: Schema.Struct({ success: Schema.Literal(true), game: GameView }),
      error: NotFound
    })
  )
  .add(
    HttpApiEndpoint.post("sync", "/casino/sync", {
      success: Schema.Struct({ success: Schema.Literal(true), changes: SyncView }),
      error: UpstreamFailed
    }).annotateMerge(
      OpenApi.annotations({ summary: "Sync the local catalog from the aggregator now; answers what changed" })
    )
  )
  .middleware(AdminAuth)
{}
