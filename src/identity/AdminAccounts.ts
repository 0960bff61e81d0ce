import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { type Actor, type AdminAccount, type AdminRole, isEmail, normalizeEmail } from "../domain/Admin.ts"
import { AdminAccountRepo, type Credentials, EmailTaken, type SessionRecord } from "./AdminAccountRepo.ts"
import { IdentityConfig } from "./IdentityConfig.ts"
import { AuditRepo } from "./AuditRepo.ts"
import { LoginAttemptRepo, LoginThrottled, throttleRules } from "./LoginAttemptRepo.ts"
import { generatePassword, type HashersBusy, hashPassword, PasswordHashing } from "./Passwords.ts"
import { hashSession } from "./Sessions.ts"
import { checkPassword, InvalidAccountInput, LoginRefused, makeLogin, replacementHash } from "./SignIn.ts"

export { EmailTaken, InvalidAccountInput, LoginRefused, LoginThrottled }

export class AdminNotFound extends Schema.TaggedError<AdminNotFound>()("AdminNotFound", { email: Schema.String }) {
  override get message() {
    return `No admin with e-mail "${this.email}".`
  }
}

/** The right one-time password, too late: only who knows it learns this. */
export class OneTimePasswordExpired extends Schema.TaggedError<OneTimePasswordExpired>()("OneTimePasswordExpired", {
  validFor: Schema.String
}) {
  override get message() {
    return `This one-time password has expired (they last ${this.validFor}): ask an operator for a new one ` +
      "(admins reset-password)."
  }
}

/** A new session: the cookie's value (shown to the browser only) and the CSRF token every change must carry. */
export interface NewSession {
  readonly sessionId: string
  readonly csrfToken: string
  readonly account: AdminAccount
  readonly mustChangePassword: boolean
  readonly expiresAt: Date
}

const accountView = (account: AdminAccount) => ({
  email: account.email,
  role: account.role,
  disabled: account.disabled
})

/**
 * Admin accounts and their console sessions: log-ins throttled before the
 * password is checked (counted in PostgreSQL, so every instance of a fleet
 * counts together), sessions that expire, one-time passwords that expire,
 * and every change, log-in, failed log-in and log-out in the audit trail,
 * each written in the same transaction as what it records.
 */
