import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { AdminAccount, type AdminRole } from "../domain/Admin.ts"
import { IdFromBigInt } from "../platform/SqlCodecs.ts"
import { memorySessions, type NewSessionRow, sessionRows } from "./Sessions.ts"

const AccountRow = Schema.Struct({
  id: IdFromBigInt,
  email: Schema.String,
  role: Schema.String,
  disabled: Schema.Boolean,
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}).pipe(Schema.encodeKeys({ createdAt: "created_at", updatedAt: "updated_at" }), Schema.decodeTo(AdminAccount))

const Credentials = Schema.Struct({
  password_hash: Schema.String,
  must_change_password: Schema.Boolean,
  password_set_at: Schema.Date
})
const decodeAccounts = Schema.decodeUnknownEffect(Schema.Array(AccountRow))
const decodeCredentials = Schema.decodeUnknownEffect(Schema.Array(Credentials))

/** A session as the console's middleware reads it: whose it is and its CSRF token. */
export interface SessionRecord {
  readonly account: AdminAccount
  readonly csrfToken: string
  readonly mustChangePassword: boolean
  readonly expiresAt: Date
}

export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", { email: Schema.String }) {
  override get message() {
    return `An admin with e-mail "${this.email}" already exists.`
  }
}

/** What checking a log-in needs of an account: its password hash, and whether (and since when) it is a one-time one. */
export interface Credentials {
  readonly account: AdminAccount
  readonly passwordHash: string
  readonly mustChangePassword: boolean
  readonly passwordSetAt: Date
}

/**
 * Admin accounts and their sessions (admin_accounts, admin_sessions).
 * Sessions are kept by the SHA-256 of their cookie, so a copy of the table
 * opens no console.
 */
