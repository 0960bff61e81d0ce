import { Effect, Layer, Option } from "effect"
import { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import { CasinoCatalogRepo } from "./CasinoCatalogRepo.ts"
import { type GameRecord, isProviderId, type ProviderRecord } from "./CasinoCatalogRules.ts"

interface StoredProvider extends ProviderRecord {
  readonly id: number
  readonly operatorEnabled: boolean
}

interface StoredGame extends GameRecord {
  readonly id: number
  readonly operatorEnabled: boolean
}

/** Names in the order partners see them: case-insensitive, numbers by value (PostgreSQL's natural_ci, near enough). */
const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true, sensitivity: "base" })

/**
 * The casino catalog's tables in memory, with the `_status` views' rule
 * (enabled = the operator's switch, the aggregator's flag, listed, and for
 * a game its provider enabled), for tests of CasinoCatalog without a
 * database. Changes reach the listeners of this one instance.
 */
export const CasinoCatalogRepoMemory = Layer.sync(CasinoCatalogRepo, () => {
  const providers = new Map<string, StoredProvider>()
  const games = new Map<string, StoredGame>()
  const listeners: Array<Effect.Effect<void>> = []
  let nextId = 1

  const providerEnabled = (p: StoredProvider) => p.operatorEnabled && p.upstreamEnabled && p.presentUpstream
  const toProvider = (p: StoredProvider) =>
    new CasinoProvider({ id: p.id, slug: p.slug, name: p.name, upstream_code: p.upstreamCode, enabled: providerEnabled(p) })
  const toGame = (g: StoredGame) => {
    const provider = providers.get(g.providerCode)!
    return new CasinoGame({
      id: g.id,
      game_code: g.gameCode,
      name: g.name,
      provider_id: provider.id,
      provider_slug: provider.slug,
      provider_upstream_code: provider.upstreamCode,
      enabled: g.operatorEnabled && g.upstreamEnabled && g.presentUpstream && providerEnabled(provider),
      image_url: g.imageUrl,
      original: g.original
    })
  }
  const providerByRef = (ref: string) =>
    [...providers.values()].find((p) => isProviderId(ref) ? p.id === Number(ref) : p.slug === ref)
  const gameByRef = (providerRef: string, gameCode: string) => {
    const provider = providerByRef(providerRef)
    return provider === undefined ? undefined : games.get(`${provider.upstreamCode}\u0000${gameCode}`)
  }
  const sortedGames = () =>
    [...games.values()].map(toGame).sort((a, b) =>
      a.provider_id - b.provider_id || byName(a.name, b.name) || (a.game_code < b.game_code ? -1 : 1)
    )

  return CasinoCatalogRepo.of({
    providers: (enabledOnly) =>
      Effect.sync(() =>
        [...providers.values()].map(toProvider).filter((p) => !enabledOnly || p.enabled)
          .sort((a, b) => byName(a.name, b.name) || a.id - b.id)
      ),
    findProvider: (ref) => Effect.sync(() => Option.map(Option.fromNullishOr(providerByRef(ref)), toProvider)),
    findGame: (providerRef, gameCode) =>
      Effect.sync(() => Option.map(Option.fromNullishOr(gameByRef(providerRef, gameCode)), toGame)),
    games: (query) =>
      Effect.sync(() => {
        const provider = query.provider === undefined || query.provider === "" ? undefined : query.provider
        const search = query.search?.trim().toLowerCase()
        const matching = sortedGames().filter((game) =>
          (provider === undefined ||
            (isProviderId(provider) ? game.provider_id === Number(provider) : game.provider_slug === provider)) &&
          (!search || `${game.game_code} ${game.name}`.toLowerCase().includes(search)) &&
          (query.enabled === undefined || game.enabled === query.enabled)
        )
        const start = (query.page - 1) * query.perPage
        return { games: matching.slice(start, start + query.perPage), total: matching.length }
      }),
    isEmpty: Effect.sync(() => providers.size === 0),
    syncing: (effect) => effect,
    stored: Effect.sync(() => ({ providers: [...providers.values()], games: [...games.values()] })),
    write: (changes) =>
      Effect.sync(() => {
        for (const row of [...changes.providers.added, ...changes.providers.changed, ...changes.providers.absent]) {
          const before = providers.get(row.upstreamCode)
          providers.set(row.upstreamCode, {
            ...row,
            slug: before?.slug ?? row.slug,
            id: before?.id ?? nextId++,
            operatorEnabled: before?.operatorEnabled ?? true
          })
        }
        for (const row of [...changes.games.added, ...changes.games.changed, ...changes.games.absent]) {
          if (!providers.has(row.providerCode)) continue
          const key = `${row.providerCode}\u0000${row.gameCode}`
          const before = games.get(key)
          games.set(key, { ...row, id: before?.id ?? nextId++, operatorEnabled: before?.operatorEnabled ?? true })
        }
      }),
    setProviderEnabled: (ref, enabled) =>
      Effect.sync(() => {
        const provider = providerByRef(ref)
        if (provider === undefined) return Option.none()
        const updated = { ...provider, operatorEnabled: enabled }
        providers.set(provider.upstreamCode, updated)
        return Option.some(toProvider(updated))
      }),
    setGameEnabled: (providerRef, gameCode, enabled) =>
      Effect.sync(() => {
        const game = gameByRef(providerRef, gameCode)
        if (game === undefined) return Option.none()
        const updated = { ...game, operatorEnabled: enabled }
        games.set(`${game.providerCode}\u0000${game.gameCode}`, updated)
        return Option.some(toGame(updated))
      }),
    announceChange: Effect.suspend(() => Effect.all(listeners, { discard: true })),
    onChange: (effect) => Effect.sync(() => void listeners.push(effect))
  })
})
