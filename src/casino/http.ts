import { Effect, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { ok } from "../api/Envelope.ts"
import { ErrorMessages, InternalError, ValidationFailed } from "../api/Errors.ts"
import { encodeWith, page } from "../api/Paging.ts"
import { GameEntryCodec, ProviderEntryCodec } from "../api/Casino.ts"
import { CurrentPartner } from "../api/Security.ts"
import { CasinoGame } from "../domain/Casino.ts"
import { toAmount } from "../domain/Money.ts"
import { AppConfig, publicBaseUrl } from "../platform/AppConfig.ts"
import { Casino } from "./Casino.ts"
import { CasinoCatalog } from "./CasinoCatalog.ts"

/** Art this service serves itself is stored as a path; partners get it under the public URL of the one answering. */
const withPublicArt = (publicBase: string) => (game: CasinoGame): CasinoGame =>
  game.image_url?.startsWith("/") ? new CasinoGame({ ...game, image_url: `${publicBase}${game.image_url}` }) : game

export const CasinoHandlers = HttpApiBuilder.group(
  PartnerApi,
  "casino",
  Effect.fn(function*(handlers) {
    const publicBase = publicBaseUrl(yield* AppConfig)
    const providerEntries = encodeWith(Schema.Array(ProviderEntryCodec))
    const gameEntries = encodeWith(Schema.Array(GameEntryCodec))

    return handlers
      .handle("providers", Effect.fn("CasinoHandlers.providers")(function*() {
        const partner = yield* CurrentPartner
        const catalog = yield* CasinoCatalog
        return ok(partner, { list: yield* providerEntries(yield* catalog.enabledProviders) })
      }))
      .handle("games", Effect.fn("CasinoHandlers.games")(function*({ query }) {
        const partner = yield* CurrentPartner
        const catalog = yield* CasinoCatalog
        const paging = page(query)
        const { games, total } = yield* catalog.games({
          provider: query.provider?.trim(),
          search: query.search,
          enabled: query.enabled === undefined ? undefined : query.enabled === "true",
          ...paging
        })
        return ok(partner, {
          games: yield* gameEntries(games.map(withPublicArt(publicBase))),
          meta: { page: paging.page, per_page: paging.perPage, total }
        })
      }))
      .handle("launch", Effect.fn("CasinoHandlers.launch")(function*({ payload }) {
        const partner = yield* CurrentPartner
        const casino = yield* Casino
        const launched = yield* casino.launch(partner, {
          externalPlayerId: payload.external_player_id,
          playerName: payload.player_name ?? null,
          playerEmail: payload.player_email ?? null,
          playerBalance: payload.player_balance,
          provider: payload.provider,
          gameCode: payload.game_code,
          original: payload.game_original ?? null,
          lang: payload.lang ?? null,
          rtp: payload.user_rtp ?? null
        })
        return ok(partner, {
          launch: { url: launched.url, rtp: launched.rtp },
          partner_player: { ...launched.player, balance: toAmount(launched.player.balance ?? 0) }
        })
      }, Effect.catchTags({
        LaunchRefused: (refused) =>
          Effect.fail(new ValidationFailed({ message: ErrorMessages.invalidData, errors: refused.errors })),
        // A plain message: what the aggregator said, and where it is, went to the log (Casino.launch).
        LaunchFailed: (failed) => Effect.fail(new InternalError({ message: failed.partnerMessage, provider: failed.gateway }))
      })))
  })
)
