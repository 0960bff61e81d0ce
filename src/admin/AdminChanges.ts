import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { type CallbackView, testBody } from "../domain/Callbacks.ts"
import { type CallbackNotFound, type CallbackNotReplayable, CallbackOutbox } from "../wallet/outbox/CallbackOutbox.ts"
import { PartnerCallbacks, probe, type Trial } from "../wallet/outbox/PartnerCallbacks.ts"
import { CallbackTargets } from "../partners/CallbackTargets.ts"
import type { SyncReport } from "../casino/CasinoCatalogRules.ts"
import { CasinoCatalog, type UnknownGame, type UnknownProvider } from "../casino/CasinoCatalog.ts"
import type { CasinoGatewayError } from "../casino/CasinoGateway.ts"
import { CatalogSync } from "../casino/CatalogSync.ts"
import { SportsCatalog } from "../sports/catalog/SportsCatalog.ts"
import type { Actor } from "../domain/Admin.ts"
import type { CasinoGame, CasinoProvider } from "../domain/Casino.ts"
import type { Environment } from "../domain/Environment.ts"
import type { Partner, PartnerEnvironmentSettings, PlayerMode } from "../domain/Partner.ts"
import type { RtpPolicy } from "../domain/RtpPolicy.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import { type ClearedTestData, TestData } from "../wallet/TestData.ts"
import type { PublishReport } from "../domain/SportsCatalog.ts"
import type { SlugTaken } from "../partners/PartnerRepo.ts"
import {
  type CreatedPartner,
  type InvalidPartnerInput,
  type NewPartner,
  type PartnerChanges,
  PartnerNotFound,
  Partners
} from "../partners/Partners.ts"
import type { SportsProviderError } from "../sports/SportsProvider.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"
import { liveTokenGate } from "./CertificationAdmin.ts"
import type { LiveTokenWithheld } from "../domain/Certification.ts"
import { CertificationRepo } from "../wallet/certification/CertificationRepo.ts"

/*
 * Every change an operator makes, through the console or the admin CLI, made through the owning services
 * and written to the audit trail: who, what, before and after, in the same transaction as the change, so
 * there is no change without its row nor a row without its change. Secrets (tokens, webhook secrets) are
 * handed to the caller once and never recorded. One service per area, so a CLI command builds only its own.
 */

/**
 * A partner as the audit trail records it: everything but its tokens and webhook secrets; `callback_url` is
 * the live environment's, `test_callback_url` the test one's (when its environments were read).
 */
export const partnerAudit = (partner: Partner, environments: ReadonlyArray<PartnerEnvironmentSettings> = []) => {
  const test = environments.find((settings) => settings.partnerId === partner.id && settings.environment === "test")
  return {
    name: partner.name,
    slug: partner.slug,
    status: partner.status,
    commission_percent: partner.commission_percent,
    callback_url: partner.callback_url,
    ...(test === undefined ? {} : { test_callback_url: test.callbackUrl }),
    rate_limit_per_minute: partner.rate_limit_per_minute
  }
}

/** How long an old token or secret was kept valid, as the audit records it (absent: none, or the configured default). */
const overlapOf = (overlap: Duration.Duration | undefined) =>
  overlap === undefined ? {} : { old_kept_valid_for: Duration.format(overlap) }

const providerAudit = (provider: CasinoProvider) => ({ slug: provider.slug, enabled: provider.enabled })
const gameAudit = (game: CasinoGame) => ({ provider: game.provider_slug, game_code: game.game_code, enabled: game.enabled })

