import { Clock, Effect, Option, Schema } from "effect"
import { type Actor, normalizeEmail } from "../domain/Admin.ts"
import { clientGroup } from "../platform/ClientAddress.ts"
import type { AuditRepo } from "./AuditRepo.ts"
import type { LoginAttemptRepo, LoginRealm, ThrottleRules } from "./LoginAttemptRepo.ts"
import { decoyHash, hashPassword, type PasswordHashing, verifyPassword } from "./Passwords.ts"
import { hashSession, newSessionSecrets } from "./Sessions.ts"

/*
 * Signing in, as the operator console and the partner portal both do it: the attempt throttled before its
 * password is checked, the password checked under the shared hash permits (an unknown e-mail against a decoy, so
 * timing tells nothing), every refusal and success in the audit trail, and a session that starts with its own CSRF
 * token. Each realm says only where its accounts and sessions are and what it calls things.
 */

/** A wrong e-mail or password: one answer for both, so it tells nothing about which accounts exist. */
export class LoginRefused extends Schema.TaggedError<LoginRefused>()("LoginRefused", {}) {
  override get message() {
    return "Wrong e-mail or password."
  }
}

export class InvalidAccountInput extends Schema.TaggedError<InvalidAccountInput>()("InvalidAccountInput", {
  field: Schema.String,
  message: Schema.String
}) {}

export const minPasswordLength = 12

/** A password a person chooses: 12 to 200 characters. */
export const checkPassword = (password: string, field = "password") =>
  password.length < minPasswordLength || password.length > 200
    ? Effect.fail(
      new InvalidAccountInput({ field, message: `The password must have ${minPasswordLength} to 200 characters.` })
    )
    : Effect.void

/** What a realm knows of the account an e-mail names. */
export interface Claimant<Account> {
  readonly account: Account
  /** null: the account has no password yet (an invitation not accepted), so none matches. */
  readonly passwordHash: string | null
  /** Why even the right password is refused (a disabled account, an inactive partner); undefined: it is not. */
  readonly barred: string | undefined
}

export interface SignInRealm<Account, C extends Claimant<Account>, Late> {
  /** Whose attempts are counted (each realm apart). */
  readonly realm: LoginRealm
  readonly via: Actor["via"]
  /** Audit action names: `<prefix>.login`, `<prefix>.login-failed`. */
  readonly prefix: string
  readonly target: (email: string) => string
  readonly claimant: (email: string) => Effect.Effect<Option.Option<C>>
  /** The right password that may no longer be used (an expired one-time password): why, and the failure. */
  readonly late: (claimant: C, now: number) => Option.Option<{ readonly reason: string; readonly error: Late }>
  /** Stores a new session of the account (by the hash of its id) and answers when it ends. */
  readonly openSession: (
    claimant: C,
    session: { readonly idHash: Uint8Array; readonly csrfToken: string }
  ) => Effect.Effect<Date>
}

/** A new session: the cookie's value (shown to the browser only) and the CSRF token every change must carry. */
export interface SignedIn<C> {
  readonly sessionId: string
  readonly csrfToken: string
  readonly claimant: C
  readonly expiresAt: Date
}

export interface SignInServices {
  readonly attempts: LoginAttemptRepo["Service"]
  readonly audit: AuditRepo["Service"]
  readonly hashing: PasswordHashing["Service"]
  readonly rules: ThrottleRules
}

