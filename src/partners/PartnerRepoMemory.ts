import { Clock, Duration, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { type Environment, environments } from "../domain/Environment.ts"
import {
  type CallbackTarget,
  type IssuedToken,
  Partner,
  PartnerAccess,
  type PartnerEnvironmentSettings
} from "../domain/Partner.ts"
import { passRtp } from "../domain/RtpPolicy.ts"
import { type PartnerRepoService, SlugTaken } from "./PartnerWrites.ts"

// Partner rows in memory, for tests without PostgreSQL (PartnerRepo.layerMemory): the same rules as the SQL in
// PartnerRepo.ts; changes reach the listeners of this one instance.

interface StoredToken extends IssuedToken {
  readonly hash: string
}

interface StoredEnvironment {
  readonly callbackUrl: string | null
  /** Its tokens: the current one (no expiry) and those rolled with an overlap. */
  readonly tokens: ReadonlyArray<StoredToken>
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
  let nextTokenId = 1
  // Token expiries are judged by the Clock, so a test's clock can run an overlap out.
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
  const valid = (token: StoredToken, at: Date) => token.expiresAt === null || token.expiresAt > at
  const newToken = (environment: Environment, hash: Uint8Array, prefix: string, at: Date): StoredToken => ({
    id: nextTokenId++,
    environment,
    hash: Buffer.from(hash).toString("hex"),
    prefix,
    createdAt: at,
    lastUsedAt: null,
    expiresAt: null
  })
  const bySlug = (slug: string) => [...rows.values()].find((row) => row.partner.slug === slug)
  const announce = Effect.suspend(() => Effect.all(listeners, { discard: true }))
  const hex = (hash: Uint8Array) => Buffer.from(hash).toString("hex")
  /** Stores the row with the partner's fields changed (its callback_url the live one), and announces it. */
  const save = (row: StoredPartner, fields: Partial<PartnerFields>) => {
    const partner = new Partner({
      ...row.partner,
      ...fields,
      callbackUrl: row.environments.live.callbackUrl,
      updatedAt: new Date()
    })
    rows.set(partner.id, { ...row, partner })
    return Effect.as(announce, partner)
  }
  const changeEnvironment = (
    row: StoredPartner,
    environment: Environment,
    change: Partial<StoredEnvironment>
  ): StoredPartner => ({
    ...row,
    environments: { ...row.environments, [environment]: { ...row.environments[environment], ...change } }
  })

  return ({
    findByTokenHash: (hash) =>
      Effect.map(now, (at) => {
        for (const row of rows.values()) {
          for (const environment of environments) {
            const token = row.environments[environment].tokens.find((token) =>
              token.hash === hex(hash) && valid(token, at)
            )
            if (token !== undefined) {
              return Option.some(new PartnerAccess({ ...row.partner, environment, tokenExpiresAt: token.expiresAt }))
            }
          }
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
          tokens: [
            newToken(
              environment,
              input.environments[environment].token.hash,
              input.environments[environment].token.prefix,
              now
            )
          ],
          webhookSecret: newWebhookSecret(),
          previousSecret: null
        })
        const partner = new Partner({
          id: nextId++,
          name: input.name,
          slug: input.slug,
          status: input.status,
          commissionPercent: input.commissionPercent,
          callbackUrl: input.environments.live.callbackUrl,
          rateLimitPerMinute: input.rateLimitPerMinute,
          rtpPolicy: passRtp,
          defaultCurrency: null,
          currencies: null,
          createdAt: now,
          updatedAt: now
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
        if (patch.commissionPercent !== undefined) fields.commissionPercent = patch.commissionPercent
        if (patch.rateLimitPerMinute !== undefined) fields.rateLimitPerMinute = patch.rateLimitPerMinute
        if (patch.rtpPolicy !== undefined) fields.rtpPolicy = patch.rtpPolicy
        if (patch.defaultCurrency !== undefined) fields.defaultCurrency = patch.defaultCurrency
        if (patch.currencies !== undefined) fields.currencies = patch.currencies
        return Effect.map(save(row, fields), Option.some)
      }),
    setToken: (slug, environment, token, keepOld) =>
      Effect.flatMap(now, (at) => {
        const row = bySlug(slug)
        if (row === undefined) return Effect.succeed(Option.none())
        const kept = keepOld === undefined ?
          [] :
          row.environments[environment].tokens.filter((old) => valid(old, at)).map((old) =>
            old.expiresAt === null ? { ...old, expiresAt: new Date(at.getTime() + Duration.toMillis(keepOld)) } : old
          )
        return Effect.map(
          save(
            changeEnvironment(row, environment, {
              tokens: [newToken(environment, token.hash, token.prefix, at), ...kept]
            }),
            {}
          ),
          Option.some
        )
      }),
    removeToken: (slug, environment) =>
      Effect.suspend(() => {
        const row = bySlug(slug)
        if (row === undefined) return Effect.succeed(Option.none())
        const had = row.environments[environment].tokens.length > 0
        return Effect.as(save(changeEnvironment(row, environment, { tokens: [] }), {}), Option.some(had))
      }),
    endTokenOverlap: (partnerId, environment) =>
      Effect.suspend(() => {
        const row = rows.get(partnerId)
        if (row === undefined) return Effect.void
        const current = row.environments[environment].tokens.filter((token) => token.expiresAt === null)
        return Effect.asVoid(save(changeEnvironment(row, environment, { tokens: current }), {}))
      }),
    tokensOf: (partnerId) =>
      Effect.map(now, (at) => {
        const row = rows.get(partnerId)
        if (row === undefined) return []
        return environments.flatMap((environment) =>
          row.environments[environment].tokens.filter((token) => valid(token, at)).map(({ hash: _, ...token }) => token)
        )
      }),
    recordTokenUse: (uses) =>
      Effect.sync(() => {
        for (const use of uses) {
          for (const [id, row] of rows) {
            for (const environment of environments) {
              // As the SQL: a token marked within the minute before is not written again.
              const tokens = row.environments[environment].tokens.map((token) =>
                token.hash === hex(use.hash) &&
                  (token.lastUsedAt === null || token.lastUsedAt.getTime() < use.at.getTime() - 60_000)
                  ? { ...token, lastUsedAt: use.at }
                  : token
              )
              rows.set(id, changeEnvironment(rows.get(id)!, environment, { tokens }))
            }
          }
        }
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
    // By partner, live first, as the SQL orders them; a previous secret's end only while it is ahead (its end, as
    // rotateWebhookSecret sets it, is the machine's time, as PostgreSQL's now() is).
    environmentsOf: (ids) =>
      Effect.sync(() => {
        const at = new Date()
        return [...new Set(ids)].sort((a, b) => a - b).flatMap((id) => {
          const row = rows.get(id)
          return row === undefined ? [] : environments.map((environment): PartnerEnvironmentSettings => {
            const previous = row.environments[environment].previousSecret
            return {
              partnerId: id,
              environment,
              callbackUrl: row.environments[environment].callbackUrl,
              tokenIssuedAt: row.environments[environment].tokens.find((token) =>
                token.expiresAt === null
              )?.createdAt ?? null,
              previousSecretUntil: previous !== null && previous.until > at ? previous.until : null
            }
          })
        })
      }),
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
