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
  enabled: Schema.Boolean,
  /** The aggregator whose provider it is. */
  aggregator: Schema.String
})
const GameView = Schema.Struct({
  game_code: Schema.String,
  name: Schema.String,
  provider: Schema.String,
  enabled: Schema.Boolean
})
/** A studio more than one aggregator offers, and the one serving it (the operator's choice, or CASINO_GATEWAY's first). */
const StudioView = Schema.Struct({
  studio: Schema.String,
  names: Schema.Array(Schema.Struct({ aggregator: Schema.String, name: Schema.String })),
  offered_by: Schema.Array(Schema.String),
  served_by: Schema.String,
  chosen: Schema.Boolean
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
        /** The studios several aggregators offer. */
        studios: Schema.Array(StudioView),
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
    HttpApiEndpoint.post("serveStudio", "/casino/studios/:studio/serve/:aggregator", {
      params: { studio: Schema.String, aggregator: Schema.String },
      success: Schema.Struct({ success: Schema.Literal(true), studio: StudioView }),
      error: NotFound
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Serve a studio several aggregators offer from this one; the others' games leave"
      })
    )
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
