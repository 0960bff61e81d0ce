import { Duration, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { type Environment, environments } from "../domain/Environment.ts"
import { type CallbackTarget, Partner, PartnerAccess, type PartnerEnvironmentSettings } from "../domain/Partner.ts"
import { passRtp } from "../domain/RtpPolicy.ts"
import { type PartnerRepoService, SlugTaken } from "./PartnerWrites.ts"

// Partner rows in memory, for tests without PostgreSQL (PartnerRepo.layerMemory): the same rules as the SQL in
// PartnerRepo.ts; changes reach the listeners of this one instance.

interface StoredEnvironment {
  readonly callbackUrl: string | null
  readonly tokenHash: string | null
  readonly tokenIssuedAt: Date | null
  readonly webhookSecret: string
  readonly previousSecret: { readonly secret: string; readonly until: Date } | null
}

interface StoredPartner {
  readonly partner: Partner
  readonly environments: Readonly<Record<Environment, StoredEnvironment>>
}

type PartnerFields = ConstructorParameters<typeof Partner>[0]

const newWebhookSecret = () => `whsec_${randomBytes(32).toString("hex")}`

export const make = (): PartnerRepoService => {
  const rows = new Map<number, StoredPartner>()
  const listeners: Array<Effect.Effect<void>> = []
  let nextId = 1
  const bySlug = (slug: string) => [...rows.values()].find((row) => row.partner.slug === slug)
  const announce = Effect.suspend(() => Effect.all(listeners, { discard: true }))
  const hex = (hash: Uint8Array) => Buffer.from(hash).toString("hex")
  /** Stores the row with the partner's fields changed (its callback_url the live one), and announces it. */
  const save = (row: StoredPartner, fields: Partial<PartnerFields>) => {
    const partner = new Partner({ ...row.partner, ...fields, callback_url: row.environments.live.callbackUrl, updated_at: new Date() })
    rows.set(partner.id, { ...row, partner })
    return Effect.as(announce, partner)
  }
  const changeEnvironment = (row: StoredPartner, environment: Environment, change: Partial<StoredEnvironment>): StoredPartner => ({
    ...row,
    environments: { ...row.environments, [environment]: { ...row.environments[environment], ...change } }
  })

  return ({
    findByTokenHash: (hash) =>
      Effect.sync(() => {
        for (const row of rows.values()) {
          const environment = environments.find((env) => row.environments[env].tokenHash === hex(hash))
          if (environment !== undefined) return Option.some(new PartnerAccess({ ...row.partner, environment }))
        }
        return Option.none()
      }),
    findBySlug: (slug) => Effect.sync(() => Option.fromNullishOr(bySlug(slug)?.partner)),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(rows.get(id)?.partner)),
    list: Effect.sync(() => [...rows.values()].map((row) => row.partner)),
    count: Effect.sync(() => rows.size),
    insert: (input) =>
      Effect.suspend(() => {
        if (bySlug(input.slug) !== undefined) return Effect.fail(new SlugTaken({ slug: input.slug }))
        const now = new Date()
        const stored = (environment: Environment): StoredEnvironment => ({
          callbackUrl: input.environments[environment].callbackUrl,
          tokenHash: hex(input.environments[environment].tokenHash),
          tokenIssuedAt: now,
          webhookSecret: newWebhookSecret(),
          previousSecret: null
        })
        const partner = new Partner({
          id: nextId++,
          name: input.name,
          slug: input.slug,
          status: input.status,
          commission_percent: input.commissionPercent,
          callback_url: input.environments.live.callbackUrl,
          rate_limit_per_minute: input.rateLimitPerMinute,
          rtp_policy: passRtp,
          created_at: now,
          updated_at: now
        })
        const row: StoredPartner = { partner, environments: { live: stored("live"), test: stored("test") } }
        rows.set(partner.id, row)
        return Effect.as(announce, {
          partner,
          webhookSecrets: { live: row.environments.live.webhookSecret, test: row.environments.test.webhookSecret }
        })
      }),
    update: (slug, patch) =>
      Effect.suspend(() => {
        let row = bySlug(slug)
        if (row === undefined) return Effect.succeed(Option.none())
        for (const environment of environments) {
          const url = patch.callbackUrls?.[environment]
          if (url !== undefined) row = changeEnvironment(row, environment, { callbackUrl: url })
        }
        const fields: { -readonly [K in keyof PartnerFields]?: PartnerFields[K] } = {}
        if (patch.name !== undefined) fields.name = patch.name
        if (patch.status !== undefined) fields.status = patch.status
        if (patch.commissionPercent !== undefined) fields.commission_percent = patch.commissionPercent
        if (patch.rateLimitPerMinute !== undefined) fields.rate_limit_per_minute = patch.rateLimitPerMinute
        if (patch.rtpPolicy !== undefined) fields.rtp_policy = patch.rtpPolicy
        return Effect.map(save(row, fields), Option.some)
      }),
    setToken: (slug, environment, hash) =>
      Effect.suspend(() => {
        const row = bySlug(slug)
        if (row === undefined) return Effect.succeed(Option.none())
        return Effect.map(
          save(changeEnvironment(row, environment, { tokenHash: hex(hash), tokenIssuedAt: new Date() }), {}),
          Option.some
        )
      }),
    removeToken: (slug, environment) =>
      Effect.suspend(() => {
        const row = bySlug(slug)
        if (row === undefined) return Effect.succeed(Option.none())
        const had = row.environments[environment].tokenHash !== null
        return Effect.as(save(changeEnvironment(row, environment, { tokenHash: null, tokenIssuedAt: null }), {}), Option.some(had))
      }),
    rotateWebhookSecret: (slug, environment, overlap) =>
      Effect.suspend(() => {
        const row = bySlug(slug)
        if (row === undefined) return Effect.succeed(Option.none())
        const webhookSecret = newWebhookSecret()
        const previousSecret = {
          secret: row.environments[environment].webhookSecret,
          until: new Date(Date.now() + Duration.toMillis(overlap))
        }
        return Effect.map(
          save(changeEnvironment(row, environment, { webhookSecret, previousSecret }), {}),
          (partner) => Option.some({ partner, webhookSecret })
        )
      }),
    environmentsOf: (ids) =>
      Effect.sync(() =>
        ids.flatMap((id) => {
          const row = rows.get(id)
          return row === undefined ? [] : environments.map((environment): PartnerEnvironmentSettings => ({
            partnerId: id,
            environment,
            callbackUrl: row.environments[environment].callbackUrl,
            tokenIssuedAt: row.environments[environment].tokenIssuedAt
          }))
        })
      ),
    findCallbackTarget: (partnerId, environment) =>
      Effect.sync(() =>
        Option.map(Option.fromNullishOr(rows.get(partnerId)), (row): CallbackTarget => ({
          partnerId: row.partner.id,
          environment,
          partnerSlug: row.partner.slug,
          active: row.partner.isActive,
          callbackUrl: row.environments[environment].callbackUrl,
          webhookSecret: row.environments[environment].webhookSecret,
          previousSecret: row.environments[environment].previousSecret
        }))
      ),
    onChange: (effect) => Effect.sync(() => void listeners.push(effect))
  })
}
