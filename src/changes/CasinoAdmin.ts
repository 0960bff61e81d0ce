import { Context, Effect, Layer, Option, Schema } from "effect"
import { CasinoCatalog, type UnknownGame, type UnknownProvider } from "../casino/CasinoCatalog.ts"
import type { Actor } from "../domain/Admin.ts"
import type { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import { studioAliasKeys, type StudioAliasRefused, studioKey } from "../domain/Studios.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"

/*
 * The casino catalog as an operator changes it: a provider or a game enabled or disabled, a studio's server or
 * alias, made through the owning services and written to the audit trail in the same transaction as the change
 * (who, what, before and after), so there is no change without its row nor a row without its change. Secrets are
 * handed to the caller once and never recorded.
 */

const providerAudit = (provider: CasinoProvider) => ({ slug: provider.slug, enabled: provider.enabled })
const gameAudit = (game: CasinoGame) => ({
  provider: game.providerSlug,
  game_code: game.gameCode,
  enabled: game.enabled
})

/** The studio is not one several aggregators offer, or the aggregator named does not offer it. */
export class UnknownStudioServer extends Schema.TaggedError<UnknownStudioServer>()("UnknownStudioServer", {
  studio: Schema.String,
  aggregator: Schema.String
}) {
  override get message() {
    return `No studio "${this.studio}" offered by ${this.aggregator} among the aggregators CASINO_GATEWAY lists.`
  }
}

/** No alias of that name's key to remove. */
export class UnknownStudioAlias extends Schema.TaggedError<UnknownStudioAlias>()("UnknownStudioAlias", {
  alias: Schema.String
}) {
  override get message() {
    return `No studio alias "${this.alias}".`
  }
}

/** An alias as kept: both keys (studioKey). */
export interface StudioAlias {
  readonly alias: string
  readonly studio: string
}

export class CasinoAdmin extends Context.Service<CasinoAdmin, {
  setProviderEnabled(actor: Actor, ref: string, enabled: boolean): Effect.Effect<CasinoProvider, UnknownProvider>
  setGameEnabled(
    actor: Actor,
    providerRef: string,
    gameCode: string,
    enabled: boolean
  ): Effect.Effect<CasinoGame, UnknownGame>
  /** Which aggregator serves a studio several offer (its studio key); the others' games of it leave the catalogue. */
  setStudioServer(actor: Actor, studio: string, aggregator: string): Effect.Effect<void, UnknownStudioServer>
  /**
   * The operator's alias, from the names as typed ("PG Soft Games" is the studio "PG Soft"): both stored as keys,
   * refused by the rules of domain/Studios.ts (bounded, not empty, not one studio, no chains, within the limit).
   */
  setStudioAlias(actor: Actor, aliasName: string, studioName: string): Effect.Effect<StudioAlias, StudioAliasRefused>
  removeStudioAlias(actor: Actor, aliasName: string): Effect.Effect<StudioAlias, UnknownStudioAlias>
}>()("partner-api/changes/CasinoAdmin") {
  static readonly layer = Layer.effect(
    CasinoAdmin,
    Effect.gen(function*() {
      const catalog = yield* CasinoCatalog
      const audit = yield* AuditRepo
      return CasinoAdmin.of({
        setProviderEnabled: Effect.fn("CasinoAdmin.setProviderEnabled")(
          function*(actor: Actor, ref: string, enabled: boolean) {
            return yield* audit.atomically(Effect.gen(function*() {
              const before = yield* catalog.findProvider(ref)
              const after = yield* catalog.setProviderEnabled(ref, enabled)
              yield* audit.record(actor, {
                action: enabled ? "casino.enable-provider" : "casino.disable-provider",
                target: `provider:${after.slug}`,
                before: Option.match(before, { onNone: () => null, onSome: providerAudit }),
                after: providerAudit(after)
              })
              return after
            }))
          }
        ),
        setGameEnabled: Effect.fn("CasinoAdmin.setGameEnabled")(
          function*(actor: Actor, providerRef: string, gameCode: string, enabled: boolean) {
            return yield* audit.atomically(Effect.gen(function*() {
              const before = yield* catalog.findGame(providerRef, gameCode)
              const after = yield* catalog.setGameEnabled(providerRef, gameCode, enabled)
              yield* audit.record(actor, {
                action: enabled ? "casino.enable-game" : "casino.disable-game",
                target: `game:${after.providerSlug}/${after.gameCode}`,
                before: Option.match(before, { onNone: () => null, onSome: gameAudit }),
                after: gameAudit(after)
              })
              return after
            }))
          }
        ),
        setStudioServer: Effect.fn("CasinoAdmin.setStudioServer")(
          function*(actor: Actor, studio: string, aggregator: string) {
            return yield* audit.atomically(Effect.gen(function*() {
              const serving = (yield* catalog.studios).find((one) => one.studio === studio)
              if (serving === undefined || !serving.offeredBy.includes(aggregator)) {
                return yield* new UnknownStudioServer({ studio, aggregator })
              }
              yield* catalog.setStudioServer(studio, aggregator)
              yield* audit.record(actor, {
                action: "casino.studio-server",
                target: `studio:${studio}`,
                before: { served_by: serving.servedBy, chosen: serving.chosen },
                after: { served_by: aggregator, chosen: true }
              })
            }))
          }
        ),
        setStudioAlias: Effect.fn("CasinoAdmin.setStudioAlias")(
          function*(actor: Actor, aliasName: string, studioName: string) {
            const { alias, studio } = yield* Effect.fromResult(studioAliasKeys(aliasName, studioName))
            return yield* audit.atomically(Effect.gen(function*() {
              const before = yield* catalog.setStudioAlias(alias, studio)
              yield* audit.record(actor, {
                action: "casino.studio-alias",
                target: `studio-alias:${alias}`,
                before: Option.match(before, { onNone: () => null, onSome: (was) => ({ studio: was }) }),
                after: { studio }
              })
              return { alias, studio }
            }))
          }
        ),
        removeStudioAlias: Effect.fn("CasinoAdmin.removeStudioAlias")(function*(actor: Actor, aliasName: string) {
          const alias = studioKey(aliasName)
          return yield* audit.atomically(Effect.gen(function*() {
            const before = yield* catalog.removeStudioAlias(alias)
            if (Option.isNone(before)) return yield* new UnknownStudioAlias({ alias: aliasName })
            yield* audit.record(actor, {
              action: "casino.studio-alias",
              target: `studio-alias:${alias}`,
              before: { studio: before.value },
              after: null
            })
            return { alias, studio: before.value }
          }))
        })
      })
    })
  )
}
