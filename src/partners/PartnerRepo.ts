import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Environment, environments } from "../domain/Environment.ts"
import { CallbackTarget, IssuedToken, Partner, PartnerAccess, PartnerEnvironmentSettings } from "../domain/Partner.ts"
import * as ChangeFeed from "../platform/ChangeFeed.ts"
import * as PartnerRepoMemory from "./PartnerRepoMemory.ts"
import {
  type InsertedPartner,
  type PartnerInsert,
  type PartnerPatch,
  type PartnerRepoService,
  SlugTaken,
  type TokenInsert
} from "./PartnerWrites.ts"
import { IdFromBigInt, interval, NumberFromNumeric } from "../platform/SqlCodecs.ts"

/** The columns of a partners row (with its live environment's callback URL) under the domain's names. */
const partnerColumns = {
  commissionPercent: "commission_percent",
  callbackUrl: "callback_url",
  rateLimitPerMinute: "rate_limit_per_minute",
  rtpPolicy: "rtp_policy",
  defaultCurrency: "default_currency",
  createdAt: "created_at",
  updatedAt: "updated_at"
} as const

/** A partners row: the domain's Partner, its id a BIGSERIAL (a bigint from the driver) and its commission NUMERIC (text). */
const PartnerRow = Schema.Struct({
  ...Partner.fields,
  id: IdFromBigInt,
  commissionPercent: NumberFromNumeric
}).pipe(Schema.encodeKeys(partnerColumns), Schema.decodeTo(Partner))

/** A partner and the environment of the token that found it. */
const AccessRow = Schema.Struct({
  ...PartnerAccess.fields,
  id: IdFromBigInt,
  commissionPercent: NumberFromNumeric
}).pipe(Schema.encodeKeys({ ...partnerColumns, tokenExpiresAt: "token_expires_at" }), Schema.decodeTo(PartnerAccess))

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

const SettingsRow = Schema.Struct({ ...PartnerEnvironmentSettings.fields, partnerId: IdFromBigInt }).pipe(
  Schema.encodeKeys({
    partnerId: "partner_id",
    callbackUrl: "callback_url",
    tokenIssuedAt: "token_issued_at",
    previousSecretUntil: "previous_secret_until"
  })
)

const TokenRow = Schema.Struct({ ...IssuedToken.fields, id: IdFromBigInt }).pipe(Schema.encodeKeys({
  prefix: "token_prefix",
  createdAt: "created_at",
  lastUsedAt: "last_used_at",
  expiresAt: "expires_at"
}))

const SecretRow = Schema.Struct({ environment: Environment, webhookSecret: Schema.String }).pipe(
  Schema.encodeKeys({ webhookSecret: "webhook_secret" })
)
const decodeSecretRows = Schema.decodeUnknownEffect(Schema.Array(SecretRow))
const decodeRotatedRows = Schema.decodeUnknownEffect(
  Schema.Array(
    Schema.Struct({ webhookSecret: Schema.String }).pipe(Schema.encodeKeys({ webhookSecret: "webhook_secret" }))
  )
)
const decodeInsertedRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.String })))
const decodeSlugRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ slug: Schema.String })))
const decodeCountRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ count: Schema.Int })))

export type { EnvironmentInsert, InsertedPartner, PartnerInsert, PartnerPatch } from "./PartnerWrites.ts"
export { SlugTaken } from "./PartnerWrites.ts"

/** NOTIFY channel announcing that some partner row changed (from any process: service, admin CLI). */
export const partnersChangedChannel = "partner_api_partners_changed"

/**
 * Partner rows in PostgreSQL: `partners`, and per environment `partner_environments` (callback URL,
 * webhook secrets) and `partner_tokens` (token hashes). Database failures are defects here: callers
 * cannot act on them. `Partner.callbackUrl` is the live environment's.
 */
