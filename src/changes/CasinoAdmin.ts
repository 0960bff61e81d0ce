import { Context, Effect, Layer, Option } from "effect"
import { CasinoCatalog, type UnknownGame, type UnknownProvider } from "../casino/CasinoCatalog.ts"
import type { Actor } from "../domain/Admin.ts"
import type { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"

/*
 * The casino catalog as an operator changes it: a provider or a game enabled or disabled, made through the owning
 * services and written to the audit trail in the same transaction as the change (who, what, before and after), so
 * there is no change without its row nor a row without its change. Secrets are handed to the caller once and never
 * recorded.
 */

const providerAudit = (provider: CasinoProvider) => ({ slug: provider.slug, enabled: provider.enabled })
const gameAudit = (game: CasinoGame) => ({
  provider: game.providerSlug,
  game_code: game.gameCode,
  enabled: game.enabled
})

export class CasinoAdmin extends Context.Service<CasinoAdmin, {
  setProviderEnabled(actor: Actor, ref: string, enabled: boolean): Effect.Effect<CasinoProvider, UnknownProvider>
  setGameEnabled(
    actor: Actor,
    providerRef: string,
    gameCode: string,
    enabled: boolean
  ): Effect.Effect<CasinoGame, UnknownGame>
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
        )
      })
    })
  )
}
