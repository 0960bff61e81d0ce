import { Clock, Duration, Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { hash, randomBytes, timingSafeEqual } from "node:crypto"
import { interval } from "../platform/SqlCodecs.ts"
import { rowsOf } from "../platform/SqlRows.ts"

/*
 * Sessions as the operator console and the partner portal keep them: the cookie's value is shown to the browser
 * only and stored as its SHA-256, so a copy of the table opens nothing; each session has a CSRF token every change
 * must carry, and an end. One implementation over each realm's table (admin_sessions, partner_user_sessions).
 */

/** A new session's secrets: the cookie's value and its CSRF token, 256 random bits each. */
export const newSessionSecrets = () => ({
  sessionId: randomBytes(32).toString("base64url"),
  csrfToken: randomBytes(32).toString("base64url")
})

export const hashSession = (sessionId: string): Uint8Array => hash("sha256", sessionId, "buffer")

/** Compares two secrets in constant time (whatever their lengths). */
export const sameSecret = (given: string, expected: string) => {
  const a = hash("sha256", given, "buffer")
  const b = hash("sha256", expected, "buffer")
  return timingSafeEqual(a, b) && given.length === expected.length
}

/** A realm's session table and the column naming whose session it is. */
export type SessionTable =
  | { readonly table: "admin_sessions"; readonly owner: "account_id" }
  | { readonly table: "partner_user_sessions"; readonly owner: "user_id" }

export interface NewSessionRow {
  readonly idHash: Uint8Array
  readonly ownerId: number
  readonly csrfToken: string
  readonly ttl: Duration.Duration
}

const createdRows = rowsOf(
  Schema.Struct({ expiresAt: Schema.Date }).pipe(Schema.encodeKeys({ expiresAt: "expires_at" }))
)

/** The writes every realm makes to its session table (reading one joins the realm's accounts, so it is the realm's). */
export const sessionRows = (sql: SqlClient.SqlClient, { owner, table }: SessionTable) => ({
  create: ({ csrfToken, idHash, ownerId, ttl }: NewSessionRow) =>
    createdRows(sql`
      INSERT INTO ${sql(table)} (id_hash, ${sql(owner)}, csrf_token, expires_at)
      VALUES (${idHash}, ${ownerId}, ${csrfToken}, now() + ${interval(ttl)}::interval)
      RETURNING expires_at
    `).pipe(
      // Expired sessions are swept as new ones begin, so the table stays the size of the live ones.
      Effect.tap(() => sql`DELETE FROM ${sql(table)} WHERE expires_at < now() - interval '1 day'`.pipe(Effect.orDie)),
      Effect.map((rows) => rows[0].expiresAt)
    ),
  remove: (idHash: Uint8Array) =>
    sql`DELETE FROM ${sql(table)} WHERE id_hash = ${idHash}`.pipe(Effect.asVoid, Effect.orDie),
  /** Ends every session of one owner (disabled, removed, its password or role changed), but `keep`. */
  removeAllOf: (ownerId: number, keep?: Uint8Array) =>
    (keep === undefined
      ? sql`DELETE FROM ${sql(table)} WHERE ${sql(owner)} = ${ownerId}`
      : sql`DELETE FROM ${sql(table)} WHERE ${sql(owner)} = ${ownerId} AND id_hash <> ${keep}`).pipe(
        Effect.asVoid,
        Effect.orDie
      )
})

/** The same sessions over memory, by the Clock (a test's clock can end them), for tests without PostgreSQL. */
export const memorySessions = () => {
  const sessions = new Map<string, { readonly ownerId: number; readonly csrfToken: string; readonly expiresAt: Date }>()
  const key = (idHash: Uint8Array) => Buffer.from(idHash).toString("hex")
  return {
    create: ({ csrfToken, idHash, ownerId, ttl }: NewSessionRow) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const expiresAt = new Date(now + Duration.toMillis(ttl))
        sessions.set(key(idHash), { ownerId, csrfToken, expiresAt })
        return expiresAt
      }),
    /** A session that has not ended. */
    find: (idHash: Uint8Array) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const session = sessions.get(key(idHash))
        return session === undefined || session.expiresAt.getTime() <= now ? undefined : session
      }),
    remove: (idHash: Uint8Array) => Effect.sync(() => void sessions.delete(key(idHash))),
    removeAllOf: (ownerId: number, keep?: Uint8Array) =>
      Effect.sync(() => {
        for (
          const [id, session] of sessions
        ) if (session.ownerId === ownerId && (keep === undefined || id !== key(keep))) sessions.delete(id)
      })
  }
}