export class PartnerRepo
  extends Context.Service<PartnerRepo, PartnerRepoService>()("partner-api/partners/PartnerRepo")
{
  static readonly layerSql = Layer.effect(
    PartnerRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const pg = yield* PgClient.PgClient
      // The live environment's callback URL is the partner's `callback_url`.
      const columns =
        sql`p.id, p.name, p.slug, p.status, p.commission_percent, live.callback_url, p.rate_limit_per_minute,
        p.rtp_policy, p.default_currency, p.currencies, p.created_at, p.updated_at`
      const withLive = sql`JOIN partner_environments live ON live.partner_id = p.id AND live.environment = 'live'`
      // Lets every running service drop its cached token look-ups at once (see Partners).
      const announceChange = (slug: string) =>
        ChangeFeed.announce(partnersChangedChannel, slug).pipe(Effect.provideService(SqlClient.SqlClient, sql))

      const findByTokenHash = SqlSchema.findOneOption({
        Request: Schema.Uint8Array,
        Result: AccessRow,
        execute: (hash) =>
          sql`SELECT ${columns}, t.environment, t.expires_at AS token_expires_at
              FROM partner_tokens t JOIN partners p ON p.id = t.partner_id ${withLive}
              WHERE t.token_hash = ${hash} AND (t.expires_at IS NULL OR t.expires_at > now())`
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
            SELECT e.partner_id, e.environment, e.callback_url, t.created_at AS token_issued_at,
                   CASE WHEN e.previous_webhook_secret_until > now() THEN e.previous_webhook_secret_until END AS previous_secret_until
            FROM partner_environments e
            LEFT JOIN partner_tokens t ON t.partner_id = e.partner_id AND t.environment = e.environment AND t.expires_at IS NULL
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
          const [row] = yield* sql`
            INSERT INTO partners (name, slug, status, commission_percent, rate_limit_per_minute)
            VALUES (${partner.name}, ${partner.slug}, ${partner.status}, ${partner.commissionPercent}, ${partner.rateLimitPerMinute})
            ON CONFLICT (slug) DO NOTHING
            RETURNING id::text AS id
          `.pipe(Effect.flatMap(decodeInsertedRows))
          if (row === undefined) return Option.none()
          const secrets = yield* Effect.forEach(environments, (environment) =>
            sql`
              INSERT INTO partner_environments (partner_id, environment, callback_url)
              VALUES (${row.id}::bigint, ${environment}, ${partner.environments[environment].callbackUrl})
              RETURNING environment, webhook_secret
            `.pipe(
              Effect.flatMap(decodeSecretRows),
              Effect.tap(() =>
                sql`INSERT INTO partner_tokens (partner_id, environment, token_hash, token_prefix)
                    VALUES (${row.id}::bigint, ${environment}, ${partner.environments[environment].token.hash},
                            ${partner.environments[environment].token.prefix})`
              )
            ))
          const created = yield* findBySlug(partner.slug)
          yield* announceChange(partner.slug)
          return Option.map(created, (found): InsertedPartner => ({
            partner: found,
            webhookSecrets: Object.fromEntries(secrets.flat().map((s) => [s.environment, s.webhookSecret])) as Record<
              Environment,
              string
            >
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
        if (patch.defaultCurrency !== undefined) changes.default_currency = patch.defaultCurrency
        const urls = Object.entries(patch.callbackUrls ?? {}).filter(([, url]) => url !== undefined)
        return sql.withTransaction(Effect.gen(function*() {
          if (Object.keys(changes).length > 0) {
            yield* sql`UPDATE partners SET ${sql.update(changes)} WHERE slug = ${slug}`
          }
          // An array is a parameter of its own, typed here (sql.update would leave its type to the driver).
          if (patch.currencies !== undefined) {
            yield* sql`UPDATE partners SET currencies = ${patch.currencies ?? null}::text[] WHERE slug = ${slug}`
          }
          yield* Effect.forEach(urls, ([environment, url]) =>
            sql`
              UPDATE partner_environments e SET callback_url = ${url ?? null}
              FROM partners p WHERE p.id = e.partner_id AND p.slug = ${slug} AND e.environment = ${environment}
            `)
          return yield* touched(slug)
        })).pipe(Effect.orDie)
      }

      const environmentTokens = (slug: string, environment: Environment) =>
        sql`partner_id = (SELECT id FROM partners WHERE slug = ${slug}) AND environment = ${environment}`

      const setToken = (slug: string, environment: Environment, token: TokenInsert, keepOld?: Duration.Duration) =>
        sql.withTransaction(Effect.gen(function*() {
          // Rolls of one environment one after the other: two at once would both insert a current token (the unique
          // index's 500), and a "stop now" roll would not see the token an overlapping one inserted beside it.
          yield* sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:token-roll'), hashtext(${`${slug}:${environment}`}))`
          const where = environmentTokens(slug, environment)
          if (keepOld === undefined) yield* sql`DELETE FROM partner_tokens WHERE ${where}`
          else {
            yield* sql`DELETE FROM partner_tokens WHERE ${where} AND expires_at <= now()`
            yield* sql`UPDATE partner_tokens SET expires_at = now() + ${
              interval(keepOld)
            }::interval WHERE ${where} AND expires_at IS NULL`
          }
          yield* sql`
            INSERT INTO partner_tokens (partner_id, environment, token_hash, token_prefix)
            SELECT id, ${environment}, ${token.hash}, ${token.prefix} FROM partners WHERE slug = ${slug}
          `
          return yield* touched(slug)
        })).pipe(Effect.orDie)

      const tokensOf = SqlSchema.findAll({
        Request: Schema.Int,
        Result: TokenRow,
        execute: (partnerId) =>
          sql`
            SELECT id, environment, token_prefix, created_at, last_used_at, expires_at FROM partner_tokens
            WHERE partner_id = ${partnerId} AND (expires_at IS NULL OR expires_at > now())
            ORDER BY environment, expires_at DESC NULLS FIRST, id DESC
          `
      })

      const endTokenOverlap = (partnerId: number, environment: Environment) =>
        sql`
          WITH ended AS (
            DELETE FROM partner_tokens WHERE partner_id = ${partnerId} AND environment = ${environment} AND expires_at IS NOT NULL
          )
          UPDATE partners SET updated_at = now() WHERE id = ${partnerId} RETURNING slug
        `.pipe(
          Effect.flatMap(decodeSlugRows),
          Effect.tap((rows) => rows.length === 0 ? Effect.void : announceChange(rows[0].slug)),
          Effect.asVoid,
          Effect.orDie
        )

      // One statement for every token used since the last write; a token already marked within the minute is not
      // written again, so a fleet of instances reporting the same token adds no churn.
      const recordTokenUse = (uses: ReadonlyArray<{ readonly hash: Uint8Array; readonly at: Date }>) =>
        uses.length === 0 ? Effect.void : sql`
          UPDATE partner_tokens t SET last_used_at = u.at
          FROM (
            SELECT decode(u.h, 'base64') AS hash, u.at
            FROM jsonb_to_recordset(${
          JSON.stringify(uses.map((use) => ({ h: Buffer.from(use.hash).toString("base64"), at: use.at.toISOString() })))
        }::jsonb) AS u(h text, at timestamptz)
          ) u
          WHERE t.token_hash = u.hash AND (t.last_used_at IS NULL OR t.last_used_at < u.at - interval '1 minute')
        `.pipe(Effect.asVoid, Effect.orDie)

      const removeToken = (slug: string, environment: Environment) =>
        sql.withTransaction(Effect.gen(function*() {
          const removed = yield* sql`DELETE FROM partner_tokens WHERE ${
            environmentTokens(slug, environment)
          } RETURNING partner_id`
          return Option.map(yield* touched(slug), () => removed.length > 0)
        })).pipe(Effect.orDie)

      const rotateWebhookSecret = (slug: string, environment: Environment, overlap: Duration.Duration) =>
        sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql`
            UPDATE partner_environments e
            SET webhook_secret = 'whsec_' || replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''),
                previous_webhook_secret = e.webhook_secret,
                previous_webhook_secret_until = now() + ${interval(overlap)}::interval
            FROM partners p WHERE p.id = e.partner_id AND p.slug = ${slug} AND e.environment = ${environment}
            RETURNING e.webhook_secret
          `.pipe(Effect.flatMap(decodeRotatedRows))
          if (rows.length === 0) return Option.none()
          const partner = yield* touched(slug)
          return Option.map(partner, (partner) => ({ partner, webhookSecret: rows[0].webhookSecret }))
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
        count: sql`SELECT count(*)::int AS count FROM partners`.pipe(
          Effect.flatMap(decodeCountRows),
          Effect.map((rows) => rows[0].count),
          Effect.orDie
        ),
        insert,
        update,
        setToken,
        removeToken,
        endTokenOverlap,
        tokensOf: (partnerId) => Effect.orDie(tokensOf(partnerId)),
        recordTokenUse,
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