/** The log-in of one realm, over the shared throttle, hash permits and audit trail. */
export const makeLogin = <Account, C extends Claimant<Account>, Late>(
  { attempts, audit, hashing, rules }: SignInServices,
  realm: SignInRealm<Account, C, Late>
) => {
  /**
   * A refused log-in in the log and the audit trail: the client and why, never the password. The e-mail typed is
   * named only when it is an account's: an unknown one may be a password typed in the wrong field.
   */
  const refused = (email: string, known: boolean, client: string, reason: string) => {
    const named = known ? email : "(unknown e-mail)"
    return audit.record({ name: named, via: realm.via }, {
      action: `${realm.prefix}.login-failed`,
      target: realm.target(named),
      after: { client, reason }
    }).pipe(
      Effect.andThen(
        Effect.logWarning("Log-in refused").pipe(
          Effect.annotateLogs({ realm: realm.realm, email: named, client, reason })
        )
      )
    )
  }

  return Effect.fn(`SignIn.login.${realm.realm}`)(function*(rawEmail: string, password: string, clientAddress: string) {
    const email = normalizeEmail(rawEmail).slice(0, 254)
    const key = { realm: realm.realm, email, address: clientGroup(clientAddress) }
    // Recorded before the password is checked: concurrent attempts each count, whatever their outcome. Decided
    // before a permit to hash is taken, so a throttled attempt (a database round trip) never holds one.
    yield* attempts.admit(key, rules)
    return yield* hashing.gated(
      realm.realm,
      Effect.gen(function*() {
        const stored = yield* realm.claimant(email)
        // The hash is checked even for an unknown e-mail, so timing does not tell which accounts exist.
        const hash = Option.match(stored, { onNone: () => decoyHash, onSome: (s) => s.passwordHash ?? decoyHash })
        const matches = (yield* verifyPassword(password, hash)) && Option.isSome(stored) &&
          stored.value.passwordHash !== null
        if (!matches || Option.isNone(stored) || stored.value.barred !== undefined) {
          const reason = Option.isNone(stored)
            ? "unknown e-mail"
            : stored.value.passwordHash === null
            ? "no password yet (invitation not accepted)"
            : !matches
            ? "wrong password"
            : stored.value.barred!
          yield* attempts.sweep(realm.realm, rules)
          yield* refused(email, Option.isSome(stored), clientAddress, reason)
          return yield* new LoginRefused()
        }
        const late = realm.late(stored.value, yield* Clock.currentTimeMillis)
        if (Option.isSome(late)) {
          yield* refused(email, true, clientAddress, late.value.reason)
          return yield* Effect.fail(late.value.error)
        }
        const { csrfToken, sessionId } = newSessionSecrets()
        const expiresAt = yield* audit.atomically(Effect.gen(function*() {
          yield* attempts.succeeded(key)
          yield* audit.record({ name: email, via: realm.via }, {
            action: `${realm.prefix}.login`,
            target: realm.target(email),
            after: { client: clientAddress }
          })
          return yield* realm.openSession(stored.value, { idHash: hashSession(sessionId), csrfToken })
        }))
        return { sessionId, csrfToken, claimant: stored.value, expiresAt } satisfies SignedIn<C>
      })
    )
  })
}

/**
 * The hash of a password replacing `current`, under the log-in's throttle and the realm's hash permits: the current
 * one must match what is stored, and each check of it counts as a log-in attempt of the account's e-mail from the
 * client (so a stolen session cannot guess it at scrypt speed); the new one must be acceptable and differ. Storing it
 * (and ending the other sessions) is the realm's.
 */
export const replacementHash = (
  { attempts, hashing, rules }: Pick<SignInServices, "attempts" | "hashing" | "rules">,
  realm: LoginRealm
) =>
  Effect.fn("SignIn.replacementHash")(
    function*(
      account: { readonly email: string; readonly clientAddress: string },
      stored: string | null,
      current: string,
      next: string
    ) {
      const key = { realm, email: account.email, address: clientGroup(account.clientAddress) }
      yield* attempts.admit(key, rules)
      return yield* hashing.gated(
        realm,
        Effect.gen(function*() {
          if (stored === null || !(yield* verifyPassword(current, stored))) return yield* new LoginRefused()
          yield* attempts.succeeded(key)
          yield* checkPassword(next)
          if (next === current) {
            return yield* new InvalidAccountInput({
              field: "new_password",
              message: "The new password must differ from the current one."
            })
          }
          return yield* hashPassword(next)
        })
      )
    }
  )
