import { Context, Duration, Effect, Layer, Option } from "effect"
import type { LiveTokenWithheld } from "../domain/Certification.ts"
import type { Actor } from "../domain/Admin.ts"
import type { Environment } from "../domain/Environment.ts"
import type { Partner, PartnerEnvironmentSettings, PlayerMode } from "../domain/Partner.ts"
import type { RtpPolicy } from "../domain/RtpPolicy.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import type { SlugTaken } from "../partners/PartnerRepo.ts"
import type {
  CreatedPartner,
  CurrencyChange,
  InvalidPartnerInput,
  NewPartner,
  PartnerChanges,
  PartnerNotFound
} from "../partners/PartnerInputs.ts"
import { Partners } from "../partners/Partners.ts"
import { CertificationRepo } from "../wallet/certification/CertificationRepo.ts"
import { type ClearedTestData, TestData } from "../wallet/TestData.ts"
import { liveTokenGate } from "./CertificationAdmin.ts"
import { maskedUrlOrNull } from "../domain/MaskedUrl.ts"

/*
 * A partner's settings as an operator (console, CLI) or the partner's own users (portal) change them: its details
 * and status, tokens and webhook secrets, player mode, RTP policy, currencies and test data, made through the owning services
 * and written to the audit trail in the same transaction as the change (who, what, before and after), so there is
 * no change without its row nor a row without its change. Secrets are handed to the caller once and never recorded.
 */

/**
 * A partner as the audit trail records it: everything but its tokens and webhook secrets; `callback_url` is
 * the live environment's, `test_callback_url` the test one's (when its environments were read), both masked.
 */
const partnerAudit = (partner: Partner, environments: ReadonlyArray<PartnerEnvironmentSettings> = []) => {
  const test = environments.find((settings) => settings.partnerId === partner.id && settings.environment === "test")
  return {
    name: partner.name,
    slug: partner.slug,
    status: partner.status,
    commission_percent: partner.commissionPercent,
    callback_url: maskedUrlOrNull(partner.callbackUrl),
    ...(test === undefined ? {} : { test_callback_url: maskedUrlOrNull(test.callbackUrl) }),
    rate_limit_per_minute: partner.rateLimitPerMinute
  }
}

/** A partner's currencies as the audit trail records them (null: the deployment's). */
const currenciesAudit = (partner: Partner) => ({
  default_currency: partner.defaultCurrency,
  currencies: partner.currencies
})

/** How long an old token or secret was kept valid, as the audit records it (absent: none, or the configured default). */
const overlapOf = (overlap: Duration.Duration | undefined) =>
  overlap === undefined ? {} : { old_kept_valid_for: Duration.format(overlap) }

export class PartnerAdmin extends Context.Service<PartnerAdmin, {
  /** Both environments' tokens and webhook secrets are issued; the audit records neither. */
  create(actor: Actor, input: NewPartner): Effect.Effect<CreatedPartner, InvalidPartnerInput | SlugTaken>
  update(
    actor: Actor,
    slug: string,
    changes: PartnerChanges
  ): Effect.Effect<Partner, PartnerNotFound | InvalidPartnerInput>
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
  setPlayerMode(
    actor: Actor,
    slug: string,
    mode: PlayerMode
  ): Effect.Effect<{ partner: Partner; mode: PlayerMode }, PartnerNotFound>
  /** What the partner's launches do with `user_rtp` (pass, clamp, fixed), both environments. */
  setRtpPolicy(actor: Actor, slug: string, policy: RtpPolicy): Effect.Effect<Partner, PartnerNotFound>
  /** Its default currency and its restriction (null: the deployment's), validated by Partners.setCurrencies. */
  setCurrencies(
    actor: Actor,
    slug: string,
    change: CurrencyChange
  ): Effect.Effect<Partner, PartnerNotFound | InvalidPartnerInput>
  /** Deletes the partner's test players, rounds, transactions and callbacks; never a live row. */
  clearTestData(
    actor: Actor,
    slug: string
  ): Effect.Effect<{ partner: Partner; cleared: ClearedTestData }, PartnerNotFound>
}>()("partner-api/changes/PartnerAdmin") {
  static readonly layer = Layer.effect(
    PartnerAdmin,
    Effect.gen(function*() {
      const partners = yield* Partners
      const audit = yield* AuditRepo
      const players = yield* PartnerPlayers
      const testData = yield* TestData
      const certifications = yield* CertificationRepo

      /** The partner as audited, both environments' callback URLs included. */
      const audited = (partner: Partner) =>
        Effect.map(partners.environmentsOf([partner]), (envs) => partnerAudit(partner, envs))
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
          changed(
            status === "active" ? "partner.activate" : "partner.deactivate",
            actor,
            slug,
            partners.setStatus(slug, status)
          ),
        rotateToken: Effect.fn("PartnerAdmin.rotateToken")(
          function*(actor: Actor, slug: string, environment: Environment, keepOld?: Duration.Duration) {
            return yield* audit.atomically(Effect.gen(function*() {
              if (environment === "live") {
                yield* liveTokenGate(certifications, yield* partners.show(slug), actor)
              }
              const rotated = yield* partners.rotateToken(slug, environment, undefined, keepOld)
              // That the environment's token changed is recorded (and how long the old one stays); the token never is.
              yield* audit.record(actor, {
                action: "partner.rotate-token",
                target: `partner:${slug}`,
                after: { environment, ...overlapOf(keepOld) }
              })
              return rotated
            }))
          }
        ),
        endTokenOverlap: Effect.fn("PartnerAdmin.endTokenOverlap")(
          function*(actor: Actor, slug: string, environment: Environment) {
            return yield* audit.atomically(Effect.gen(function*() {
              const partner = yield* partners.show(slug)
              yield* partners.endTokenOverlap(partner, environment)
              yield* audit.record(actor, {
                action: "partner.end-token-overlap",
                target: `partner:${slug}`,
                after: { environment }
              })
              return partner
            }))
          }
        ),
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
              before: { rtp_policy: before.rtpPolicy },
              after: { rtp_policy: after.rtpPolicy }
            })
            return after
          }))
        }),
        setCurrencies: Effect.fn("PartnerAdmin.setCurrencies")(
          function*(actor: Actor, slug: string, change: CurrencyChange) {
            return yield* audit.atomically(Effect.gen(function*() {
              const before = yield* partners.show(slug)
              const after = yield* partners.setCurrencies(slug, change)
              yield* audit.record(actor, {
                action: "partner.set-currencies",
                target: `partner:${slug}`,
                before: currenciesAudit(before),
                after: currenciesAudit(after)
              })
              return after
            }))
          }
        ),
        clearTestData: Effect.fn("PartnerAdmin.clearTestData")(function*(actor: Actor, slug: string) {
          return yield* audit.atomically(Effect.gen(function*() {
            const partner = yield* partners.show(slug)
            const cleared = yield* testData.clear(partner.id)
            // What was deleted, counted: the rows themselves are test data, not the audit's.
            yield* audit.record(actor, {
              action: "partner.clear-test-data",
              target: `partner:${slug}`,
              after: { environment: "test", ...cleared }
            })
            return { partner, cleared }
          }))
        })
      })
    })
  )
}
