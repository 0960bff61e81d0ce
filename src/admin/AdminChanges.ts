import { Context, Effect, Layer, Option } from "effect"
import { type CallbackNotFound, type CallbackNotReplayable, CallbackOutbox, type CallbackView } from "../callbacks/CallbackOutbox.ts"
import type { SyncReport } from "../casino/CasinoCatalogRules.ts"
import { CasinoCatalog, type UnknownGame, type UnknownProvider } from "../casino/CasinoCatalog.ts"
import { CatalogSync } from "../casino/CatalogSync.ts"
import type { CasinoGatewayError } from "../casino/CasinoGateway.ts"
import { SportsCatalog } from "../catalog/SportsCatalog.ts"
import type { PublishReport } from "../domain/SportsCatalog.ts"
import type { SportsProviderError } from "../sports/SportsProvider.ts"
import type { Actor } from "../domain/Admin.ts"
import type { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import type { Partner } from "../domain/Partner.ts"
import type { SlugTaken } from "../partners/PartnerRepo.ts"
import { type InvalidPartnerInput, type NewPartner, type PartnerChanges, type PartnerNotFound, Partners } from "../partners/Partners.ts"
import { AuditRepo } from "./AuditRepo.ts"

/** A partner as the audit trail records it: everything but its token and webhook secret. */
export const partnerAudit = (partner: Partner) => ({
  name: partner.name,
  slug: partner.slug,
  status: partner.status,
  commission_percent: partner.commission_percent,
  callback_url: partner.callback_url
})

const providerAudit = (provider: CasinoProvider) => ({ slug: provider.slug, enabled: provider.enabled })
const gameAudit = (game: CasinoGame) => ({ provider: game.provider_slug, game_code: game.game_code, enabled: game.enabled })

/**
 * Every change an operator makes, through the console or the admin CLI,
 * made through the owning services and written to the audit trail: who,
 * what, before and after. Secrets (tokens, webhook secrets) are handed to
 * the caller once and never recorded.
 */
export class AdminChanges extends Context.Service<AdminChanges, {
  createPartner(actor: Actor, input: NewPartner): Effect.Effect<
    { partner: Partner; token: string; webhookSecret: string },
    InvalidPartnerInput | SlugTaken
  >
  updatePartner(actor: Actor, slug: string, changes: PartnerChanges): Effect.Effect<Partner, PartnerNotFound | InvalidPartnerInput>
  setPartnerStatus(actor: Actor, slug: string, status: Partner["status"]): Effect.Effect<Partner, PartnerNotFound>
  rotateToken(actor: Actor, slug: string): Effect.Effect<{ partner: Partner; token: string }, PartnerNotFound>
  rotateWebhookSecret(actor: Actor, slug: string): Effect.Effect<{ partner: Partner; webhookSecret: string }, PartnerNotFound>
  setProviderEnabled(actor: Actor, ref: string, enabled: boolean): Effect.Effect<CasinoProvider, UnknownProvider>
  setGameEnabled(actor: Actor, providerRef: string, gameCode: string, enabled: boolean): Effect.Effect<CasinoGame, UnknownGame>
  syncCasino(actor: Actor): Effect.Effect<SyncReport, CasinoGatewayError>
  redeliver(actor: Actor, callbackId: number): Effect.Effect<CallbackView, CallbackNotFound | CallbackNotReplayable>
  refreshSports(actor: Actor): Effect.Effect<PublishReport, SportsProviderError>
}>()("partner-api/admin/AdminChanges") {
  static readonly layer = Layer.effect(
    AdminChanges,
    Effect.gen(function*() {
      const partners = yield* Partners
      const audit = yield* AuditRepo
      const catalog = yield* CasinoCatalog
      const sync = yield* CatalogSync
      const outbox = yield* CallbackOutbox
      const sports = yield* SportsCatalog

      const partnerBefore = (slug: string) =>
        Effect.map(Effect.option(partners.show(slug)), Option.match({ onNone: () => null, onSome: partnerAudit }))

      const changedPartner = <E>(action: string, actor: Actor, slug: string, change: Effect.Effect<Partner, E>) =>
        Effect.gen(function*() {
          const before = yield* partnerBefore(slug)
          const after = yield* change
          yield* audit.record(actor, { action, target: `partner:${after.slug}`, before, after: partnerAudit(after) })
          return after
        })

      return AdminChanges.of({
        createPartner: Effect.fn("AdminChanges.createPartner")(function*(actor: Actor, input: NewPartner) {
          const created = yield* partners.create(input)
          yield* audit.record(actor, { action: "partner.create", target: `partner:${created.partner.slug}`, after: partnerAudit(created.partner) })
          return created
        }),
        updatePartner: (actor, slug, changes) => changedPartner("partner.update", actor, slug, partners.update(slug, changes)),
        setPartnerStatus: (actor, slug, status) =>
          changedPartner(status === "active" ? "partner.activate" : "partner.deactivate", actor, slug, partners.setStatus(slug, status)),
        rotateToken: Effect.fn("AdminChanges.rotateToken")(function*(actor: Actor, slug: string) {
          const rotated = yield* partners.rotateToken(slug)
          // That the token changed is recorded; the token itself never is.
          yield* audit.record(actor, { action: "partner.rotate-token", target: `partner:${slug}` })
          return rotated
        }),
        rotateWebhookSecret: Effect.fn("AdminChanges.rotateWebhookSecret")(function*(actor: Actor, slug: string) {
          const rotated = yield* partners.rotateWebhookSecret(slug)
          yield* audit.record(actor, { action: "partner.rotate-webhook-secret", target: `partner:${slug}` })
          return rotated
        }),
        setProviderEnabled: Effect.fn("AdminChanges.setProviderEnabled")(function*(actor: Actor, ref: string, enabled: boolean) {
          const before = yield* catalog.findProvider(ref)
          const after = yield* catalog.setProviderEnabled(ref, enabled)
          yield* audit.record(actor, {
            action: enabled ? "casino.enable-provider" : "casino.disable-provider",
            target: `provider:${after.slug}`,
            before: Option.match(before, { onNone: () => null, onSome: providerAudit }),
            after: providerAudit(after)
          })
          return after
        }),
        setGameEnabled: Effect.fn("AdminChanges.setGameEnabled")(
          function*(actor: Actor, providerRef: string, gameCode: string, enabled: boolean) {
            const before = yield* catalog.findGame(providerRef, gameCode)
            const after = yield* catalog.setGameEnabled(providerRef, gameCode, enabled)
            yield* audit.record(actor, {
              action: enabled ? "casino.enable-game" : "casino.disable-game",
              target: `game:${after.provider_slug}/${after.game_code}`,
              before: Option.match(before, { onNone: () => null, onSome: gameAudit }),
              after: gameAudit(after)
            })
            return after
          }
        ),
        syncCasino: Effect.fn("AdminChanges.syncCasino")(function*(actor: Actor) {
          const report = yield* sync.run
          yield* audit.record(actor, { action: "casino.sync", target: "casino:catalog", after: report })
          return report
        }),
        redeliver: Effect.fn("AdminChanges.redeliver")(function*(actor: Actor, callbackId: number) {
          const view = yield* outbox.retry(callbackId)
          yield* audit.record(actor, {
            action: "callback.redeliver",
            target: `callback:${callbackId}`,
            after: { event_id: view.event_id, partner: view.partner, kind: view.kind, status: view.status, attempts: view.attempts }
          })
          return view
        }),
        refreshSports: Effect.fn("AdminChanges.refreshSports")(function*(actor: Actor) {
          // Every sport of CATALOG_SPORT_IDS: the request has nothing an operator could get wrong.
          const { report } = yield* sports.refresh(null).pipe(
            Effect.catchTag("InvalidSportsCatalogQuery", (invalid) => Effect.die(invalid))
          )
          yield* audit.record(actor, { action: "sports.refresh", target: "sports:catalog", after: report })
          return report
        })
      })
    })
  )
}
