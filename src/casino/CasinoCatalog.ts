import { Context, Effect, Equal, Hash, Layer, Option, Schema } from "effect"
import type { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import { CasinoCatalogRepo, type GamePage, type GameQuery } from "./CasinoCatalogRepo.ts"
import * as ByteBoundedCache from "../platform/ByteBoundedCache.ts"
import {
  canonicalProviderRef,
  catalogChanges,
  changesAnything,
  type Snapshot,
  type SyncReport,
  syncReport
} from "./CasinoCatalogRules.ts"
import { CasinoConfig } from "./CasinoConfig.ts"
import type { PageRequest } from "../domain/Paging.ts"
import { type StudioAliasRefused, type StudioServing, studioServings, unservedProviders } from "../domain/Studios.ts"
import { CasinoStudioRepo } from "./CasinoStudioRepo.ts"
import * as CasinoCatalogRepoMemory from "./CasinoCatalogRepoMemory.ts"

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
 * One cached read: the question, in one canonical form (a provider by canonicalProviderRef, a search
 * trimmed and lower-cased as the look-up reads it, an empty filter left out), compared by content
 * (effect's Equal), so requests that mean the same thing share an entry; and the repository read that
 * answers it, which is not compared. The read is named where the question is asked, so a reader goes
 * from an operation straight to the repository's SQL.
 */
class CachedRead<A> implements Equal.Equal {
  readonly question: object
  readonly answer: Effect.Effect<A>
  constructor(question: object, answer: Effect.Effect<A>) {
    this.question = question
    this.answer = answer
  }
  [Equal.symbol](that: Equal.Equal): boolean {
    return that instanceof CachedRead && Equal.equals(this.question, that.question)
  }
  [Hash.symbol](): number {
    return Hash.hash(this.question)
  }
}

const optionalText = (text: string | undefined) => (text === undefined || text === "" ? undefined : text)

/** The one form of a games query the cache and the repository see. */
const canonicalGameQuery = (query: GameQuery): GameQuery => {
  const provider = optionalText(query.provider)
  return {
    provider: provider === undefined ? undefined : canonicalProviderRef(provider),
    search: optionalText(query.search?.trim().toLowerCase()),
    enabled: query.enabled,
    page: query.page,
    perPage: query.perPage
  }
}

/**
 * The local casino catalog: what partners list and launch from, refreshed
 * from the aggregator by `sync` (its rules: CasinoCatalogRules; its tables:
 * CasinoCatalogRepo). It changes only through a sync or an operator, so
 * reads are answered from memory for CASINO_CATALOG_CACHE_TTL, within
 * CASINO_CATALOG_CACHE_MAX_SIZE, and forgotten on every instance at once
 * when it changes.
 */
export class CasinoCatalog extends Context.Service<CasinoCatalog, {
  readonly enabledProviders: Effect.Effect<ReadonlyArray<CasinoProvider>>
  readonly allProviders: Effect.Effect<ReadonlyArray<CasinoProvider>>
  /**
   * A page of games, with the page it is. A `provider` the catalog does not know (kept, served or not, enabled or
   * not: knowsProvider) is refused, so a partner's typo is not read as a provider without games.
   */
  games(query: GameQuery): Effect.Effect<GamePage & PageRequest, UnknownProvider>
  findProvider(ref: string): Effect.Effect<Option.Option<CasinoProvider>>
  /** Whether `ref` names a provider kept, served or not (another aggregator serving its studio). */
  knowsProvider(ref: string): Effect.Effect<boolean>
  findGame(providerRef: string, gameCode: string): Effect.Effect<Option.Option<CasinoGame>>
  readonly isEmpty: Effect.Effect<boolean>
  /** Applies one complete snapshot of an aggregator's catalog, all or nothing, and records the sync's time. */
  sync(aggregator: string, snapshot: Snapshot): Effect.Effect<SyncReport>
  /** When each aggregator's catalogue was last synced. */
  readonly lastSyncs: Effect.Effect<ReadonlyMap<string, Date>>
  /** Every studio the aggregators kept offer, and which one serves it. */
  readonly studios: Effect.Effect<ReadonlyArray<StudioServing>>
  /** The operator's choice of the aggregator serving `studio` (a studio key). */
  setStudioServer(studio: string, aggregator: string): Effect.Effect<void>
  /** The operator's aliases: alias key -> studio key. */
  readonly studioAliases: Effect.Effect<ReadonlyMap<string, string>>
  /** The operator's alias: the provider name key `alias` is the studio `studio`; answers the studio it was before. */
  setStudioAlias(alias: string, studio: string): Effect.Effect<Option.Option<string>, StudioAliasRefused>
  /** Answers the studio the alias was, none when there was no such alias. */
  removeStudioAlias(alias: string): Effect.Effect<Option.Option<string>>
  setProviderEnabled(ref: string, enabled: boolean): Effect.Effect<CasinoProvider, UnknownProvider>
  setGameEnabled(providerRef: string, gameCode: string, enabled: boolean): Effect.Effect<CasinoGame, UnknownGame>
}>()("partner-api/casino/CasinoCatalog") {
  /** The catalog over the CasinoCatalogRepo in the context. */
  static readonly layerNoDeps = Layer.effect(
    CasinoCatalog,
    Effect.gen(function*() {
      const repo = yield* CasinoCatalogRepo
      const studioRepo = yield* CasinoStudioRepo
      const { catalogCacheMaxBytes, catalogCacheTtl, gateways } = yield* CasinoConfig

      const cache = yield* ByteBoundedCache.make({
        lookup: (read: CachedRead<unknown>) => read.answer,
        timeToLive: catalogCacheTtl,
        maxBytes: catalogCacheMaxBytes
      })
      // The one place an answer's type is restored: a CachedRead<A> answers an A.
      const cached = <A>(question: object, answer: Effect.Effect<A>) =>
        cache.get(new CachedRead(question, answer)) as Effect.Effect<A>
      yield* repo.onChange(cache.invalidateAll)
      const changed = Effect.andThen(repo.announceChange, cache.invalidateAll)

      const sync = Effect.fn("CasinoCatalog.sync")(function*(aggregator: string, snapshot: Snapshot) {
        const changes = catalogChanges(yield* repo.stored(aggregator), snapshot)
        const report = syncReport(changes)
        if (changesAnything(report)) {
          yield* repo.write(aggregator, changes)
          yield* changed
        }
        yield* repo.markSynced(aggregator)
        return report
      }, repo.syncing)

      // The studio rules: the configured aggregators' order, the operator's choices and aliases (domain/Studios.ts).
      const rules = Effect.map(
        Effect.all({ servers: studioRepo.servers, aliases: studioRepo.aliases }),
        ({ aliases, servers }) => ({ order: gateways as ReadonlyArray<string>, aliases, owners: servers })
      )
      const studios = Effect.map(
        Effect.all({ listings: repo.listings, rules }),
        ({ listings, rules }) => studioServings(listings, rules)
      )
      const unserved = cached(
        { unserved: true },
        Effect.map(
          Effect.all({ listings: repo.listings, rules }),
          ({ listings, rules }) => unservedProviders(listings, rules)
        )
      )

      const setProviderEnabled = Effect.fn("CasinoCatalog.setProviderEnabled")(
        function*(ref: string, enabled: boolean) {
          const provider = yield* repo.setProviderEnabled(ref, enabled)
          yield* changed
          if (Option.isNone(provider)) return yield* new UnknownProvider({ provider: ref })
          return provider.value
        }
      )

      const setGameEnabled = Effect.fn("CasinoCatalog.setGameEnabled")(
        function*(providerRef: string, gameCode: string, enabled: boolean) {
          const game = yield* repo.setGameEnabled(providerRef, gameCode, enabled)
          yield* changed
          if (Option.isNone(game)) return yield* new UnknownGame({ provider: providerRef, gameCode })
          return game.value
        }
      )

      const findProvider = (ref: string) => {
        const canonical = canonicalProviderRef(ref)
        return cached({ provider: canonical }, Effect.flatMap(unserved, (left) => repo.findProvider(canonical, left)))
      }
      const knowsProvider = (ref: string) =>
        cached(
          { known: canonicalProviderRef(ref) },
          Effect.map(repo.findProvider(canonicalProviderRef(ref), []), Option.isSome)
        )
      const findGame = (providerRef: string, gameCode: string) => {
        const canonical = canonicalProviderRef(providerRef)
        return cached(
          { game: canonical, gameCode },
          Effect.flatMap(unserved, (left) => repo.findGame(canonical, gameCode, left))
        )
      }
      const games = (query: GameQuery) => {
        const canonical = canonicalGameQuery(query)
        const found = Effect.map(
          cached({ games: canonical }, Effect.flatMap(unserved, (left) => repo.games(canonical, left))),
          (found) => ({ ...found, page: canonical.page, perPage: canonical.perPage })
        )
        const provider = canonical.provider
        return provider === undefined ? found : Effect.flatMap(
          knowsProvider(provider),
          (known) => known ? found : Effect.fail(new UnknownProvider({ provider }))
        )
      }
      const ruleChange = <A, E>(effect: Effect.Effect<A, E>) => Effect.tap(effect, () => changed)

      return CasinoCatalog.of({
        enabledProviders: cached(
          { enabledProviders: true },
          Effect.flatMap(unserved, (left) => repo.providers(true, left))
        ),
        allProviders: repo.providers(false, []),
        games,
        findProvider,
        knowsProvider,
        findGame,
        isEmpty: repo.isEmpty,
        sync,
        lastSyncs: repo.lastSyncs,
        studios,
        setStudioServer: (studio, aggregator) => ruleChange(studioRepo.setServer(studio, aggregator)),
        studioAliases: studioRepo.aliases,
        setStudioAlias: (alias, studio) => ruleChange(studioRepo.setAlias(alias, studio)),
        removeStudioAlias: (alias) => ruleChange(studioRepo.removeAlias(alias)),
        setProviderEnabled,
        setGameEnabled
      })
    })
  )

  /** The catalog over PostgreSQL. */
  static readonly layer = CasinoCatalog.layerNoDeps.pipe(
    Layer.provide(Layer.merge(CasinoCatalogRepo.layerSql, CasinoStudioRepo.layerSql))
  )

  /** The catalog in this process's memory (the test environment's, when the live one is a real aggregator's). */
  static readonly layerMemory = CasinoCatalog.layerNoDeps.pipe(
    Layer.provide(Layer.merge(CasinoCatalogRepoMemory.layerMemory, CasinoStudioRepo.layerMemory))
  )
}
