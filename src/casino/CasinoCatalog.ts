import { Cache, Context, Duration, Effect, Exit, Layer, Option, Schema } from "effect"
import type { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import { CasinoCatalogRepo, type GamePage, type GameQuery } from "./CasinoCatalogRepo.ts"
import { catalogChanges, changesAnything, type Snapshot, type SyncReport, syncReport } from "./CasinoCatalogRules.ts"
import { CasinoConfig } from "./CasinoConfig.ts"

export type { GameQuery } from "./CasinoCatalogRepo.ts"
export type { SyncReport } from "./CasinoCatalogRules.ts"

export class UnknownProvider extends Schema.TaggedError<UnknownProvider>()("UnknownProvider", {
  provider: Schema.String
}) {
  override get message() {
    return `No casino provider "${this.provider}" (give its id or slug).`
  }
}

export class UnknownGame extends Schema.TaggedError<UnknownGame>()("UnknownGame", {
  provider: Schema.String,
  gameCode: Schema.String
}) {
  override get message() {
    return `No game "${this.gameCode}" for provider "${this.provider}".`
  }
}

/**
 * The local casino catalog: what partners list and launch from, refreshed
 * from the aggregator by `sync` (its rules: CasinoCatalogRules; its tables:
 * CasinoCatalogRepo). It changes only through a sync or an operator, so
 * reads are answered from memory for CASINO_CATALOG_CACHE_TTL and forgotten
 * on every instance at once when it changes.
 */
export class CasinoCatalog extends Context.Service<CasinoCatalog, {
  readonly enabledProviders: Effect.Effect<ReadonlyArray<CasinoProvider>>
  readonly allProviders: Effect.Effect<ReadonlyArray<CasinoProvider>>
  games(query: GameQuery): Effect.Effect<GamePage>
  findProvider(ref: string): Effect.Effect<Option.Option<CasinoProvider>>
  findGame(providerRef: string, gameCode: string): Effect.Effect<Option.Option<CasinoGame>>
  readonly isEmpty: Effect.Effect<boolean>
  /** Applies one complete snapshot of the aggregator's catalog, all or nothing. */
  sync(snapshot: Snapshot): Effect.Effect<SyncReport>
  setProviderEnabled(ref: string, enabled: boolean): Effect.Effect<CasinoProvider, UnknownProvider>
  setGameEnabled(providerRef: string, gameCode: string, enabled: boolean): Effect.Effect<CasinoGame, UnknownGame>
}>()("partner-api/casino/CasinoCatalog") {
  /** The catalog over the CasinoCatalogRepo in the context. */
  static readonly layerNoDeps = Layer.effect(
    CasinoCatalog,
    Effect.gen(function*() {
      const repo = yield* CasinoCatalogRepo
      const { catalogCacheTtl } = yield* CasinoConfig

      const cached = <K, A>(lookup: (key: K) => Effect.Effect<A>) =>
        Cache.makeWith(lookup, {
          capacity: 5_000,
          timeToLive: (exit) => Exit.isSuccess(exit) ? catalogCacheTtl : Duration.zero
        })
      const gamesCache = yield* cached((key: string) => repo.games(JSON.parse(key) as GameQuery))
      const gameCache = yield* cached((key: string) => {
        const [providerRef, gameCode] = JSON.parse(key) as [string, string]
        return repo.findGame(providerRef, gameCode)
      })
      const providerCache = yield* cached(repo.findProvider)
      const providersCache = yield* cached(repo.providers)
      const forget = Effect.all([
        Cache.invalidateAll(gamesCache),
        Cache.invalidateAll(gameCache),
        Cache.invalidateAll(providerCache),
        Cache.invalidateAll(providersCache)
      ], { discard: true })
      yield* repo.onChange(forget)
      const changed = Effect.andThen(repo.announceChange, forget)

      // The key lists every field in a fixed order, so equal queries share an entry.
      const games = (query: GameQuery) =>
        Cache.get(
          gamesCache,
          JSON.stringify({
            provider: query.provider,
            search: query.search,
            enabled: query.enabled,
            page: query.page,
            perPage: query.perPage
          } satisfies GameQuery)
        )

      const sync = Effect.fn("CasinoCatalog.sync")(function*(snapshot: Snapshot) {
        const changes = catalogChanges(yield* repo.stored, snapshot)
        const report = syncReport(changes)
        if (changesAnything(report)) {
          yield* repo.write(changes)
          yield* changed
        }
        return report
      }, repo.syncing)

      const setProviderEnabled = Effect.fn("CasinoCatalog.setProviderEnabled")(function*(ref: string, enabled: boolean) {
        const provider = yield* repo.setProviderEnabled(ref, enabled)
        yield* changed
        if (Option.isNone(provider)) return yield* new UnknownProvider({ provider: ref })
        return provider.value
      })

      const setGameEnabled = Effect.fn("CasinoCatalog.setGameEnabled")(
        function*(providerRef: string, gameCode: string, enabled: boolean) {
          const game = yield* repo.setGameEnabled(providerRef, gameCode, enabled)
          yield* changed
          if (Option.isNone(game)) return yield* new UnknownGame({ provider: providerRef, gameCode })
          return game.value
        }
      )

      return CasinoCatalog.of({
        enabledProviders: Cache.get(providersCache, true),
        allProviders: repo.providers(false),
        games,
        findProvider: (ref) => Cache.get(providerCache, ref),
        findGame: (providerRef, gameCode) => Cache.get(gameCache, JSON.stringify([providerRef, gameCode])),
        isEmpty: repo.isEmpty,
        sync,
        setProviderEnabled,
        setGameEnabled
      })
    })
  )

  /** The catalog over PostgreSQL. */
  static readonly layer = CasinoCatalog.layerNoDeps.pipe(Layer.provide(CasinoCatalogRepo.layer))
}