export class PartnerAdmin extends Context.Service<PartnerAdmin, {
  /** Both environments' tokens and webhook secrets are issued; the audit records neither. */
  create(actor: Actor, input: NewPartner): Effect.Effect<CreatedPartner, InvalidPartnerInput | SlugTaken>
  update(actor: Actor, slug: string, changes: PartnerChanges): Effect.Effect<Partner, PartnerNotFound | InvalidPartnerInput>
  setStatus(actor: Actor, slug: string, status: Partner["status"]): Effect.Effect<Partner, PartnerNotFound>
  /**
   * A new token (shown once); the old one stops at once, or with `keepOld` stays valid that long beside it. A live
   * token is withheld while the partner requires a passed wallet certification and has none (CertificationAdmin).
   */
  rotateToken(
    actor: Actor,
    slug: string,
    environment: Environment,
    keepOld?: Duration.Duration
  ): Effect.Effect<{ partner: Partner; token: string }, PartnerNotFound | LiveTokenWithheld>
  /** The environment's rolled tokens still in their overlap stop working now. */
  endTokenOverlap(actor: Actor, slug: string, environment: Environment): Effect.Effect<Partner, PartnerNotFound>
  /** A new webhook secret (shown once); the old one keeps signing beside it for `overlap` (the configured one unless said). */
  rotateWebhookSecret(
    actor: Actor,
    slug: string,
    environment: Environment,
    overlap?: Duration.Duration
  ): Effect.Effect<{ partner: Partner; webhookSecret: string }, PartnerNotFound>
  /**
   * What the service keeps of the partner's players from now on. To `shadow`, what it kept (names, e-mails,
   * balance mirrors) is forgotten in the same transaction; rounds in flight go on.
   */
  setPlayerMode(actor: Actor, slug: string, mode: PlayerMode): Effect.Effect<{ partner: Partner; mode: PlayerMode }, PartnerNotFound>
  /** What the partner's launches do with `user_rtp` (pass, clamp, fixed), both environments. */
  setRtpPolicy(actor: Actor, slug: string, policy: RtpPolicy): Effect.Effect<Partner, PartnerNotFound>
  /** Deletes the partner's test players, rounds, transactions and callbacks; never a live row. */
  clearTestData(actor: Actor, slug: string): Effect.Effect<{ partner: Partner; cleared: ClearedTestData }, PartnerNotFound>
}>()("partner-api/admin/PartnerAdmin") {
  static readonly layer = Layer.effect(
    PartnerAdmin,
    Effect.gen(function*() {
      const partners = yield* Partners
      const audit = yield* AuditRepo
      const players = yield* PartnerPlayers
      const testData = yield* TestData
      const certifications = yield* CertificationRepo

      /** The partner as audited, both environments' callback URLs included. */
      const audited = (partner: Partner) => Effect.map(partners.environmentsOf([partner]), (envs) => partnerAudit(partner, envs))
      const changed = <E>(action: string, actor: Actor, slug: string, change: Effect.Effect<Partner, E>) =>
        audit.atomically(Effect.gen(function*() {
          const found = yield* Effect.option(partners.show(slug))
          const before = Option.isNone(found) ? null : yield* audited(found.value)
          const after = yield* change
          yield* audit.record(actor, { action, target: `partner:${after.slug}`, before, after: yield* audited(after) })
          return after
        }))

      return PartnerAdmin.of({
        create: Effect.fn("PartnerAdmin.create")(function*(actor: Actor, input: NewPartner) {
          return yield* audit.atomically(Effect.gen(function*() {
            const created = yield* partners.create(input)
            yield* audit.record(actor, {
              action: "partner.create",
              target: `partner:${created.partner.slug}`,
              after: yield* audited(created.partner)
            })
            return created
          }))
        }),
        update: (actor, slug, changes) => changed("partner.update", actor, slug, partners.update(slug, changes)),
        setStatus: (actor, slug, status) =>
          changed(status === "active" ? "partner.activate" : "partner.deactivate", actor, slug, partners.setStatus(slug, status)),
        rotateToken: Effect.fn("PartnerAdmin.rotateToken")(
          function*(actor: Actor, slug: string, environment: Environment, keepOld?: Duration.Duration) {
            return yield* audit.atomically(Effect.gen(function*() {
              if (environment === "live") {
                yield* liveTokenGate(certifications, yield* partners.show(slug))
              }
              const rotated = yield* partners.rotateToken(slug, environment, undefined, keepOld)
              // That the environment's token changed is recorded (and how long the old one stays); the token never is.
              yield* audit.record(actor, { action: "partner.rotate-token", target: `partner:${slug}`, after: { environment, ...overlapOf(keepOld) } })
              return rotated
            }))
          }
        ),
        endTokenOverlap: Effect.fn("PartnerAdmin.endTokenOverlap")(function*(actor: Actor, slug: string, environment: Environment) {
          return yield* audit.atomically(Effect.gen(function*() {
            const partner = yield* partners.show(slug)
            yield* partners.endTokenOverlap(partner, environment)
            yield* audit.record(actor, { action: "partner.end-token-overlap", target: `partner:${slug}`, after: { environment } })
            return partner
          }))
        }),
        rotateWebhookSecret: Effect.fn("PartnerAdmin.rotateWebhookSecret")(
          function*(actor: Actor, slug: string, environment: Environment, overlap?: Duration.Duration) {
            return yield* audit.atomically(Effect.gen(function*() {
              const rotated = yield* partners.rotateWebhookSecret(slug, environment, overlap)
              yield* audit.record(actor, {
                action: "partner.rotate-webhook-secret",
                target: `partner:${slug}`,
                after: { environment, ...overlapOf(overlap) }
              })
              return rotated
            }))
          }
        ),
        setPlayerMode: Effect.fn("PartnerAdmin.setPlayerMode")(function*(actor: Actor, slug: string, mode: PlayerMode) {
          return yield* audit.atomically(Effect.gen(function*() {
            const partner = yield* partners.show(slug)
            const before = yield* players.modeOf(partner.id)
            yield* players.setMode(partner.id, mode)
            yield* audit.record(actor, {
              action: "partner.set-player-mode",
              target: `partner:${slug}`,
              before: { player_mode: before },
              after: { player_mode: mode }
            })
            return { partner, mode }
          }))
        }),
        setRtpPolicy: Effect.fn("PartnerAdmin.setRtpPolicy")(function*(actor: Actor, slug: string, policy: RtpPolicy) {
          return yield* audit.atomically(Effect.gen(function*() {
            const before = yield* partners.show(slug)
            const after = yield* partners.setRtpPolicy(slug, policy)
            yield* audit.record(actor, {
              action: "partner.set-rtp-policy",
              target: `partner:${slug}`,
              before: { rtp_policy: before.rtp_policy },
              after: { rtp_policy: after.rtp_policy }
            })
            return after
          }))
        }),
        clearTestData: Effect.fn("PartnerAdmin.clearTestData")(function*(actor: Actor, slug: string) {
          return yield* audit.atomically(Effect.gen(function*() {
            const partner = yield* partners.show(slug)
            const cleared = yield* testData.clear(partner.id)
            // What was deleted, counted: the rows themselves are test data, not the audit's.
            yield* audit.record(actor, { action: "partner.clear-test-data", target: `partner:${slug}`, after: { environment: "test", ...cleared } })
            return { partner, cleared }
          }))
        })
      })
    })
  )
}

