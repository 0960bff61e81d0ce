import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Environment, environments } from "../domain/Environment.ts"
import {
  CallbackTarget,
  Partner,
  PartnerAccess,
  PartnerEnvironmentSettings
} from "../domain/Partner.ts"
import * as ChangeFeed from "../platform/ChangeFeed.ts"
import * as PartnerRepoMemory from "./PartnerRepoMemory.ts"
import { type InsertedPartner, type PartnerInsert, type PartnerPatch, type PartnerRepoService, SlugTaken } from "./PartnerWrites.ts"
import { IdFromBigInt, NumberFromNumeric } from "../platform/SqlCodecs.ts"

/** A partners row: the domain's Partner, its id a BIGSERIAL (a bigint from the driver) and its commission NUMERIC (text). */
const PartnerRow = Schema.Struct({
  ...Partner.fields,
  id: IdFromBigInt,
  commission_percent: NumberFromNumeric
}).pipe(Schema.decodeTo(Partner))

/** A partner and the environment of the token that found it. */
const AccessRow = Schema.Struct({
  ...PartnerAccess.fields,
  id: IdFromBigInt,
  commission_percent: NumberFromNumeric
}).pipe(Schema.decodeTo(PartnerAccess))

/**
 * What signing and sending a partner's callbacks needs, as the query shapes it: the domain's
 * CallbackTarget in snake_case, the previous secret as one JSON object (its end in epoch milliseconds).
 */
const TargetRow = Schema.Struct({
  ...CallbackTarget.fields,
  partnerId: IdFromBigInt,
  previousSecret: Schema.NullOr(Schema.Struct({ secret: Schema.String, until: Schema.DateFromMillis }))
}).pipe(Schema.encodeKeys({
  partnerId: "partner_id",
  partnerSlug: "partner_slug",
  callbackUrl: "callback_url",
  webhookSecret: "webhook_secret",
  previousSecret: "previous_secret"
}))

const SettingsRow = Schema.Struct({ ...PartnerEnvironmentSettings.fields, partnerId: IdFromBigInt }).pipe(Schema.encodeKeys({
  partnerId: "partner_id",
  callbackUrl: "callback_url",
  tokenIssuedAt: "token_issued_at"
}))

const SecretRow = Schema.Struct({ environment: Environment, webhook_secret: Schema.String })
const decodeSecretRows = Schema.decodeUnknownEffect(Schema.Array(SecretRow))

export type { EnvironmentInsert, InsertedPartner, PartnerInsert, PartnerPatch } from "./PartnerWrites.ts"
export { SlugTaken } from "./PartnerWrites.ts"

/** NOTIFY channel announcing that some partner row changed (from any process: service, admin CLI). */
export const partnersChangedChannel = "partner_api_partners_changed"

/**
 * Partner rows in PostgreSQL: `partners`, and per environment `partner_environments` (callback URL,
 * webhook secrets) and `partner_tokens` (token hashes). Database failures are defects here: callers
 * cannot act on them. `Partner.callback_url` is the live environment's.
 */
