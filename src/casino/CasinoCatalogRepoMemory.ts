import { Effect, Layer, Option } from "effect"
import { type Aggregator, isAggregator } from "../domain/Aggregator.ts"
import { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import { CasinoCatalogRepo, type Unserved } from "./CasinoCatalogRepo.ts"
import { type GameRecord, isProviderId, type ProviderRecord } from "./CasinoCatalogRules.ts"

interface StoredProvider extends ProviderRecord {
  readonly aggregator: Aggregator
  readonly id: number
  readonly operatorEnabled: boolean
}

interface StoredGame extends GameRecord {
  readonly aggregator: Aggregator
  readonly id: number
  readonly operatorEnabled: boolean
}

const restore = <V>(map: Map<string, V>, from: ReadonlyMap<string, V>) => {
  map.clear()
  for (const [key, value] of from) map.set(key, value)
}

/** Names in the order partners see them: case-insensitive, numbers by value (PostgreSQL's natural_ci, near enough). */
const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true, sensitivity: "base" })

const providerKey = (aggregator: string, code: string) => `${aggregator}\u0000${code}`
const gameKeyOf = (aggregator: string, providerCode: string, gameCode: string) =>
  `${aggregator}\u0000${providerCode}\u0000${gameCode}`

/**
 * The casino catalog's tables in memory, with the `_status` views' rule
 * (enabled = the operator's switch, the aggregator's flag, listed, and for
 * a game its provider enabled), for tests without a database. It keeps every
 * aggregator written to it. Changes reach the listeners of this one instance.
 */
