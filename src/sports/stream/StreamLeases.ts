import { Clock, Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { SqlClient } from "effect/sql"
import type { Environment } from "../../domain/Environment.ts"
import { rowsOf } from "../../platform/SqlRows.ts"

/** A lease not renewed for this long belongs to an instance that is gone. */
export const leaseLifetime = Duration.seconds(30)

const leaseRows = rowsOf(Schema.Struct({ id: Schema.NullOr(Schema.String) }))

/**
 * The open streams of the fleet (sports_stream_connections), one lease each,
 * for STREAM_MAX_CONNECTIONS_PER_PARTNER: the only code that reads or writes
 * them. Taking one counts and inserts under a transaction lock of the
 * partner's, so connects racing on any instances never pass the limit.
 */
export class StreamLeases extends Context.Service<StreamLeases, {
  /** A lease for one more stream of the partner's environment, or none when it holds `limit` already. */
  acquire(options: {
    readonly partnerId: number
    readonly environment: Environment
    readonly instance: string
    readonly limit: number
  }): Effect.Effect<Option.Option<string>>
  release(id: string): Effect.Effect<void>
  /**
   * Keeps these leases of an instance alive for another leaseLifetime: those of its open streams, so a lease whose
   * stream never ran (its client gone before) lapses.
   */
  renew(instance: string, ids: ReadonlyArray<string>): Effect.Effect<void>
  /** Gives up every lease of an instance (it stops). */
  releaseAll(instance: string): Effect.Effect<void>
}>()("partner-api/sports/stream/StreamLeases") {
  static readonly layerSql = Layer.effect(
    StreamLeases,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const lifetime = Duration.toSeconds(leaseLifetime)
      const orDie = <A, E>(effect: Effect.Effect<A, E>) => Effect.orDie(effect)

      const acquire = Effect.fn("StreamLeases.acquire")(function*(options: {
        readonly partnerId: number
        readonly environment: Environment
        readonly instance: string
        readonly limit: number
      }) {
        const rows = yield* orDie(sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:stream-leases'), ${options.partnerId}::int)`
          yield* sql`
            DELETE FROM sports_stream_connections
            WHERE partner_id = ${options.partnerId} AND environment = ${options.environment} AND expires_at < now()
          `
          return yield* leaseRows(sql`
            INSERT INTO sports_stream_connections (partner_id, environment, instance, expires_at)
            SELECT ${options.partnerId}, ${options.environment}, ${options.instance}, now() + make_interval(secs => ${lifetime})
            WHERE (SELECT count(*) FROM sports_stream_connections
                   WHERE partner_id = ${options.partnerId} AND environment = ${options.environment}) < ${options.limit}
            RETURNING id::text AS id
          `)
        })))
        return Option.fromNullishOr(rows[0]?.id)
      })

      return StreamLeases.of({
        acquire,
        release: (id) => orDie(sql`DELETE FROM sports_stream_connections WHERE id = ${id}::uuid`).pipe(Effect.asVoid),
        renew: (instance, ids) =>
          ids.length === 0 ? Effect.void : orDie(sql`
            UPDATE sports_stream_connections SET expires_at = now() + make_interval(secs => ${lifetime})
            WHERE instance = ${instance} AND id = ANY(${ids}::uuid[])
          `).pipe(Effect.asVoid),
        releaseAll: (instance) =>
          orDie(sql`DELETE FROM sports_stream_connections WHERE instance = ${instance}`).pipe(Effect.asVoid)
      })
    })
  )

  /**
   * The same rules over memory, for tests without PostgreSQL: a lease is taken only under the partner
   * environment's limit (counting and taking are one step, so racing connects never pass it), and lasts
   * leaseLifetime from its taking or renewal, by the Clock. Its partners are not checked (the SQL's foreign key is).
   */
  static readonly layerMemory = Layer.sync(StreamLeases, () => {
    const leases = new Map<
      string,
      { readonly partnerId: number; readonly environment: Environment; readonly instance: string; expiresAt: number }
    >()
    const lifetime = Duration.toMillis(leaseLifetime)
    return StreamLeases.of({
      acquire: ({ environment, instance, limit, partnerId }) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const held = [...leases].filter(([, lease]) =>
            lease.partnerId === partnerId && lease.environment === environment
          )
          for (const [id, lease] of held) if (lease.expiresAt < now) leases.delete(id)
          if (held.filter(([, lease]) => lease.expiresAt >= now).length >= limit) return Option.none()
          const id = randomUUID()
          leases.set(id, { partnerId, environment, instance, expiresAt: now + lifetime })
          return Option.some(id)
        }),
      release: (id) => Effect.sync(() => void leases.delete(id)),
      renew: (instance, ids) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          for (const id of ids) {
            const lease = leases.get(id)
            if (lease?.instance === instance) lease.expiresAt = now + lifetime
          }
        }),
      releaseAll: (instance) =>
        Effect.sync(() => {
          for (const [id, lease] of leases) if (lease.instance === instance) leases.delete(id)
        })
    })
  })
}