export class CasinoAdmin extends Context.Service<CasinoAdmin, {
  setProviderEnabled(actor: Actor, ref: string, enabled: boolean): Effect.Effect<CasinoProvider, UnknownProvider>
  setGameEnabled(actor: Actor, providerRef: string, gameCode: string, enabled: boolean): Effect.Effect<CasinoGame, UnknownGame>
}>()("partner-api/admin/CasinoAdmin") {
  static readonly layer = Layer.effect(
    CasinoAdmin,
    Effect.gen(function*() {
      const catalog = yield* CasinoCatalog
      const audit = yield* AuditRepo
      return CasinoAdmin.of({
        setProviderEnabled: Effect.fn("CasinoAdmin.setProviderEnabled")(function*(actor: Actor, ref: string, enabled: boolean) {
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
        }),
        setGameEnabled: Effect.fn("CasinoAdmin.setGameEnabled")(
          function*(actor: Actor, providerRef: string, gameCode: string, enabled: boolean) {
            return yield* audit.atomically(Effect.gen(function*() {
              const before = yield* catalog.findGame(providerRef, gameCode)
              const after = yield* catalog.setGameEnabled(providerRef, gameCode, enabled)
              yield* audit.record(actor, {
                action: enabled ? "casino.enable-game" : "casino.disable-game",
                target: `game:${after.provider_slug}/${after.game_code}`,
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

/** A casino sync asked by an operator; the aggregator is asked, so it has a service of its own. */
export class CasinoSyncAdmin extends Context.Service<CasinoSyncAdmin, {
  sync(actor: Actor): Effect.Effect<SyncReport, CasinoGatewayError>
}>()("partner-api/admin/CasinoSyncAdmin") {
  static readonly layer = Layer.effect(
    CasinoSyncAdmin,
    Effect.gen(function*() {
      const sync = yield* CatalogSync
      const audit = yield* AuditRepo
      return CasinoSyncAdmin.of({
        sync: Effect.fn("CasinoSyncAdmin.sync")(function*(actor: Actor) {
          // Not one transaction: a sync waits on the aggregator, and is the same reconciliation the schedule
          // runs unaudited; the row records that an operator asked for one and what it changed.
          const report = yield* sync.run
          yield* audit.record(actor, { action: "casino.sync", target: "casino:catalog", after: report })
          return report
        })
      })
    })
  )
}

export class CallbackAdmin extends Context.Service<CallbackAdmin, {
  /** Delivers a notification again; with `partnerId`, only one of that partner's (another's is not found). */
  redeliver(actor: Actor, callbackId: number, partnerId?: number): Effect.Effect<CallbackView, CallbackNotFound | CallbackNotReplayable>
  /**
   * Sends a test callback to the partner's callback URL in the environment, signed as every callback is, and
   * answers the exact request and what the partner answered. Recorded in the audit trail, not in the outbox.
   */
  sendTest(actor: Actor, partner: Pick<Partner, "id" | "slug">, environment: Environment): Effect.Effect<Trial, PartnerNotFound>
}>()("partner-api/admin/CallbackAdmin") {
  static readonly layer = Layer.effect(
    CallbackAdmin,
    Effect.gen(function*() {
      const outbox = yield* CallbackOutbox
      const audit = yield* AuditRepo
      const targets = yield* CallbackTargets
      const callbacks = yield* PartnerCallbacks
      return CallbackAdmin.of({
        sendTest: Effect.fn("CallbackAdmin.sendTest")(function*(actor: Actor, partner: Pick<Partner, "id" | "slug">, environment: Environment) {
          const target = yield* targets.fresh(partner.id, environment).pipe(
            Effect.flatMap(Option.match({ onNone: () => Effect.fail(new PartnerNotFound({ slug: partner.slug })), onSome: Effect.succeed }))
          )
          const { body, eventId } = testBody(partner.slug, environment, new Date(yield* Clock.currentTimeMillis))
          const trial = yield* probe(callbacks, target, eventId, body)
          yield* audit.record(actor, {
            action: "partner.test-callback",
            target: `partner:${partner.slug}`,
            after: { environment, url: target.callbackUrl, status: trial.answer?.status ?? null, failure: trial.failure }
          })
          return trial
        }),
        redeliver: Effect.fn("CallbackAdmin.redeliver")(function*(actor: Actor, callbackId: number, partnerId?: number) {
          return yield* audit.atomically(Effect.gen(function*() {
            const view = yield* outbox.retry(callbackId, partnerId)
            yield* audit.record(actor, {
              action: "callback.redeliver",
              target: `callback:${callbackId}`,
              after: { event_id: view.eventId, partner: view.partner, kind: view.kind, status: view.status, attempts: view.attempts }
            })
            return view
          }))
        })
      })
    })
  )
}

export class SportsAdmin extends Context.Service<SportsAdmin, {
  refresh(actor: Actor): Effect.Effect<PublishReport, SportsProviderError>
}>()("partner-api/admin/SportsAdmin") {
  static readonly layer = Layer.effect(
    SportsAdmin,
    Effect.gen(function*() {
      const sports = yield* SportsCatalog
      const audit = yield* AuditRepo
      return SportsAdmin.of({
        refresh: Effect.fn("SportsAdmin.refresh")(function*(actor: Actor) {
          // Every sport of CATALOG_SPORT_IDS: the request has nothing an operator could get wrong. Not one
          // transaction, as a casino sync: a refresh waits on the provider, and the schedule runs the same.
          const { report } = yield* sports.refresh(null).pipe(Effect.catchTag("InvalidSportsCatalogQuery", Effect.die))
          yield* audit.record(actor, { action: "sports.refresh", target: "sports:catalog", after: report })
          return report
        })
      })
    })
  )
}

/** Every audited change service, over the domain services (the service's own graph). */
export const layer = Layer.mergeAll(
  PartnerAdmin.layer,
  CasinoAdmin.layer,
  CasinoSyncAdmin.layer,
  CallbackAdmin.layer,
  SportsAdmin.layer
)