export const makeMemory = (): CasinoCatalogRepo["Service"] => {
  const providers = new Map<string, StoredProvider>()
  const games = new Map<string, StoredGame>()
  const syncs = new Map<string, Date>()
  const listeners: Array<Effect.Effect<void>> = []
  let nextId = 1

  const providerEnabled = (p: StoredProvider) => p.operatorEnabled && p.upstreamEnabled && p.presentUpstream
  const toProvider = (p: StoredProvider) =>
    new CasinoProvider({
      id: p.id,
      slug: p.slug,
      name: p.name,
      upstreamCode: p.upstreamCode,
      enabled: providerEnabled(p),
      aggregator: p.aggregator
    })
  const toGame = (g: StoredGame) => {
    const provider = providers.get(providerKey(g.aggregator, g.providerCode))!
    return new CasinoGame({
      id: g.id,
      gameCode: g.gameCode,
      name: g.name,
      providerId: provider.id,
      providerSlug: provider.slug,
      providerUpstreamCode: provider.upstreamCode,
      enabled: g.operatorEnabled && g.upstreamEnabled && g.presentUpstream && providerEnabled(provider),
      imageUrl: g.imageUrl,
      original: g.original,
      aggregator: g.aggregator
    })
  }
  const providerByRef = (ref: string, unserved: Unserved) =>
    [...providers.values()].sort((a, b) => a.id - b.id).find((p) =>
      !unserved.includes(p.id) && (isProviderId(ref) ? p.id === Number(ref) : p.slug === ref)
    )
  const gameByRef = (providerRef: string, gameCode: string, unserved: Unserved) => {
    const provider = providerByRef(providerRef, unserved)
    return provider === undefined
      ? undefined
      : games.get(gameKeyOf(provider.aggregator, provider.upstreamCode, gameCode))
  }
  const sortedGames = (unserved: Unserved) =>
    [...games.values()].map(toGame).filter((game) => !unserved.includes(game.providerId)).sort((a, b) =>
      a.providerId - b.providerId || byName(a.name, b.name) || (a.gameCode < b.gameCode ? -1 : 1)
    )

  return CasinoCatalogRepo.of({
    providers: (enabledOnly, unserved) =>
      Effect.sync(() =>
        [...providers.values()].map(toProvider).filter((p) => (!enabledOnly || p.enabled) && !unserved.includes(p.id))
          .sort((a, b) => byName(a.name, b.name) || a.id - b.id)
      ),
    findProvider: (ref, unserved) =>
      Effect.sync(() => Option.map(Option.fromNullishOr(providerByRef(ref, unserved)), toProvider)),
    findGame: (providerRef, gameCode, unserved) =>
      Effect.sync(() => Option.map(Option.fromNullishOr(gameByRef(providerRef, gameCode, unserved)), toGame)),
    games: (query, unserved) =>
      Effect.sync(() => {
        const provider = query.provider === undefined || query.provider === "" ? undefined : query.provider
        const search = query.search?.trim().toLowerCase()
        const matching = sortedGames(unserved).filter((game) =>
          (provider === undefined ||
            (isProviderId(provider) ? game.providerId === Number(provider) : game.providerSlug === provider)) &&
          (!search || `${game.gameCode} ${game.name}`.toLowerCase().includes(search)) &&
          (query.enabled === undefined || game.enabled === query.enabled)
        )
        const start = (query.page - 1) * query.perPage
        return { games: matching.slice(start, start + query.perPage), total: matching.length }
      }),
    listings: Effect.sync(() =>
      [...providers.values()].sort((a, b) => a.id - b.id).map((p) => ({
        id: p.id,
        aggregator: p.aggregator,
        name: p.name
      }))
    ),
    isEmpty: Effect.sync(() => providers.size === 0),
    // All of it or none, as the SQL's transaction: what a failed sync wrote is put back.
    syncing: (effect) =>
      Effect.suspend(() => {
        const before = { providers: new Map(providers), games: new Map(games) }
        return Effect.onError(effect, () =>
          Effect.sync(() => {
            restore(providers, before.providers)
            restore(games, before.games)
          }))
      }),
    // The records as a sync stored them, without the ids and switches the rows have beside them.
    stored: (aggregator) =>
      Effect.sync(() => ({
        providers: [...providers.values()].filter((p) => p.aggregator === aggregator)
          .map(({ aggregator: _, id: __, operatorEnabled: ___, ...record }) => record),
        games: [...games.values()].filter((g) => g.aggregator === aggregator)
          .map(({ aggregator: _, id: __, operatorEnabled: ___, ...record }) => record)
      })),
    write: (aggregator, changes) =>
      Effect.sync(() => {
        if (!isAggregator(aggregator)) throw new Error(`casino_providers: no aggregator "${aggregator}"`)
        const written = [...changes.providers.added, ...changes.providers.changed, ...changes.providers.absent]
        // A slug is one provider's within an aggregator (UNIQUE in SQL): a write giving it to another is refused whole.
        const slugs = new Map(
          [...providers.values()].filter((p) => p.aggregator === aggregator).map((p) => [p.slug, p.upstreamCode])
        )
        for (const row of written) {
          const slug = providers.get(providerKey(aggregator, row.upstreamCode))?.slug ?? row.slug
          const holder = slugs.get(slug)
          if (holder !== undefined && holder !== row.upstreamCode) {
            throw new Error(`casino_providers: the slug "${slug}" is another provider's`)
          }
          slugs.set(slug, row.upstreamCode)
        }
        for (const row of written) {
          const key = providerKey(aggregator, row.upstreamCode)
          const before = providers.get(key)
          providers.set(key, {
            ...row,
            aggregator,
            slug: before?.slug ?? row.slug,
            id: before?.id ?? nextId++,
            operatorEnabled: before?.operatorEnabled ?? true
          })
        }
        for (const row of [...changes.games.added, ...changes.games.changed, ...changes.games.absent]) {
          if (!providers.has(providerKey(aggregator, row.providerCode))) continue
          const key = gameKeyOf(aggregator, row.providerCode, row.gameCode)
          const before = games.get(key)
          games.set(key, {
            ...row,
            aggregator,
            id: before?.id ?? nextId++,
            operatorEnabled: before?.operatorEnabled ?? true
          })
        }
      }),
    markSynced: (aggregator) => Effect.sync(() => void syncs.set(aggregator, new Date())),
    lastSyncs: Effect.sync(() => new Map(syncs)),
    setProviderEnabled: (ref, enabled) =>
      Effect.sync(() => {
        const provider = providerByRef(ref, [])
        if (provider === undefined) return Option.none()
        const updated = { ...provider, operatorEnabled: enabled }
        providers.set(providerKey(provider.aggregator, provider.upstreamCode), updated)
        return Option.some(toProvider(updated))
      }),
    setGameEnabled: (providerRef, gameCode, enabled) =>
      Effect.sync(() => {
        const game = gameByRef(providerRef, gameCode, [])
        if (game === undefined) return Option.none()
        const updated = { ...game, operatorEnabled: enabled }
        games.set(gameKeyOf(game.aggregator, game.providerCode, game.gameCode), updated)
        return Option.some(toGame(updated))
      }),
    announceChange: Effect.suspend(() => Effect.all(listeners, { discard: true })),
    onChange: (effect) => Effect.sync(() => void listeners.push(effect))
  })
}

/** The same tables in memory, for tests without PostgreSQL (apart from the SQL repository, so neither imports the other). */
export const layerMemory = Layer.sync(CasinoCatalogRepo, () => makeMemory())
