import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { type PartnerRole, PartnerUser } from "../domain/PartnerUser.ts"
import { PartnerRepo } from "../partners/PartnerRepo.ts"
import { interval } from "../platform/SqlCodecs.ts"
import {
  countRows,
  decodeExtras,
  decodePartners,
  decodeUsers,
  EmailHasAccount,
  isAccountEmailTaken,
  PartnerEmailTaken,
  type UserOfPartner,
  UsersPartner
} from "./PartnerUserRows.ts"
import { memorySessions, type NewSessionRow, sessionRows } from "./Sessions.ts"

export { EmailHasAccount, PartnerEmailTaken, type UserOfPartner, UsersPartner }

/**
 * Partner users (partner_users) and their portal sessions (partner_user_sessions). Every read and change of a
 * partner's users names the partner in its WHERE clause, so nothing here reaches another partner's user by id.
 */
export class PartnerUserRepo extends Context.Service<PartnerUserRepo, {
  insert(
    user: {
      partnerId: number
      email: string
      role: PartnerRole
      invitationHash: Uint8Array
      invitationTtl: Duration.Duration
    }
  ): Effect.Effect<
    PartnerUser,
    PartnerEmailTaken
  >
  list(partnerId: number): Effect.Effect<ReadonlyArray<PartnerUser>>
  find(partnerId: number, userId: number): Effect.Effect<Option.Option<PartnerUser>>
  /**
   * A new invitation link for the user (the one before stops working); for a user who has set a password, only when
   * `resetAllowed` (none otherwise, even if they set it a moment ago).
   */
  reinvite(
    partnerId: number,
    userId: number,
    invitationHash: Uint8Array,
    invitationTtl: Duration.Duration,
    resetAllowed: boolean
  ): Effect.Effect<Option.Option<PartnerUser>>
  /** The user an open (not expired) invitation names, with their partner. */
  byInvitation(invitationHash: Uint8Array): Effect.Effect<Option.Option<UserOfPartner>>
  /**
   * Uses the invitation once: the password is set and the link closed, in one statement (two accepts: one wins).
   * Refused while the e-mail has an accepted account at another partner (of two accepts at two partners, one wins).
   */
  acceptInvitation(
    invitationHash: Uint8Array,
    passwordHash: string
  ): Effect.Effect<Option.Option<PartnerUser>, EmailHasAccount>
  /**
   * The account an e-mail names, with its partner and password hash (for a log-in): the accepted one; without one, a
   * pending invitation's user (no password: never a match), so the refusal says why.
   */
  credentials(email: string): Effect.Effect<Option.Option<UserOfPartner>>
  setPassword(userId: number, passwordHash: string): Effect.Effect<void>
  setRole(partnerId: number, userId: number, role: PartnerRole): Effect.Effect<Option.Option<PartnerUser>>
  remove(partnerId: number, userId: number): Effect.Effect<Option.Option<PartnerUser>>
  /**
   * Locks the partner's users until the transaction ends and counts its owners: a change that could leave a partner
   * without an owner checks the count under this lock, so two owners demoting each other cannot both pass.
   */
  lockOwners(partnerId: number): Effect.Effect<number>
  createSession(session: NewSessionRow): Effect.Effect<Date>
  /** A session that has not ended, of a user whose partner exists (its status is the caller's to judge). */
  findSession(idHash: Uint8Array): Effect.Effect<Option.Option<UserOfPartner>>
  deleteSession(idHash: Uint8Array): Effect.Effect<void>
  deleteSessionsOf(userId: number, keep?: Uint8Array): Effect.Effect<void>
}>()("partner-api/identity/PartnerUserRepo") {
  static readonly layerSql = Layer.effect(
    PartnerUserRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sessions = sessionRows(sql, { table: "partner_user_sessions", owner: "user_id" })
      const columns = sql`u.id, u.partner_id, u.email, u.role, u.password_hash IS NOT NULL AS password_set,
        u.invitation_expires_at, u.created_at`
      const partnerColumns = sql`p.id AS p_id, p.name AS p_name, p.slug AS p_slug, p.status AS p_status`

      const users = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
        query.pipe(Effect.flatMap(decodeUsers), Effect.orDie)
      const one = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
        Effect.map(users(query), (rows) => Option.fromNullishOr(rows[0]))

      /** Users read with their partner and the extra columns (each query names the ones it has, the rest NULL). */
      const withPartner = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
        query.pipe(
          Effect.flatMap((rows) => Effect.all([decodeUsers(rows), decodePartners(rows), decodeExtras(rows)])),
          Effect.map(([found, partners, extras]) =>
            Option.map(Option.fromNullishOr(found[0]), (user): UserOfPartner => ({
              user,
              partner: partners[0],
              passwordHash: extras[0].passwordHash,
              csrfToken: extras[0].csrfToken,
              expiresAt: extras[0].expiresAt
            }))
          ),
          Effect.orDie
        )

      const insert = (
        user: {
          partnerId: number
          email: string
          role: PartnerRole
          invitationHash: Uint8Array
          invitationTtl: Duration.Duration
        }
      ) =>
        one(sql`
          INSERT INTO partner_users AS u (partner_id, email, role, invitation_hash, invitation_expires_at)
          VALUES (${user.partnerId}, ${user.email}, ${user.role}, ${user.invitationHash}, now() + ${
          interval(user.invitationTtl)
        }::interval)
          ON CONFLICT (partner_id, email) DO NOTHING
          RETURNING ${columns}
        `).pipe(Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new PartnerEmailTaken({ email: user.email })),
          onSome: Effect.succeed
        })))

      return PartnerUserRepo.of({
        insert,
        list: (partnerId) =>
          users(sql`SELECT ${columns} FROM partner_users u WHERE u.partner_id = ${partnerId} ORDER BY u.email`),
        find: (partnerId, userId) =>
          one(sql`SELECT ${columns} FROM partner_users u WHERE u.partner_id = ${partnerId} AND u.id = ${userId}`),
        reinvite: (partnerId, userId, invitationHash, invitationTtl, resetAllowed) =>
          one(sql`
            UPDATE partner_users u
            SET invitation_hash = ${invitationHash}, invitation_expires_at = now() + ${
            interval(invitationTtl)
          }::interval, updated_at = now()
            WHERE u.partner_id = ${partnerId} AND u.id = ${userId} AND (${resetAllowed} OR u.password_hash IS NULL)
            RETURNING ${columns}
          `),
        byInvitation: (invitationHash) =>
          withPartner(sql`
            SELECT ${columns}, ${partnerColumns}, NULL AS password_hash, NULL AS csrf_token, u.invitation_expires_at AS expires_at
            FROM partner_users u JOIN partners p ON p.id = u.partner_id
            WHERE u.invitation_hash = ${invitationHash} AND u.invitation_expires_at > now()
          `),
        acceptInvitation: (invitationHash, passwordHash) =>
          sql`
            UPDATE partner_users u
            SET password_hash = ${passwordHash}, password_set_at = now(), invitation_hash = NULL, invitation_expires_at = NULL,
                updated_at = now()
            WHERE u.invitation_hash = ${invitationHash} AND u.invitation_expires_at > now()
            RETURNING ${columns}
          `.pipe(
            // The unique index of accepted accounts' e-mails decides, even between two accepts at once.
            Effect.catchIf(isAccountEmailTaken, () => Effect.fail(new EmailHasAccount())),
            Effect.flatMap(decodeUsers),
            Effect.catchTag("SchemaError", Effect.die),
            Effect.catchTag("SqlError", Effect.die),
            Effect.map((rows) => Option.fromNullishOr(rows[0]))
          ),
        credentials: (email) =>
          withPartner(sql`
            SELECT ${columns}, ${partnerColumns}, u.password_hash, NULL AS csrf_token, NULL AS expires_at
            FROM partner_users u JOIN partners p ON p.id = u.partner_id
            WHERE u.email = ${email}
            ORDER BY u.password_hash IS NULL, u.id LIMIT 1
          `),
        setPassword: (userId, passwordHash) =>
          sql`UPDATE partner_users SET password_hash = ${passwordHash}, password_set_at = now(), updated_at = now() WHERE id = ${userId}`
            .pipe(Effect.asVoid, Effect.orDie),
        setRole: (partnerId, userId, role) =>
          one(sql`
            UPDATE partner_users u SET role = ${role}, updated_at = now()
            WHERE u.partner_id = ${partnerId} AND u.id = ${userId}
            RETURNING ${columns}
          `),
        remove: (partnerId, userId) =>
          one(
            sql`DELETE FROM partner_users u WHERE u.partner_id = ${partnerId} AND u.id = ${userId} RETURNING ${columns}`
          ),
        // The partner's row is the lock (one row: no order to deadlock on), so the count is read after any change of
        // its users that committed first.
        lockOwners: (partnerId) =>
          sql`SELECT 1 FROM partners WHERE id = ${partnerId} FOR NO KEY UPDATE`.pipe(
            Effect.andThen(
              countRows(
                sql`SELECT count(*)::int AS n FROM partner_users WHERE partner_id = ${partnerId} AND role = 'owner'`
              )
            ),
            Effect.map((rows) => rows[0].n),
            Effect.orDie
          ),
        createSession: sessions.create,
        findSession: (idHash) =>
          withPartner(sql`
            SELECT ${columns}, ${partnerColumns}, NULL AS password_hash, s.csrf_token, s.expires_at
            FROM partner_user_sessions s
            JOIN partner_users u ON u.id = s.user_id
            JOIN partners p ON p.id = u.partner_id
            WHERE s.id_hash = ${idHash} AND s.expires_at > now()
          `),
        deleteSession: sessions.remove,
        deleteSessionsOf: sessions.removeAllOf
      })
    })
  )

  /**
   * The same rules over memory, for tests of the services and handlers without PostgreSQL (it reads the partners of
   * the PartnerRepo beside it, as the SQL joins them): an e-mail once per partner and once among accepted accounts, a partner's users in e-mail order,
   * invitations open until their end and used once, sessions live until theirs (by the Clock, so a test's clock can
   * pass them) and gone with their user. `lockOwners` counts the owners; memory has no transaction to hold a lock
   * until, so two owners demoting each other at once is a test for the SQL layer.
   */
  static readonly layerMemory = Layer.effect(
    PartnerUserRepo,
    Effect.gen(function*() {
      const partners = yield* PartnerRepo
      interface Stored {
        user: PartnerUser
        passwordHash: string | null
        invitation: string | null
      }
      const users = new Map<number, Stored>()
      const sessions = memorySessions()
      let nextId = 1
      const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
      const now = Clock.currentTimeMillis
      const change = (stored: Stored, fields: Partial<ConstructorParameters<typeof PartnerUser>[0]>) => {
        stored.user = new PartnerUser({ ...stored.user, ...fields })
        return stored.user
      }
      const ofPartner = (partnerId: number, userId: number) => {
        const stored = users.get(userId)
        return stored !== undefined && stored.user.partnerId === partnerId ? stored : undefined
      }
      const withEmail = (email: string) => [...users.values()].filter((stored) => stored.user.email === email)
      /** The accepted account of an e-mail, else its first pending user, as the SQL's ORDER BY picks. */
      const accountOf = (email: string) => {
        const all = withEmail(email)
        return all.find((stored) => stored.passwordHash !== null) ?? all[0]
      }
      /** The user whose invitation is open at `at`. */
      const invited = (invitationHash: Uint8Array, at: number) =>
        [...users.values()].find((stored) =>
          stored.invitation === hex(invitationHash) && stored.user.invitationExpiresAt !== null &&
          stored.user.invitationExpiresAt.getTime() > at
        )
      const partnerOf = (user: PartnerUser) =>
        Effect.map(
          partners.findById(user.partnerId),
          Option.map(({ id, name, slug, status }): UsersPartner => ({ id, name, slug, status }))
        )
      const withPartner = (stored: Stored | undefined, extra: Omit<UserOfPartner, "user" | "partner">) =>
        stored === undefined
          ? Effect.succeedNone
          : Effect.map(
            partnerOf(stored.user),
            Option.map((partner): UserOfPartner => ({ user: stored.user, partner, ...extra }))
          )
      /** The invitation hash is unique among open ones, as the SQL's index makes it. */
      const claimInvitation = (invitationHash: Uint8Array, except?: number) => {
        const taken = [...users.values()].some((stored) =>
          stored.invitation === hex(invitationHash) && stored.user.id !== except
        )
        return taken
          ? Effect.die(new Error("duplicate key value violates unique constraint \"partner_users_invitation_key\""))
          : Effect.void
      }

      return PartnerUserRepo.of({
        insert: ({ email, invitationHash, invitationTtl, partnerId, role }) =>
          Effect.gen(function*() {
            if (withEmail(email).some((stored) => stored.user.partnerId === partnerId)) {
              return yield* new PartnerEmailTaken({ email })
            }
            if (Option.isNone(yield* partners.findById(partnerId))) {
              return yield* Effect.die(new Error(`partner_users: no partner ${partnerId} (foreign key)`))
            }
            yield* claimInvitation(invitationHash)
            const at = yield* now
            const user = new PartnerUser({
              id: nextId++,
              partnerId,
              email,
              role,
              passwordSet: false,
              invitationExpiresAt: new Date(at + Duration.toMillis(invitationTtl)),
              createdAt: new Date(at)
            })
            users.set(user.id, { user, passwordHash: null, invitation: hex(invitationHash) })
            return user
          }),
        list: (partnerId) =>
          Effect.sync(() =>
            [...users.values()].map((stored) => stored.user).filter((user) => user.partnerId === partnerId)
              .sort((a, b) => a.email < b.email ? -1 : a.email > b.email ? 1 : 0)
          ),
        find: (partnerId, userId) =>
          Effect.sync(() => Option.map(Option.fromNullishOr(ofPartner(partnerId, userId)), (stored) => stored.user)),
        reinvite: (partnerId, userId, invitationHash, invitationTtl, resetAllowed) =>
          Effect.gen(function*() {
            const stored = ofPartner(partnerId, userId)
            if (stored === undefined || (!resetAllowed && stored.passwordHash !== null)) return Option.none()
            yield* claimInvitation(invitationHash, userId)
            const at = yield* now
            stored.invitation = hex(invitationHash)
            return Option.some(change(stored, { invitationExpiresAt: new Date(at + Duration.toMillis(invitationTtl)) }))
          }),
        byInvitation: (invitationHash) =>
          Effect.flatMap(now, (at) => {
            const stored = invited(invitationHash, at)
            return withPartner(stored, {
              passwordHash: null,
              csrfToken: null,
              expiresAt: stored?.user.invitationExpiresAt ?? null
            })
          }),
        acceptInvitation: (invitationHash, passwordHash) =>
          Effect.flatMap(now, (at) => {
            const stored = invited(invitationHash, at)
            if (stored === undefined) return Effect.succeedNone
            const elsewhere = withEmail(stored.user.email).some((other) =>
              other !== stored && other.passwordHash !== null
            )
            if (elsewhere) return Effect.fail(new EmailHasAccount())
            stored.passwordHash = passwordHash
            stored.invitation = null
            return Effect.succeedSome(change(stored, { passwordSet: true, invitationExpiresAt: null }))
          }),
        credentials: (email) =>
          Effect.suspend(() => {
            const stored = accountOf(email)
            return withPartner(stored, { passwordHash: stored?.passwordHash ?? null, csrfToken: null, expiresAt: null })
          }),
        setPassword: (userId, passwordHash) =>
          Effect.sync(() => {
            const stored = users.get(userId)
            if (stored === undefined) return
            stored.passwordHash = passwordHash
            change(stored, { passwordSet: true })
          }),
        setRole: (partnerId, userId, role) =>
          Effect.sync(() =>
            Option.map(Option.fromNullishOr(ofPartner(partnerId, userId)), (stored) => change(stored, { role }))
          ),
        remove: (partnerId, userId) =>
          Effect.gen(function*() {
            const stored = ofPartner(partnerId, userId)
            if (stored === undefined) return Option.none()
            users.delete(userId)
            // Its sessions go with it, as the foreign key's ON DELETE CASCADE takes them.
            yield* sessions.removeAllOf(userId)
            return Option.some(stored.user)
          }),
        lockOwners: (partnerId) =>
          Effect.sync(() =>
            [...users.values()].filter((stored) => stored.user.partnerId === partnerId && stored.user.role === "owner")
              .length
          ),
        createSession: (session) =>
          users.has(session.ownerId)
            ? sessions.create(session)
            : Effect.die(new Error(`partner_user_sessions: no user ${session.ownerId} (foreign key)`)),
        findSession: (idHash) =>
          Effect.flatMap(sessions.find(idHash), (session) =>
            session === undefined
              ? Effect.succeedNone
              : withPartner(users.get(session.ownerId), {
                passwordHash: null,
                csrfToken: session.csrfToken,
                expiresAt: session.expiresAt
              })),
        deleteSession: sessions.remove,
        deleteSessionsOf: sessions.removeAllOf
      })
    })
  )
}