export class AdminAccounts extends Context.Service<AdminAccounts, {
  /** A new account with a one-time password (the admin chooses their own at the first log-in). */
  create(actor: Actor, input: { email: string; role: AdminRole; password?: string }): Effect.Effect<
    { account: AdminAccount; password: string },
    EmailTaken | InvalidAccountInput
  >
  readonly list: Effect.Effect<ReadonlyArray<AdminAccount>>
  /** A new one-time password; the account's sessions end and its lock-outs are lifted. */
  resetPassword(actor: Actor, email: string): Effect.Effect<{ account: AdminAccount; password: string }, AdminNotFound>
  setRole(actor: Actor, email: string, role: AdminRole): Effect.Effect<AdminAccount, AdminNotFound>
  setDisabled(actor: Actor, email: string, disabled: boolean): Effect.Effect<AdminAccount, AdminNotFound>
  login(email: string, password: string, clientAddress: string): Effect.Effect<
    NewSession,
    LoginRefused | LoginThrottled | OneTimePasswordExpired | HashersBusy
  >
  session(sessionId: string): Effect.Effect<Option.Option<SessionRecord>>
  logout(sessionId: string, account: AdminAccount): Effect.Effect<void>
  /** The current password checked under the log-in's throttle (counted against `clientAddress`). */
  changePassword(
    sessionId: string,
    account: AdminAccount,
    current: string,
    next: string,
    clientAddress: string
  ): Effect.Effect<void, LoginRefused | LoginThrottled | InvalidAccountInput | HashersBusy>
}>()("partner-api/identity/AdminAccounts") {
  static readonly layerNoDeps = Layer.effect(
    AdminAccounts,
    Effect.gen(function*() {
      const repo = yield* AdminAccountRepo
      const attempts = yield* LoginAttemptRepo
      const audit = yield* AuditRepo
      const config = yield* IdentityConfig
      const hashing = yield* PasswordHashing
      const rules = throttleRules(config)
      /** A change and its audit row commit together or not at all. */
      const inTransaction = audit.atomically
      const replaceHash = replacementHash({ attempts, hashing, rules }, "admin")

      const found = (email: string) => (result: Option.Option<AdminAccount>) =>
        Option.match(result, { onNone: () => Effect.fail(new AdminNotFound({ email })), onSome: Effect.succeed })

      const create = Effect.fn("AdminAccounts.create")(
        function*(actor: Actor, input: { email: string; role: AdminRole; password?: string }) {
          const email = normalizeEmail(input.email)
          if (!isEmail(email)) {
            return yield* new InvalidAccountInput({
              field: "email",
              message: "The email must be a valid e-mail address."
            })
          }
          const password = input.password ?? generatePassword()
          yield* checkPassword(password)
          const passwordHash = yield* hashPassword(password)
          const account = yield* inTransaction(Effect.gen(function*() {
            const account = yield* repo.insert({ email, role: input.role, passwordHash })
            if (input.password !== undefined) yield* repo.update(email, { mustChangePassword: false })
            yield* audit.record(actor, {
              action: "admin.create",
              target: `admin:${email}`,
              after: accountView(account)
            })
            return account
          }))
          return { account, password }
        }
      )

      const resetPassword = Effect.fn("AdminAccounts.resetPassword")(function*(actor: Actor, email: string) {
        const password = generatePassword()
        const key = normalizeEmail(email)
        const passwordHash = yield* hashPassword(password)
        const account = yield* inTransaction(Effect.gen(function*() {
          const account = yield* repo.update(key, { passwordHash, mustChangePassword: true }).pipe(
            Effect.flatMap(found(key))
          )
          yield* repo.deleteSessionsOf(account.id)
          yield* attempts.forgetEmail("admin", key)
          yield* audit.record(actor, { action: "admin.reset-password", target: `admin:${key}` })
          return account
        }))
        return { account, password }
      })

      const changeAccount = (action: string, patch: { role?: AdminRole; disabled?: boolean }) =>
        Effect.fn("AdminAccounts.change")(function*(actor: Actor, email: string) {
          const key = normalizeEmail(email)
          return yield* inTransaction(Effect.gen(function*() {
            const before = yield* repo.findByEmail(key).pipe(Effect.flatMap(found(key)))
            const after = yield* repo.update(key, patch).pipe(Effect.flatMap(found(key)))
            yield* repo.deleteSessionsOf(after.id)
            yield* audit.record(actor, {
              action,
              target: `admin:${key}`,
              before: accountView(before),
              after: accountView(after)
            })
            return after
          }))
        })

      const expired = (credentials: Credentials, now: number) =>
        credentials.mustChangePassword &&
        now - credentials.passwordSetAt.getTime() > Duration.toMillis(config.oneTimePasswordTtl)

      const signIn = makeLogin({ attempts, audit, hashing, rules }, {
        realm: "admin",
        via: "console",
        prefix: "admin",
        target: (email) => `admin:${email}`,
        claimant: (email) =>
          Effect.map(
            repo.credentials(email),
            Option.map((stored) => ({
              ...stored,
              barred: stored.account.disabled ? "account disabled" : undefined
            }))
          ),
        late: (stored, now) =>
          expired(stored, now)
            ? Option.some({
              reason: "one-time password expired",
              error: new OneTimePasswordExpired({ validFor: Duration.format(config.oneTimePasswordTtl) })
            })
            : Option.none(),
        openSession: (stored, session) =>
          repo.createSession({ ...session, ownerId: stored.account.id, ttl: config.sessionTtl })
      })

      const login = (email: string, password: string, clientAddress: string) =>
        Effect.map(
          signIn(email, password, clientAddress),
          ({ claimant, csrfToken, expiresAt, sessionId }): NewSession => ({
            sessionId,
            csrfToken,
            account: claimant.account,
            mustChangePassword: claimant.mustChangePassword,
            expiresAt
          })
        )

      const logout = Effect.fn("AdminAccounts.logout")(function*(sessionId: string, account: AdminAccount) {
        yield* inTransaction(Effect.gen(function*() {
          yield* repo.deleteSession(hashSession(sessionId))
          yield* audit.record({ name: account.email, via: "console" }, {
            action: "admin.logout",
            target: `admin:${account.email}`
          })
        }))
      })

      const changePassword = Effect.fn("AdminAccounts.changePassword")(
        function*(sessionId: string, account: AdminAccount, current: string, next: string, clientAddress: string) {
          const stored = yield* repo.credentials(account.email)
          const passwordHash = yield* replaceHash(
            { email: account.email, clientAddress },
            Option.match(stored, { onNone: () => null, onSome: (s) => s.passwordHash }),
            current,
            next
          )
          yield* inTransaction(Effect.gen(function*() {
            yield* repo.update(account.email, { passwordHash, mustChangePassword: false })
            // Other sessions of the account (perhaps someone else's) end; this one goes on.
            yield* repo.deleteSessionsOf(account.id, hashSession(sessionId))
            yield* audit.record({ name: account.email, via: "console" }, {
              action: "admin.change-password",
              target: `admin:${account.email}`
            })
          }))
        }
      )

      return AdminAccounts.of({
        create,
        list: repo.list,
        resetPassword,
        setRole: (actor, email, role) => changeAccount("admin.set-role", { role })(actor, email),
        setDisabled: (actor, email, disabled) =>
          changeAccount(disabled ? "admin.disable" : "admin.enable", { disabled })(actor, email),
        login,
        session: (sessionId) => sessionId === "" ? Effect.succeedNone : repo.findSession(hashSession(sessionId)),
        logout,
        changePassword
      })
    })
  )

  /** The service with its repositories and hash permits (the admin CLI's). */
  static readonly layer = this.layerNoDeps.pipe(
    Layer.provide(
      Layer.mergeAll(AdminAccountRepo.layerSql, AuditRepo.layerSql, LoginAttemptRepo.layerSql, PasswordHashing.layer)
    )
  )

  /**
   * The service over memory repositories, for tests of its rules (throttle, one-time passwords, audit)
   * without PostgreSQL; the audit trail is provided too, so a test can read what was recorded.
   */
  static readonly layerMemory = this.layerNoDeps.pipe(
    Layer.provideMerge(AuditRepo.layerMemory),
    Layer.provide(Layer.mergeAll(AdminAccountRepo.layerMemory, LoginAttemptRepo.layerMemory, PasswordHashing.layer))
  )
}
