/**
 * Studios across aggregators (issue 35): two aggregators may offer the same studio under their own provider names.
 * A studio is matched by its name with case, spaces and punctuation ignored ("PG Soft" is "PGSOFT"), plus the
 * aliases the operator sets (one name's key taken as another's). A studio more than one configured aggregator offers
 * is served by one of them: the operator's choice when that aggregator offers it, otherwise the first in
 * CASINO_GATEWAY that does. The others' providers of that studio are neither listed nor launchable. Pure.
 */
import { Result, Schema } from "effect"

/** A studio's key: its name lower-cased, accents, spaces and punctuation left out ("PG Soft" and "pg-soft": "pgsoft"). */
export const studioKey = (name: string): string =>
  name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")

/** The studio a provider name is, through the operator's aliases (alias key -> studio key). */
export const studioOf = (name: string, aliases: ReadonlyMap<string, string>): string => {
  const key = studioKey(name)
  return aliases.get(key) ?? key
}

/** A provider of the catalogue, as the matching reads it. */
export interface StudioListing {
  readonly id: number
  readonly aggregator: string
  readonly name: string
}

/** A studio some configured aggregator offers: who offers it, who serves it, and whether that is the operator's choice. */
export interface StudioServing {
  readonly studio: string
  /** The aggregators offering it, in CASINO_GATEWAY's order. */
  readonly offeredBy: ReadonlyArray<string>
  readonly servedBy: string
  readonly chosen: boolean
  /** The names it goes by, each aggregator's. */
  readonly names: ReadonlyArray<{ readonly aggregator: string; readonly name: string }>
}

export interface StudioRules {
  /** The configured aggregators, in CASINO_GATEWAY's order (the first serves a shared studio by default). */
  readonly order: ReadonlyArray<string>
  /** Alias key -> studio key. */
  readonly aliases: ReadonlyMap<string, string>
  /** Studio key -> the aggregator the operator chose to serve it. */
  readonly owners: ReadonlyMap<string, string>
}

/** Every studio the listings offer, by key, in order of first appearance; aggregators not configured are left out. */
export const studioServings = (
  listings: ReadonlyArray<StudioListing>,
  rules: StudioRules
): ReadonlyArray<StudioServing> => {
  const rank = (aggregator: string) => rules.order.indexOf(aggregator)
  const byStudio = new Map<string, Array<StudioListing>>()
  for (const listing of listings) {
    if (rank(listing.aggregator) < 0) continue
    const studio = studioOf(listing.name, rules.aliases)
    byStudio.set(studio, [...(byStudio.get(studio) ?? []), listing])
  }
  return [...byStudio.entries()].map(([studio, offers]) => {
    const offeredBy = [...new Set(offers.map((offer) => offer.aggregator))].sort((a, b) => rank(a) - rank(b))
    const choice = rules.owners.get(studio)
    const chosen = choice !== undefined && offeredBy.includes(choice)
    return {
      studio,
      offeredBy,
      servedBy: chosen ? choice : offeredBy[0]!,
      chosen,
      names: offers.map((offer) => ({ aggregator: offer.aggregator, name: offer.name }))
    }
  })
}

/** The ids of the configured aggregators' providers not served: another aggregator serves their studio. */
export const unservedProviders = (
  listings: ReadonlyArray<StudioListing>,
  rules: StudioRules
): ReadonlyArray<number> => {
  const servedBy = new Map(studioServings(listings, rules).map((serving) => [serving.studio, serving.servedBy]))
  return listings.filter((listing) => {
    if (!rules.order.includes(listing.aggregator)) return false
    const server = servedBy.get(studioOf(listing.name, rules.aliases))
    return server !== undefined && server !== listing.aggregator
  }).map((listing) => listing.id)
}

/** The longest name an alias or its studio may be given as: a name, not a sentence. */
export const studioNameMaxLength = 100

/** How many aliases may be kept: the catalogue reads them all whenever it works out the studios. */
export const studioAliasLimit = 500

/** An alias the rules refuse; `field` is the name at fault (`alias` or `studio`), `reason` says why in words. */
export class StudioAliasRefused extends Schema.TaggedError<StudioAliasRefused>()("StudioAliasRefused", {
  field: Schema.Literals(["alias", "studio"]),
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

const keyOf = (field: "alias" | "studio", name: string): Result.Result<string, StudioAliasRefused> => {
  if (name.length > studioNameMaxLength) {
    return Result.fail(
      new StudioAliasRefused({ field, reason: `The ${field} is longer than ${studioNameMaxLength} characters.` })
    )
  }
  const key = studioKey(name)
  return key === "" ?
    Result.fail(
      new StudioAliasRefused({ field, reason: `The ${field} "${name}" has no letter or digit, so no studio key.` })
    ) :
    Result.succeed(key)
}

/** An alias as the operator names it (the names as typed), as keys: each bounded, not empty, not the same studio. */
export const studioAliasKeys = (
  aliasName: string,
  studioName: string
): Result.Result<{ readonly alias: string; readonly studio: string }, StudioAliasRefused> =>
  Result.flatMap(
    keyOf("alias", aliasName),
    (alias) =>
      Result.flatMap(keyOf("studio", studioName), (studio) =>
        alias === studio ?
          Result.fail(
            new StudioAliasRefused({
              field: "studio",
              reason: `"${aliasName}" and "${studioName}" are one studio already (${alias}): an alias joins two keys.`
            })
          ) :
          Result.succeed({ alias, studio }))
  )

/**
 * Why `alias -> studio` (keys) may not join the aliases kept, if it may not. Aliases do not chain: a studio is one
 * look-up away (studioOf), so an alias may not be another's studio, nor its studio another alias; and a new one must
 * fit within studioAliasLimit. Changing an alias's studio is allowed.
 */
export const studioAliasConflict = (
  kept: ReadonlyMap<string, string>,
  alias: string,
  studio: string
): StudioAliasRefused | undefined => {
  const naming = [...kept].filter(([, target]) => target === alias).map(([other]) => other)
  if (naming.length > 0) {
    return new StudioAliasRefused({
      field: "alias",
      reason: `"${alias}" is the studio of the alias ${naming.map((other) => `"${other}"`).join(", ")}: ` +
        "aliases do not chain, so it cannot be an alias itself."
    })
  }
  const target = kept.get(studio)
  if (target !== undefined) {
    return new StudioAliasRefused({
      field: "studio",
      reason: `"${studio}" is itself an alias of "${target}": aliases do not chain, name "${target}" instead.`
    })
  }
  if (!kept.has(alias) && kept.size >= studioAliasLimit) {
    return new StudioAliasRefused({
      field: "alias",
      reason: `There are ${studioAliasLimit} aliases already, the most kept: remove one first.`
    })
  }
  return undefined
}