export class AdminAccountRepo extends Context.Service<AdminAccountRepo, {
  insert(account: { email: string; role: AdminRole; passwordHash: string }): Effect.Effect<AdminAccount, EmailTaken>
  readonly list: Effect.Effect<ReadonlyArray<AdminAccount>>
  findByEmail(email: string): Effect.Effect<Option.Option<AdminAccount>>
  /** The account and its password hash, for checking a log-in. */
  credentials(email: string): Effect.Effect<Option.Option<Credentials>>
  update(
    email: string,
    patch: { role?: AdminRole; disabled?: boolean; passwordHash?: string; mustChangePassword?: boolean }
  ): Effect.Effect<Option.Option<AdminAccount>>
  createSession(session: NewSessionRow): Effect.Effect<Date>
  /** A session that has not expired, of an account that is not disabled. */
  findSession(idHash: Uint8Array): Effect.Effect<Option.Option<SessionRecord>>
  deleteSession(idHash: Uint8Array): Effect.Effect<void>
  /** Ends every session of an account (disabled, its password or role changed), but `keep`. */
  deleteSessionsOf(accountId: number, keep?: Uint8Array): Effect.Effect<void>
}>()("partner-api/identity/AdminAccountRepo") {
  static readonly layerSql = Layer.effect(
    AdminAccountRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const columns = sql`id, email, role, disabled, created_at, updated_at`

      const list = SqlSchema.findAll({
        Request: Schema.Void,
        Result: AccountRow,
        execute: () => sql`SELECT ${columns} FROM admin_accounts ORDER BY email`
      })
      const findByEmail = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: AccountRow,
        execute: (email) => sql`SELECT ${columns} FROM admin_accounts WHERE email = ${email}`
      })

      const insert = (account: { email: string; role: AdminRole; passwordHash: string }) =>
        sql`
          INSERT INTO admin_accounts (email, role, password_hash)
          VALUES (${account.email}, ${account.role}, ${account.passwordHash})
          ON CONFLICT (email) DO NOTHING
          RETURNING ${columns}
        `.pipe(
          Effect.flatMap(decodeAccounts),
          Effect.orDie,
          Effect.flatMap((rows) =>
            rows.length === 0 ? Effect.fail(new EmailTaken({ email: account.email })) : Effect.succeed(rows[0])
          )
        )

      const credentials = (email: string) =>
        sql`SELECT ${columns}, password_hash, must_change_password, password_set_at FROM admin_accounts WHERE email = ${email}`
          .pipe(
            Effect.flatMap((rows) => Effect.all([decodeAccounts(rows), decodeCredentials(rows)])),
            Effect.map(([accounts, secrets]) =>
              accounts.length === 0 ? Option.none() : Option.some({
                account: accounts[0],
                passwordHash: secrets[0].password_hash,
                mustChangePassword: secrets[0].must_change_password,
                passwordSetAt: secrets[0].password_set_at
              })
            ),
            Effect.orDie
          )

      const update = (
        email: string,
        patch: { role?: AdminRole; disabled?: boolean; passwordHash?: string; mustChangePassword?: boolean }
      ) => {
        const changes: Record<string, unknown> = {}
        if (patch.role !== undefined) changes.role = patch.role
        if (patch.disabled !== undefined) changes.disabled = patch.disabled
        if (patch.passwordHash !== undefined) {
          changes.password_hash = patch.passwordHash
          changes.password_set_at = new Date()
        }
        if (patch.mustChangePassword !== undefined) changes.must_change_password = patch.mustChangePassword
        return sql`
          UPDATE admin_accounts SET ${
          sql.update(changes)
        }, updated_at = now() WHERE email = ${email} RETURNING ${columns}
        `.pipe(Effect.flatMap(decodeAccounts), Effect.map((rows) => Option.fromNullishOr(rows[0])), Effect.orDie)
      }

      const sessions = sessionRows(sql, { table: "admin_sessions", owner: "account_id" })
      const SessionRow = Schema.Struct({
        csrf_token: Schema.String,
        must_change_password: Schema.Boolean,
        expires_at: Schema.Date
      })
      const decodeSessions = Schema.decodeUnknownEffect(Schema.Array(SessionRow))
      const findSession = (idHash: Uint8Array) =>
        sql`
          SELECT a.id, a.email, a.role, a.disabled, a.created_at, a.updated_at, a.must_change_password,
                 s.csrf_token, s.expires_at
          FROM admin_sessions s JOIN admin_accounts a ON a.id = s.account_id
          WHERE s.id_hash = ${idHash} AND s.expires_at > now() AND NOT a.disabled
        `.pipe(
          Effect.flatMap((rows) => Effect.all([decodeAccounts(rows), decodeSessions(rows)])),
          Effect.map(([accounts, sessions]): Option.Option<SessionRecord> =>
            accounts.length === 0 ? Option.none() : Option.some({
              account: accounts[0],
              csrfToken: sessions[0].csrf_token,
              mustChangePassword: sessions[0].must_change_password,
              expiresAt: sessions[0].expires_at
            })
          ),
          Effect.orDie
        )

      return AdminAccountRepo.of({
        insert,
        list: Effect.orDie(list()),
        findByEmail: (email) => Effect.orDie(findByEmail(email)),
        credentials,
        update,
        createSession: sessions.create,
        findSession,
        deleteSession: sessions.remove,
        deleteSessionsOf: sessions.removeAllOf
      })
    })
  )

  /**
   * The same rules over memory, for tests of the services and handlers without PostgreSQL: e-mails unique,
   * a new account's password one-time, sessions kept by their hash and live until `expiresAt` (by the
   * Clock, so a test's clock can pass it), none of a disabled account's.
   */
  static readonly layerMemory = Layer.sync(AdminAccountRepo, () => {
    interface Stored {
      account: AdminAccount
      passwordHash: string
      mustChangePassword: boolean
      passwordSetAt: Date
    }
    const accounts = new Map<string, Stored>()
    const sessions = memorySessions()
    let nextId = 1
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const byId = (id: number) => [...accounts.values()].find((stored) => stored.account.id === id)
    return AdminAccountRepo.of({
      insert: ({ email, passwordHash, role }) =>
        Effect.gen(function*() {
          if (accounts.has(email)) return yield* new EmailTaken({ email })
          const at = yield* now
          const account = new AdminAccount({
            id: nextId++,
            email,
            role,
            disabled: false,
            createdAt: at,
            updatedAt: at
          })
          accounts.set(email, { account, passwordHash, mustChangePassword: true, passwordSetAt: at })
          return account
        }),
      list: Effect.sync(() =>
        [...accounts.values()].map((stored) => stored.account).sort((a, b) => a.email < b.email ? -1 : 1)
      ),
      findByEmail: (email) =>
        Effect.sync(() => Option.map(Option.fromNullishOr(accounts.get(email)), (stored) => stored.account)),
      credentials: (email) =>
        Effect.sync(() => Option.map(Option.fromNullishOr(accounts.get(email)), (stored) => ({ ...stored }))),
      update: (email, patch) =>
        Effect.gen(function*() {
          const stored = accounts.get(email)
          if (stored === undefined) return Option.none()
          const at = yield* now
          stored.account = new AdminAccount({
            ...stored.account,
            role: patch.role ?? stored.account.role,
            disabled: patch.disabled ?? stored.account.disabled,
            updatedAt: at
          })
          if (patch.passwordHash !== undefined) {
            stored.passwordHash = patch.passwordHash
            stored.passwordSetAt = at
          }
          if (patch.mustChangePassword !== undefined) stored.mustChangePassword = patch.mustChangePassword
          return Option.some(stored.account)
        }),
      createSession: sessions.create,
      findSession: (idHash) =>
        Effect.map(sessions.find(idHash), (session): Option.Option<SessionRecord> => {
          const stored = session === undefined ? undefined : byId(session.ownerId)
          if (session === undefined || stored === undefined || stored.account.disabled) return Option.none()
          return Option.some({
            account: stored.account,
            csrfToken: session.csrfToken,
            mustChangePassword: stored.mustChangePassword,
            expiresAt: session.expiresAt
          })
        }),
      deleteSession: sessions.remove,
      deleteSessionsOf: sessions.removeAllOf
    })
  })
}
