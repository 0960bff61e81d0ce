import { Schema } from "effect"
import { slugify } from "../domain/Slug.ts"
import type { UpstreamGame, UpstreamProvider } from "./CasinoGateway.ts"

/**
 * The casino catalog's rules, apart from its storage: how a provider gets
 * its slug, and what a snapshot of the aggregator's catalog changes in the
 * stored one. Pure, so they are tested without a database.
 */

/** A provider reference is its integer id when it is all digits, otherwise its slug. */
export const isProviderId = (ref: string) => /^\d{1,9}$/.test(ref)

/**
 * One spelling per provider reference: an id without its leading zeros ("01" and "001" are provider 1,
 * as every look-up reads them), a slug as given (slugs are matched exactly).
 */
export const canonicalProviderRef = (ref: string) => isProviderId(ref) ? String(Number(ref)) : ref

/**
 * A provider as the sync stores it: what the aggregator says, under the slug it was given once. Its
 * encoded form is its row's snake_case (the repository reads and writes rows through it).
 */
export const ProviderRecord = Schema.Struct({
  upstreamCode: Schema.String,
  slug: Schema.String,
  name: Schema.String,
  imageUrl: Schema.NullOr(Schema.String),
  upstreamEnabled: Schema.Boolean,
  presentUpstream: Schema.Boolean
}).pipe(Schema.encodeKeys({
  upstreamCode: "upstream_code",
  imageUrl: "image_url",
  upstreamEnabled: "upstream_enabled",
  presentUpstream: "present_upstream"
}))
export type ProviderRecord = typeof ProviderRecord.Type

/** A game as the sync stores it, keyed by its provider's upstream code and its own code; encoded as its row. */
export const GameRecord = Schema.Struct({
  providerCode: Schema.String,
  gameCode: Schema.String,
  name: Schema.String,
  imageUrl: Schema.NullOr(Schema.String),
  original: Schema.Boolean,
  upstreamEnabled: Schema.Boolean,
  presentUpstream: Schema.Boolean
}).pipe(Schema.encodeKeys({
  providerCode: "provider_code",
  gameCode: "game_code",
  imageUrl: "image_url",
  upstreamEnabled: "upstream_enabled",
  presentUpstream: "present_upstream"
}))
export type GameRecord = typeof GameRecord.Type

export interface StoredCatalog {
  readonly providers: ReadonlyArray<ProviderRecord>
  readonly games: ReadonlyArray<GameRecord>
}

export interface Snapshot {
  readonly providers: ReadonlyArray<UpstreamProvider>
  readonly games: ReadonlyArray<UpstreamGame>
}

/** What a sync writes: rows to add, rows whose upstream facts changed, and rows the aggregator no longer lists. */
export interface CatalogChanges {
  readonly providers: {
    readonly added: ReadonlyArray<ProviderRecord>
    readonly changed: ReadonlyArray<ProviderRecord>
    readonly absent: ReadonlyArray<ProviderRecord>
  }
  readonly games: {
    readonly added: ReadonlyArray<GameRecord>
    readonly changed: ReadonlyArray<GameRecord>
    readonly absent: ReadonlyArray<GameRecord>
  }
}

export interface SyncReport {
  readonly providers: { readonly added: number; readonly changed: number; readonly absent: number }
  readonly games: { readonly added: number; readonly changed: number; readonly absent: number }
}

/**
 * Slugs for providers the catalog has not seen: the name's slug, or with
 * `-2`, `-3`... when another provider holds it. A provider keeps its slug
 * for good, whatever its name becomes, so partners' references stay valid.
 */