export class PartnerRepo extends Context.Service<PartnerRepo, PartnerRepoService>()("partner-api/partners/PartnerRepo") {
  static readonly layerSql = Layer.effect(
    PartnerRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const pg = yield* PgClient.PgClient
      // The live environment's callback URL is the partner's `callback_url`.
      const columns = sql`p.id, p.name, p.slug, p.status, p.commission_percent, live.callback_url, p.rate_limit_per_minute,
        p.rtp_policy, p.created_at, p.updated_at`
      const withLive = sql`JOIN partner_environments live ON live.partner_id = p.id AND live.environment = 'live'`
      // Lets every running service drop its cached token look-ups at once (see Partners).
      const announceChange = (slug: string) =>
        ChangeFeed.announce(partnersChangedChannel, slug).pipe(Effect.provideService(SqlClient.SqlClient, sql))

      const findByTokenHash = SqlSchema.findOneOption({
        Request: Schema.Uint8Array,
        Result: AccessRow,
        execute: (hash) =>
          sql`SELECT ${columns}, t.environment FROM partner_tokens t JOIN partners p ON p.id = t.partner_id ${withLive}
              WHERE t.token_hash = ${hash}`
      })
      const findBySlug = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: PartnerRow,
        execute: (slug) => sql`SELECT ${columns} FROM partners p ${withLive} WHERE p.slug = ${slug}`
      })
      const findById = SqlSchema.findOneOption({
        Request: Schema.Int,
        Result: PartnerRow,
        execute: (id) => sql`SELECT ${columns} FROM partners p ${withLive} WHERE p.id = ${id}`
      })
      const list = SqlSchema.findAll({
        Request: Schema.Void,
        Result: PartnerRow,
        execute: () => sql`SELECT ${columns} FROM partners p ${withLive} ORDER BY p.id`
      })
      const environmentsOf = SqlSchema.findAll({
        Request: Schema.Array(Schema.Int),
        Result: SettingsRow,
        execute: (ids) =>
          sql`
            SELECT e.partner_id, e.environment, e.callback_url, t.created_at AS token_issued_at
            FROM partner_environments e LEFT JOIN partner_tokens t USING (partner_id, environment)
            WHERE e.partner_id IN ${sql.in(ids)}
            ORDER BY e.partner_id, e.environment
          `
      })

      /** Marks the partner changed, tells every instance, and reads it back. */
      const touched = (slug: string) =>
        sql`UPDATE partners SET updated_at = now() WHERE slug = ${slug}`.pipe(
          Effect.andThen(findBySlug(slug)),
          Effect.tap((partner) => Option.isSome(partner) ? announceChange(slug) : Effect.void)
        )

      const insert = (partner: PartnerInsert) =>
        sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ id: string }>`
            INSERT INTO partners (name, slug, status, commission_percent, rate_limit_per_minute)
            VALUES (${partner.name}, ${partner.slug}, ${partner.status}, ${partner.commissionPercent}, ${partner.rateLimitPerMinute})
            ON CONFLICT (slug) DO NOTHING
            RETURNING id::text AS id
          `
          if (row === undefined) return Option.none()
          const secrets = yield* Effect.forEach(environments, (environment) =>
            sql`
              INSERT INTO partner_environments (partner_id, environment, callback_url)
              VALUES (${row.id}::bigint, ${environment}, ${partner.environments[environment].callbackUrl})
              RETURNING environment, webhook_secret
            `.pipe(
              Effect.flatMap(decodeSecretRows),
              Effect.tap(() =>
                sql`INSERT INTO partner_tokens (partner_id, environment, token_hash)
                    VALUES (${row.id}::bigint, ${environment}, ${partner.environments[environment].tokenHash})`
              )
            ))
          const created = yield* findBySlug(partner.slug)
          yield* announceChange(partner.slug)
          return Option.map(created, (found): InsertedPartner => ({
            partner: found,
            webhookSecrets: Object.fromEntries(secrets.flat().map((s) => [s.environment, s.webhook_secret])) as Record<Environment, string>
          }))
        })).pipe(
          Effect.orDie,
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new SlugTaken({ slug: partner.slug })),
            onSome: Effect.succeed
          }))
        )

      const update = (slug: string, patch: PartnerPatch) => {
        const changes: Record<string, unknown> = {}
        if (patch.name !== undefined) changes.name = patch.name
        if (patch.status !== undefined) changes.status = patch.status
        if (patch.commissionPercent !== undefined) changes.commission_percent = patch.commissionPercent
        if (patch.rateLimitPerMinute !== undefined) changes.rate_limit_per_minute = patch.rateLimitPerMinute
        if (patch.rtpPolicy !== undefined) changes.rtp_policy = JSON.stringify(patch.rtpPolicy)
        const urls = Object.entries(patch.callbackUrls ?? {}).filter(([, url]) => url !== undefined)
        return sql.withTransaction(Effect.gen(function*() {
          if (Object.keys(changes).length > 0) yield* sql`UPDATE partners SET ${sql.update(changes)} WHERE slug = ${slug}`
          yield* Effect.forEach(urls, ([environment, url]) =>
            sql`
              UPDATE partner_environments e SET callback_url = ${url ?? null}
              FROM partners p WHERE p.id = e.partner_id AND p.slug = ${slug} AND e.environment = ${environment}
            `)
          return yield* touched(slug)
        })).pipe(Effect.orDie)
      }

      const setToken = (slug: string, environment: Environment, hash: Uint8Array) =>
        sql.withTransaction(
          sql`
            INSERT INTO partner_tokens (partner_id, environment, token_hash)
            SELECT id, ${environment}, ${hash} FROM partners WHERE slug = ${slug}
            ON CONFLICT (partner_id, environment) DO UPDATE SET token_hash = excluded.token_hash, created_at = now()
          `.pipe(Effect.andThen(touched(slug)))
        ).pipe(Effect.orDie)

      const removeToken = (slug: string, environment: Environment) =>
        sql.withTransaction(Effect.gen(function*() {
          const removed = yield* sql`
            DELETE FROM partner_tokens t USING partners p
            WHERE p.id = t.partner_id AND p.slug = ${slug} AND t.environment = ${environment}
            RETURNING t.partner_id
          `
          return Option.map(yield* touched(slug), () => removed.length > 0)
        })).pipe(Effect.orDie)

      const rotateWebhookSecret = (slug: string, environment: Environment, overlap: Duration.Duration) =>
        sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql<{ webhook_secret: string }>`
            UPDATE partner_environments e
            SET webhook_secret = 'whsec_' || replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''),
                previous_webhook_secret = e.webhook_secret,
                previous_webhook_secret_until = now() + ${`${Duration.toMillis(overlap)} milliseconds`}::interval
            FROM partners p WHERE p.id = e.partner_id AND p.slug = ${slug} AND e.environment = ${environment}
            RETURNING e.webhook_secret
          `
          if (rows.length === 0) return Option.none()
          const partner = yield* touched(slug)
          return Option.map(partner, (partner) => ({ partner, webhookSecret: rows[0].webhook_secret }))
        })).pipe(Effect.orDie)

      const findCallbackTarget = SqlSchema.findOneOption({
        Request: Schema.Struct({ partnerId: Schema.Int, environment: Environment }),
        Result: TargetRow,
        execute: ({ environment, partnerId }) =>
          sql`
            SELECT p.id AS partner_id, e.environment, p.slug AS partner_slug, p.status = 'active' AS active,
                   e.callback_url, e.webhook_secret,
                   CASE WHEN e.previous_webhook_secret IS NOT NULL AND e.previous_webhook_secret_until IS NOT NULL
                     THEN json_build_object('secret', e.previous_webhook_secret,
                                            'until', floor(extract(epoch FROM e.previous_webhook_secret_until) * 1000))
                   END AS previous_secret
            FROM partner_environments e JOIN partners p ON p.id = e.partner_id
            WHERE e.partner_id = ${partnerId} AND e.environment = ${environment}
          `
      })

      return PartnerRepo.of({
        findByTokenHash: (hash) => Effect.orDie(findByTokenHash(hash)),
        findBySlug: (slug) => Effect.orDie(findBySlug(slug)),
        findById: (id) => Effect.orDie(findById(id)),
        list: Effect.orDie(list()),
        count: sql<{ count: number }>`SELECT count(*)::int AS count FROM partners`.pipe(
          Effect.map((rows) => rows[0].count),
          Effect.orDie
        ),
        insert,
        update,
        setToken,
        removeToken,
        rotateWebhookSecret,
        environmentsOf: (ids) => ids.length === 0 ? Effect.succeed([]) : Effect.orDie(environmentsOf(ids)),
        findCallbackTarget: (partnerId, environment) => Effect.orDie(findCallbackTarget({ partnerId, environment })),
        onChange: (effect) =>
          ChangeFeed.onChange(partnersChangedChannel, effect).pipe(Effect.provideService(PgClient.PgClient, pg))
      })
    })
  )

  /** Partner rows in memory, for tests without PostgreSQL; changes reach the listeners of this one instance. */
  static readonly layerMemory = Layer.sync(PartnerRepo, () => PartnerRepoMemory.make())
}
