import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { NotFound, UpstreamFailed } from "../../api/admin/AdminErrors.ts"
import { page } from "../../api/Paging.ts"
import { CasinoCatalog } from "../../casino/CasinoCatalog.ts"
import type { CasinoGame, CasinoProvider } from "../../domain/Casino.ts"
import { studioAliasLimit, type StudioServing } from "../../domain/Studios.ts"
import { CasinoAdmin } from "../../changes/CasinoAdmin.ts"
import { CasinoSyncAdmin } from "../../changes/CasinoSyncAdmin.ts"
import { AuditRepo } from "../../identity/AuditRepo.ts"
import { currentActor, invalid, notFound } from "./Common.ts"

const providerJson = (provider: CasinoProvider) => ({
  id: provider.id,
  slug: provider.slug,
  name: provider.name,
  enabled: provider.enabled,
  aggregator: provider.aggregator
})
const studioJson = (serving: StudioServing) => ({
  studio: serving.studio,
  names: serving.names,
  offered_by: serving.offeredBy,
  served_by: serving.servedBy,
  chosen: serving.chosen
})
const gameJson = (game: CasinoGame) => ({
  game_code: game.gameCode,
  name: game.name,
  provider: game.providerSlug,
  enabled: game.enabled
})

/** The contract's "casino" group (src/api/admin/AdminCasino.ts). */
export const AdminCasinoHandlers = HttpApiBuilder.group(
  AdminApi,
  "casino",
  Effect.fn(function*(handlers) {
    const catalog = yield* CasinoCatalog
    const changes = yield* CasinoAdmin
    const syncs = yield* CasinoSyncAdmin
    const audit = yield* AuditRepo
    return handlers
      .handle(
        "providers",
        () =>
          Effect.all([catalog.allProviders, catalog.studios, audit.list({ target: "casino:catalog", limit: 10 })]).pipe(
            Effect.map(([providers, studios, syncs]) => ({
              success: true as const,
              providers: providers.map(providerJson),
              studios: studios.filter((serving) => serving.offeredBy.length > 1).map(studioJson),
              syncs: syncs.map((entry) => ({
                at: entry.at,
                actor: `${entry.actor} (${entry.via})`,
                changes: entry.after
              }))
            }))
          )
      )
      .handle("games", ({ query }) => {
        const paging = page(query)
        const search = query.search?.trim()
        const provider = query.provider?.trim()
        return Effect.map(
          catalog.games({
            provider: provider === "" ? undefined : provider,
            search: search === "" ? undefined : search,
            page: paging.page,
            perPage: paging.perPage
          }).pipe(
            // The console filters by a provider it listed: one gone since (a sync) lists nothing, as before.
            Effect.catchTag("UnknownProvider", () => Effect.succeed({ games: [], total: 0 }))
          ),
          (found) => ({
            success: true as const,
            games: found.games.map(gameJson),
            meta: { page: paging.page, per_page: paging.perPage, total: found.total }
          })
        )
      })
      .handle(
        "setProvider",
        ({ params }) =>
          Effect.flatMap(
            currentActor,
            (actor) => changes.setProviderEnabled(actor, params.provider, params.action === "enable")
          ).pipe(
            Effect.mapError((error) => new NotFound({ message: error.message })),
            Effect.map((provider) => ({ success: true as const, provider: providerJson(provider) }))
          )
      )
      .handle(
        "setGame",
        ({ params }) =>
          Effect.flatMap(
            currentActor,
            (actor) => changes.setGameEnabled(actor, params.provider, params.game_code, params.action === "enable")
          ).pipe(
            Effect.mapError((error) => new NotFound({ message: error.message })),
            Effect.map((game) => ({ success: true as const, game: gameJson(game) }))
          )
      )
      .handle(
        "serveStudio",
        ({ params }) =>
          Effect.flatMap(currentActor, (actor) => changes.setStudioServer(actor, params.studio, params.aggregator))
            .pipe(
              Effect.andThen(catalog.studios),
              Effect.map((studios) => studios.find((serving) => serving.studio === params.studio)!),
              Effect.mapError((error) => new NotFound({ message: error.message })),
              Effect.map((serving) => ({ success: true as const, studio: studioJson(serving) }))
            )
      )
      .handle(
        "studioAliases",
        () =>
          Effect.map(catalog.studioAliases, (aliases) => ({
            success: true as const,
            aliases: [...aliases].map(([alias, studio]) => ({ alias, studio }))
              .sort((a, b) => a.alias.localeCompare(b.alias)),
            limit: studioAliasLimit
          }))
      )
      .handle(
        "setStudioAlias",
        ({ params, payload }) =>
          Effect.flatMap(currentActor, (actor) => changes.setStudioAlias(actor, params.alias, payload.studio)).pipe(
            Effect.mapError((refused) => invalid(refused.field, refused.message)),
            Effect.map((alias) => ({ success: true as const, alias }))
          )
      )
      .handle(
        "removeStudioAlias",
        ({ params }) =>
          Effect.flatMap(currentActor, (actor) => changes.removeStudioAlias(actor, params.alias)).pipe(
            Effect.mapError(notFound),
            Effect.map((alias) => ({ success: true as const, alias }))
          )
      )
      .handle("sync", () =>
        Effect.flatMap(currentActor, (actor) => syncs.sync(actor)).pipe(
          Effect.mapError((error) =>
            new UpstreamFailed({ message: `The casino catalog could not be synced: ${error.message}` })
          ),
          Effect.map((report) => ({ success: true as const, changes: report }))
        ))
  })
)