export const assignSlugs = (
  stored: ReadonlyArray<Pick<ProviderRecord, "upstreamCode" | "slug">>,
  providers: ReadonlyArray<Pick<UpstreamProvider, "code" | "name">>
): ReadonlyMap<string, string> => {
  const slugOf = new Map(stored.map((row) => [row.upstreamCode, row.slug]))
  const taken = new Set(stored.map((row) => row.slug))
  for (const provider of providers) {
    if (slugOf.has(provider.code)) continue
    const base = slugify(provider.name, "provider")
    let candidate = base
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}-${n}`
    taken.add(candidate)
    slugOf.set(provider.code, candidate)
  }
  return slugOf
}

const gameKey = (providerCode: string, gameCode: string) => `${providerCode}\u0000${gameCode}`

const sameProvider = (a: ProviderRecord, b: ProviderRecord) =>
  a.name === b.name && a.imageUrl === b.imageUrl && a.upstreamEnabled === b.upstreamEnabled &&
  a.presentUpstream === b.presentUpstream

const sameGame = (a: GameRecord, b: GameRecord) =>
  a.name === b.name && a.imageUrl === b.imageUrl && a.original === b.original &&
  a.upstreamEnabled === b.upstreamEnabled && a.presentUpstream === b.presentUpstream

/**
 * What `snapshot` (the aggregator's whole catalog) changes in `stored`.
 * Nothing is deleted: a provider or game the aggregator stops listing is
 * kept as absent (partners no longer see it) and comes back when listed
 * again. A game of a provider the catalog does not know is left out. The
 * operator's own switches are not the sync's to touch.
 */
export const catalogChanges = (stored: StoredCatalog, snapshot: Snapshot): CatalogChanges => {
  const slugs = assignSlugs(stored.providers, snapshot.providers)
  const storedProviders = new Map(stored.providers.map((row) => [row.upstreamCode, row]))
  const listedProviders = new Map(snapshot.providers.map((p): [string, ProviderRecord] => [p.code, {
    upstreamCode: p.code,
    slug: slugs.get(p.code)!,
    name: p.name,
    imageUrl: p.imageUrl,
    upstreamEnabled: p.enabled,
    presentUpstream: true
  }]))
  const providers = {
    added: [...listedProviders.values()].filter((row) => !storedProviders.has(row.upstreamCode)),
    changed: [...listedProviders.values()].filter((row) => {
      const before = storedProviders.get(row.upstreamCode)
      return before !== undefined && !sameProvider(before, row)
    }),
    absent: stored.providers.filter((row) => row.presentUpstream && !listedProviders.has(row.upstreamCode))
      .map((row) => ({ ...row, presentUpstream: false }))
  }

  const storedGames = new Map(stored.games.map((row) => [gameKey(row.providerCode, row.gameCode), row]))
  const listedGames = new Map(snapshot.games.map((g): [string, GameRecord] => [gameKey(g.providerCode, g.code), {
    providerCode: g.providerCode,
    gameCode: g.code,
    name: g.name,
    imageUrl: g.imageUrl,
    original: g.original,
    upstreamEnabled: g.enabled,
    presentUpstream: true
  }]))
  const known = (row: GameRecord) => listedProviders.has(row.providerCode) || storedProviders.has(row.providerCode)
  const games = {
    added: [...listedGames.entries()].filter(([key, row]) => !storedGames.has(key) && known(row)).map(([, row]) => row),
    changed: [...listedGames.entries()].flatMap(([key, row]) => {
      const before = storedGames.get(key)
      return before !== undefined && !sameGame(before, row) ? [row] : []
    }),
    absent: stored.games.filter((row) =>
      row.presentUpstream && !listedGames.has(gameKey(row.providerCode, row.gameCode))
    )
      .map((row) => ({ ...row, presentUpstream: false }))
  }
  return { providers, games }
}

export const syncReport = (changes: CatalogChanges): SyncReport => ({
  providers: {
    added: changes.providers.added.length,
    changed: changes.providers.changed.length,
    absent: changes.providers.absent.length
  },
  games: {
    added: changes.games.added.length,
    changed: changes.games.changed.length,
    absent: changes.games.absent.length
  }
})

export const changesAnything = (report: SyncReport) =>
  report.providers.added + report.providers.changed + report.providers.absent +
      report.games.added + report.games.changed + report.games.absent > 0
