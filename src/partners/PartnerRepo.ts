import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Partner, type PartnerStatus } from "../domain/Partner.ts"
import * as ChangeFeed from "../platform/ChangeFeed.ts"
import { IdFromBigInt, NumberFromNumeric } from "../platform/SqlCodecs.ts"

const PartnerRow = Schema.Struct({
  id: IdFromBigInt,
  name: Schema.String,
  slug: Schema.String,
  status: Schema.String,
  commission_percent: NumberFromNumeric,
  callback_url: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
}).pipe(Schema.decodeTo(Partner))

export interface PartnerInsert {
  readonly name: string
  readonly slug: string
  readonly status: PartnerStatus
  readonly commissionPercent: number
  readonly callbackUrl: string | null
  readonly tokenHash: Uint8Array
}

export interface PartnerPatch {
  readonly name?: string | undefined
  readonly status?: PartnerStatus | undefined
  readonly commissionPercent?: number | undefined
  readonly callbackUrl?: string | null | undefined
  readonly tokenHash?: Uint8Array | undefined
}

export class SlugTaken extends Schema.TaggedError<SlugTaken>()("SlugTaken", { slug: Schema.String }) {
  override get message() {
    return `A partner with slug "${this.slug}" already exists.`
  }
}

/** NOTIFY channel announcing that some partner row changed (from any process: service, admin CLI). */
export const partnersChangedChannel = "partner_api_partners_changed"

/** Partner rows in PostgreSQL. Database failures are defects here: callers cannot act on them. */
export class PartnerRepo extends Context.Service<PartnerRepo, {
  findByTokenHash(hash: Uint8Array): Effect.Effect<Option.Option<Partner>>
  findBySlug(slug: string): Effect.Effect<Option.Option<Partner>>
  readonly list: Effect.Effect<ReadonlyArray<Partner>>
  readonly count: Effect.Effect<number>
  insert(partner: PartnerInsert): Effect.Effect<Partner, SlugTaken>
  update(slug: string, patch: PartnerPatch): Effect.Effect<Option.Option<Partner>>
}>()("partner-api/partners/PartnerRepo") {
  static readonly layer = Layer.effect(
    PartnerRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns = sql`id, name, slug, status, commission_percent, callback_url, created_at, updated_at`
      // Lets every running service drop its cached token look-ups at once (see Partners).
      const announceChange = (slug: string) =>
        ChangeFeed.announce(partnersChangedChannel, slug).pipe(Effect.provideService(SqlClient.SqlClient, sql))

      const findByTokenHash = SqlSchema.findOneOption({
        Request: Schema.Uint8Array,
        Result: PartnerRow,
        execute: (hash) => sql`SELECT ${columns} FROM partners WHERE token_hash = ${hash}`
      })
      const findBySlug = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: PartnerRow,
        execute: (slug) => sql`SELECT ${columns} FROM partners WHERE slug = ${slug}`
      })
      const list = SqlSchema.findAll({
        Request: Schema.Void,
        Result: PartnerRow,
        execute: () => sql`SELECT ${columns} FROM partners ORDER BY id`
      })

      const insert = (partner: PartnerInsert) =>
        sql`
          INSERT INTO partners (name, slug, status, commission_percent, callback_url, token_hash)
          VALUES (${partner.name}, ${partner.slug}, ${partner.status}, ${partner.commissionPercent},
                  ${partner.callbackUrl}, ${partner.tokenHash})
          ON CONFLICT (slug) DO NOTHING
          RETURNING ${columns}
        `.pipe(
          Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(PartnerRow))),
          Effect.orDie,
          Effect.flatMap((rows) =>
            rows.length === 0
              ? Effect.fail(new SlugTaken({ slug: partner.slug }))
              : Effect.as(announceChange(partner.slug), rows[0])
          )
        )

      const update = (slug: string, patch: PartnerPatch) => {
        const changes: Record<string, unknown> = {}
        if (patch.name !== undefined) changes.name = patch.name
        if (patch.status !== undefined) changes.status = patch.status
        if (patch.commissionPercent !== undefined) changes.commission_percent = patch.commissionPercent
        if (patch.callbackUrl !== undefined) changes.callback_url = patch.callbackUrl
        if (patch.tokenHash !== undefined) changes.token_hash = patch.tokenHash
        return sql`
          UPDATE partners SET ${sql.update(changes)}, updated_at = now()
          WHERE slug = ${slug}
          RETURNING ${columns}
        `.pipe(
          Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(PartnerRow))),
          Effect.map((rows) => Option.fromNullishOr(rows[0])),
          Effect.tap((updated) => Option.isSome(updated) ? announceChange(slug) : Effect.void),
          Effect.orDie
        )
      }

      return PartnerRepo.of({
        findByTokenHash: (hash) => Effect.orDie(findByTokenHash(hash)),
        findBySlug: (slug) => Effect.orDie(findBySlug(slug)),
        list: Effect.orDie(list()),
        count: sql<{ count: number }>`SELECT count(*)::int AS count FROM partners`.pipe(
          Effect.map((rows) => rows[0].count),
          Effect.orDie
        ),
        insert,
        update
      })
    })
  )
}
