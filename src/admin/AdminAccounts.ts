import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { hash, randomBytes, timingSafeEqual } from "node:crypto"
import { type Actor, type AdminAccount, type AdminRole, isEmail, normalizeEmail } from "../domain/Admin.ts"
import { AdminAccountRepo, EmailTaken, type SessionRecord } from "./AdminAccountRepo.ts"
import { AdminConfig } from "./AdminConfig.ts"
import { AuditRepo } from "./AuditRepo.ts"
import { decoyHash, generatePassword, hashPassword, verifyPassword } from "./Passwords.ts"

export { EmailTaken }

export class AdminNotFound extends Schema.TaggedError<AdminNotFound>()("AdminNotFound", { email: Schema.String }) {
  override get message() {
    return `No admin with e-mail "${this.email}".`
  }
}

export class InvalidAdminInput extends Schema.TaggedError<InvalidAdminInput>()("InvalidAdminInput", {
  field: Schema.String,
  message: Schema.String
}) {}

/** A wrong e-mail or password: one answer for both, so it tells nothing about which accounts exist. */
export class LoginRefused extends Schema.TaggedError<LoginRefused>()("LoginRefused", {}) {
  override get message() {
    return "Wrong e-mail or password."
  }
}

export class LoginThrottled extends Schema.TaggedError<LoginThrottled>()("LoginThrottled", { retryAfterSeconds: Schema.Int }) {
  override get message() {
    return `Too many failed log-ins: try again in ${Math.ceil(this.retryAfterSeconds / 60)} minute(s).`
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

export const minPasswordLength = 12
const hashSession = (sessionId: string): Uint8Array => hash("sha256", sessionId, "buffer")

/** Compares two secrets in constant time (whatever their lengths). */
export const sameSecret = (given: string, expected: string) => {
  const a = hash("sha256", given, "buffer")
  const b = hash("sha256", expected, "buffer")
  return timingSafeEqual(a, b) && given.length === expected.length
}

const accountView = (account: AdminAccount) => ({ email: account.email, role: account.role, disabled: account.disabled })

/**
 * Admin accounts and their console sessions: log-in with throttling
 * (counted in PostgreSQL, so every instance of a fleet counts together),
 * sessions that expire, and the account changes the CLI makes, each in the
 * audit trail.
 */
export class AdminAccounts extends Context.Service<AdminAccounts, {
  /** A new account with a one-time password (the admin chooses their own at the first log-in). */
  create(actor: Actor, input: { email: string; role: AdminRole; password?: string }): Effect.Effect<
    { account: AdminAccount; password: string },
    EmailTaken | InvalidAdminInput
  >
  readonly list: Effect.Effect<ReadonlyArray<AdminAccount>>
  /** A new one-time password; the account's sessions end. */
  resetPassword(actor: Actor, email: string): Effect.Effect<{ account: AdminAccount; password: string }, AdminNotFound>
  setRole(actor: Actor, email: string, role: AdminRole): Effect.Effect<AdminAccount, AdminNotFound>
  setDisabled(actor: Actor, email: string, disabled: boolean): Effect.Effect<AdminAccount, AdminNotFound>
  login(email: string, password: string, clientAddress: string): Effect.Effect<NewSession, LoginRefused | LoginThrottled>
  session(sessionId: string): Effect.Effect<Option.Option<SessionRecord>>
  logout(sessionId: string): Effect.Effect<void>
  changePassword(sessionId: string, account: AdminAccount, current: string, next: string): Effect.Effect<void, LoginRefused | InvalidAdminInput>
}>()("partner-api/admin/AdminAccounts") {
  static readonly layerNoDeps = Layer.effect(
    AdminAccounts,
    Effect.gen(function*() {
      const repo = yield* AdminAccountRepo
      const audit = yield* AuditRepo
      const config = yield* AdminConfig

      const found = (email: string) => (result: Option.Option<AdminAccount>) =>
        Option.match(result, { onNone: () => Effect.fail(new AdminNotFound({ email })), onSome: Effect.succeed })

      const checkPassword = (password: string) =>
        password.length < minPasswordLength || password.length > 200
          ? Effect.fail(new InvalidAdminInput({
            field: "password",
            message: `The password must have ${minPasswordLength} to 200 characters.`
          }))
          : Effect.void

      const create = Effect.fn("AdminAccounts.create")(function*(actor: Actor, input: { email: string; role: AdminRole; password?: string }) {
        const email = normalizeEmail(input.email)
        if (!isEmail(email)) return yield* new InvalidAdminInput({ field: "email", message: "The email must be a valid e-mail address." })
        const password = input.password ?? generatePassword()
        yield* checkPassword(password)
        const account = yield* repo.insert({ email, role: input.role, passwordHash: yield* hashPassword(password) })
        if (input.password !== undefined) yield* repo.update(email, { mustChangePassword: false })
        yield* audit.record(actor, { action: "admin.create", target: `admin:${email}`, after: accountView(account) })
        return { account, password }
      })

      const resetPassword = Effect.fn("AdminAccounts.resetPassword")(function*(actor: Actor, email: string) {
        const password = generatePassword()
        const key = normalizeEmail(email)
        const account = yield* repo.update(key, { passwordHash: yield* hashPassword(password), mustChangePassword: true })
          .pipe(Effect.flatMap(found(key)))
        yield* repo.deleteSessionsOf(account.id)
        yield* repo.clearFailures(`email:${key}`)
        yield* audit.record(actor, { action: "admin.reset-password", target: `admin:${key}` })
        return { account, password }
      })

      const changeAccount = (action: string, patch: { role?: AdminRole; disabled?: boolean }) =>
        Effect.fn("AdminAccounts.change")(function*(actor: Actor, email: string) {
          const key = normalizeEmail(email)
          const before = yield* repo.findByEmail(key).pipe(Effect.flatMap(found(key)))
          const after = yield* repo.update(key, patch).pipe(Effect.flatMap(found(key)))
          yield* repo.deleteSessionsOf(after.id)
          yield* audit.record(actor, { action, target: `admin:${key}`, before: accountView(before), after: accountView(after) })
          return after
        })

      /** Refuses a log-in while the e-mail, or the address it comes from, has failed too often lately. */
      const throttle = Effect.fnUntraced(function*(keys: ReadonlyArray<readonly [string, number]>) {
        for (const [key, max] of keys) {
          const { count, oldest } = yield* repo.failures(key, config.loginWindow)
          if (count >= max && oldest !== null) {
            const until = oldest.getTime() + Duration.toMillis(config.loginWindow)
            return yield* new LoginThrottled({ retryAfterSeconds: Math.max(1, Math.ceil((until - Date.now()) / 1000)) })
          }
        }
      })

      const login = Effect.fn("AdminAccounts.login")(function*(rawEmail: string, password: string, clientAddress: string) {
        const email = normalizeEmail(rawEmail).slice(0, 254)
        const keys = [[`email:${email}`, config.loginMaxFailures], [`address:${clientAddress}`, config.loginMaxFailures * 10]] as const
        yield* throttle(keys)
        const stored = yield* repo.credentials(email)
        // The hash is checked even for an unknown e-mail, so timing does not tell which accounts exist.
        const matches = yield* verifyPassword(password, Option.match(stored, { onNone: () => decoyHash, onSome: (s) => s.passwordHash }))
        if (!matches || Option.isNone(stored) || stored.value.account.disabled) {
          yield* repo.recordFailure(keys.map(([key]) => key))
          yield* Effect.logWarning("Admin log-in refused").pipe(Effect.annotateLogs({ email, client: clientAddress }))
          return yield* new LoginRefused()
        }
        yield* repo.clearFailures(`email:${email}`)
        const sessionId = randomBytes(32).toString("base64url")
        const csrfToken = randomBytes(32).toString("base64url")
        const expiresAt = yield* repo.createSession({
          idHash: hashSession(sessionId),
          accountId: stored.value.account.id,
          csrfToken,
          ttl: config.sessionTtl
        })
        return { sessionId, csrfToken, account: stored.value.account, mustChangePassword: stored.value.mustChangePassword, expiresAt }
      })

      const changePassword = Effect.fn("AdminAccounts.changePassword")(
        function*(sessionId: string, account: AdminAccount, current: string, next: string) {
          const stored = yield* repo.credentials(account.email)
          if (Option.isNone(stored) || !(yield* verifyPassword(current, stored.value.passwordHash))) return yield* new LoginRefused()
          yield* checkPassword(next)
          if (next === current) {
            return yield* new InvalidAdminInput({ field: "new_password", message: "The new password must differ from the current one." })
          }
          yield* repo.update(account.email, { passwordHash: yield* hashPassword(next), mustChangePassword: false })
          // Other sessions of the account (perhaps someone else's) end; this one goes on.
          yield* repo.deleteSessionsOf(account.id, hashSession(sessionId))
          yield* audit.record({ name: account.email, via: "console" }, { action: "admin.change-password", target: `admin:${account.email}` })
        }
      )

      return AdminAccounts.of({
        create,
        list: repo.list,
        resetPassword,
        setRole: (actor, email, role) => changeAccount("admin.set-role", { role })(actor, email),
        setDisabled: (actor, email, disabled) => changeAccount(disabled ? "admin.disable" : "admin.enable", { disabled })(actor, email),
        login,
        session: (sessionId) => sessionId === "" ? Effect.succeedNone : repo.findSession(hashSession(sessionId)),
        logout: (sessionId) => repo.deleteSession(hashSession(sessionId)),
        changePassword
      })
    })
  )

  static readonly layer = this.layerNoDeps.pipe(Layer.provide(Layer.merge(AdminAccountRepo.layer, AuditRepo.layer)))
}
