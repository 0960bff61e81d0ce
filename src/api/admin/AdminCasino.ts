import { Schema } from "effect"
import { IsoDate } from "../../domain/IsoDate.ts"
import { studioAliasLimit, studioNameMaxLength } from "../../domain/Studios.ts"
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
/** An operator's alias: both names as studio keys (lower-case letters and digits). */
const StudioAliasView = Schema.Struct({
  alias: Schema.String.annotate({ description: "The key of the provider name taken as another studio" }),
  studio: Schema.String.annotate({ description: "The key of the studio it is taken as" })
})
const aliasParam = {
  alias: Schema.String.annotate({
    description: "The provider name as typed (\"PG Soft Games\") or its key; matched by its key"
  })
}
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
    HttpApiEndpoint.get("studioAliases", "/casino/studio-aliases", {
      success: Schema.Struct({
        success: Schema.Literal(true),
        /** By alias. */
        aliases: Schema.Array(StudioAliasView),
        limit: Schema.Int.annotate({ description: "The most aliases kept" })
      })
    }).annotateMerge(
      OpenApi.annotations({ summary: "The operator's studio aliases: names the matching by key misses, joined" })
    )
  )
  .add(
    HttpApiEndpoint.put("setStudioAlias", "/casino/studio-aliases/:alias", {
      params: aliasParam,
      payload: Schema.Struct({
        studio: Schema.String.annotate({ description: "The studio's name as typed (\"PG Soft\") or its key" })
      }),
      success: Schema.Struct({ success: Schema.Literal(true), alias: StudioAliasView }),
      error: ValidationFailed
    }).middleware(RequestValidation).annotateMerge(
      OpenApi.annotations({
        summary: "Take a provider name as another studio's (audited as casino.studio-alias); the catalogue follows",
        description:
          `Both names are stored as keys. A 422 names the field at fault: a name over ${studioNameMaxLength} ` +
          "characters or without a letter or digit, both names one studio, a chain (the alias is another alias's " +
          `studio, or the studio is itself an alias), or a new alias beyond ${studioAliasLimit}. Setting an alias ` +
          "kept changes its studio."
      })
    )
  )
  .add(
    HttpApiEndpoint.delete("removeStudioAlias", "/casino/studio-aliases/:alias", {
      params: aliasParam,
      success: Schema.Struct({ success: Schema.Literal(true), alias: StudioAliasView }),
      error: NotFound
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Remove a studio alias (audited as casino.studio-alias); answers the one removed"
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
