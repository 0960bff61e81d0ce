import { Clock, Context, Duration, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { rowsOf } from "../platform/SqlRows.ts"
import type { IdentityConfig } from "./IdentityConfig.ts"

export class LoginThrottled
  extends Schema.TaggedError<LoginThrottled>()("LoginThrottled", { retryAfterSeconds: Schema.Int })
{
  override get message() {
    return `Too many failed log-ins: try again in ${Math.ceil(this.retryAfterSeconds / 60)} minute(s).`
  }
}

/** How log-ins are throttled (from IdentityConfig). */
export interface ThrottleRules {
  /** Attempts per e-mail and client before lock-outs begin. */
  readonly allowance: number
  /** The first lock-out; each further failure doubles it, up to `maxLockout`. */
  readonly lockout: Duration.Duration
  readonly maxLockout: Duration.Duration
  /** Failed attempts per client address within `window`, whatever the e-mail. */
  readonly perAddress: number
  readonly window: Duration.Duration
}

/** The log-in throttle as IdentityConfig sets it: the console and the portal count apart, by the same rules. */
export const throttleRules = (config: IdentityConfig["Service"]): ThrottleRules => ({
  allowance: config.loginMaxFailures,
  lockout: config.loginLockout,
  maxLockout: config.loginMaxLockout,
  perAddress: config.loginMaxFailuresPerAddress,
  window: config.loginWindow
})

/** Where someone logs in: the operator console or the partner portal, counted apart (each in its own table). */
export type LoginRealm = "admin" | "portal"
const tables = { admin: "admin_login_attempts", portal: "portal_login_attempts" } as const

/** Who is logging in, as attempts are counted: where, the e-mail typed and the client's address. */
export interface LoginKey {
  readonly realm: LoginRealm
  readonly email: string
  readonly address: string
}

const day = Duration.toMillis(Duration.days(1))
const ms = (duration: Duration.Duration) => Math.round(Duration.toMillis(duration))
// A pair's failures are forgotten after a day without one (longer when lock-outs may last longer),
// so waiting out a lock-out does not restart the allowance.
const forgetMs = (rules: ThrottleRules) => Math.max(day, 2 * ms(rules.maxLockout))
const refuse = (retryAfter: number) =>
  Effect.fail(new LoginThrottled({ retryAfterSeconds: Math.max(1, Number(retryAfter)) }))

// The counts as the upserts return them; a row of another shape is a defect (rowsOf), as a failed statement is here.
const addressRows = rowsOf(
  Schema.Struct({ attempts: Schema.Int, retryAfter: Schema.Int }).pipe(Schema.encodeKeys({ retryAfter: "retry_after" }))
)
const pairRows = rowsOf(Schema.Struct({ attempts: Schema.Int }))
const lockRows = rowsOf(
  Schema.Struct({ retryAfter: Schema.NullOr(Schema.Int) }).pipe(Schema.encodeKeys({ retryAfter: "retry_after" }))
)

/**
 * Log-in attempts, of the console (admin_login_attempts) and of the portal (portal_login_attempts). An attempt is recorded before its password is checked and
 * counts as a failure until the log-in succeeds, so "record" and "check the count" are one atomic step:
 * each key's row is locked by its upsert until the transaction ends, and every instance of a fleet
 * counts in the same rows.
 */
export class LoginAttemptRepo extends Context.Service<LoginAttemptRepo, {
  /** Records an attempt against the client's address and the (e-mail, client) pair, or refuses it and records nothing. */
  admit(key: LoginKey, rules: ThrottleRules): Effect.Effect<void, LoginThrottled>
  /** The attempt logged in: the pair forgets its failures, the address this attempt. */
  succeeded(key: LoginKey): Effect.Effect<void>
  /** Lifts every lock-out of an e-mail (its password was reset). */
  forgetEmail(realm: LoginRealm, email: string): Effect.Effect<void>
  /** Drops rows no attempt has touched for long enough that they no longer count. */
  sweep(realm: LoginRealm, rules: ThrottleRules): Effect.Effect<void>
}>()("partner-api/identity/LoginAttemptRepo") {
  static readonly layerSql = Layer.effect(
    LoginAttemptRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const table = (realm: LoginRealm) => sql(tables[realm])
      const countAddress = (realm: LoginRealm, address: string, rules: ThrottleRules) =>
        addressRows(sql`
          INSERT INTO ${table(realm)} AS t (kind, email, address, attempts) VALUES ('address', '', ${address}, 1)
          ON CONFLICT (kind, email, address) DO UPDATE SET
            attempts = CASE WHEN t.window_start <= now() - ${
          ms(rules.window)
        } * interval '1 millisecond' THEN 1 ELSE t.attempts + 1 END,
            window_start = CASE WHEN t.window_start <= now() - ${
          ms(rules.window)
        } * interval '1 millisecond' THEN now() ELSE t.window_start END,
            last_attempt = now()
          RETURNING attempts, ceil(extract(epoch FROM t.window_start + ${
          ms(rules.window)
        } * interval '1 millisecond' - now()))::int AS retry_after
        `)

      const countPair = (key: LoginKey, rules: ThrottleRules) => {
        const next = sql`(CASE WHEN t.last_attempt <= now() - ${
          forgetMs(rules)
        } * interval '1 millisecond' THEN 1 ELSE t.attempts + 1 END)`
        const lockout = (attempts: typeof next | number) =>
          sql`CASE WHEN ${attempts} >= ${rules.allowance} THEN now() + LEAST(
            ${ms(rules.maxLockout)}::float8,
            ${ms(rules.lockout)} * power(2, LEAST(${attempts} - ${rules.allowance}, 40))
          ) * interval '1 millisecond' END`
        return pairRows(sql`
          INSERT INTO ${table(key.realm)} AS t (kind, email, address, attempts, blocked_until)
          VALUES ('email', ${key.email}, ${key.address}, 1, ${lockout(1)})
          ON CONFLICT (kind, email, address) DO UPDATE SET attempts = ${next}, blocked_until = ${
          lockout(next)
        }, last_attempt = now()
          WHERE t.blocked_until IS NULL OR t.blocked_until <= now()
          RETURNING attempts
        `)
      }

      const lockedFor = (key: LoginKey) =>
        lockRows(sql`
          SELECT ceil(extract(epoch FROM blocked_until - now()))::int AS retry_after FROM ${table(key.realm)}
          WHERE kind = 'email' AND email = ${key.email} AND address = ${key.address}
        `)

      const admit = (key: LoginKey, rules: ThrottleRules) =>
        sql.withTransaction(Effect.gen(function*() {
          // The address first, then the pair: every attempt locks in that order, so none waits on another in a cycle.
          const [address] = yield* countAddress(key.realm, key.address, rules)
          if (address.attempts > rules.perAddress) return yield* refuse(address.retryAfter)
          const pair = yield* countPair(key, rules)
          // A refusal fails the transaction, so the address's count of this attempt is undone too.
          if (pair.length === 0) return yield* refuse((yield* lockedFor(key))[0]?.retryAfter ?? 1)
        })).pipe(Effect.catchTag("SqlError", Effect.die))

      return LoginAttemptRepo.of({
        admit,
        succeeded: (key) =>
          sql.withTransaction(Effect.gen(function*() {
            // The address's row first, as `admit` locks them: the other order could deadlock with an attempt.
            yield* sql`
              UPDATE ${table(key.realm)} SET attempts = GREATEST(0, attempts - 1)
              WHERE kind = 'address' AND email = '' AND address = ${key.address}
            `
            yield* sql`DELETE FROM ${
              table(key.realm)
            } WHERE kind = 'email' AND email = ${key.email} AND address = ${key.address}`
          })).pipe(Effect.orDie),
        forgetEmail: (realm, email) =>
          sql`DELETE FROM ${table(realm)} WHERE kind = 'email' AND email = ${email}`.pipe(Effect.asVoid, Effect.orDie),
        sweep: (realm, rules) =>
          sql`
            DELETE FROM ${table(realm)}
            WHERE last_attempt < now() - ${Math.max(forgetMs(rules), ms(rules.window))} * interval '1 millisecond'
          `.pipe(
            Effect.asVoid,
            // Housekeeping: should it lose a lock race with an attempt reviving a stale row, the next failure sweeps.
            Effect.catchTag("SqlError", (error) => Effect.logWarning("Sweeping old log-in attempts failed", error))
          )
      })
    })
  )

  /**
   * The same counting over memory (by the Clock, so a test's clock can run out a lock-out), for tests of
   * the throttle's rules without PostgreSQL. Concurrent attempts across instances are PostgreSQL's to
   * count: the log-in burst test runs on the SQL layer.
   */
  static readonly layerMemory = Layer.sync(LoginAttemptRepo, () => {
    interface Row {
      readonly realm?: LoginRealm
      readonly email: string
      readonly attempts: number
      readonly windowStart: number
      readonly lastAttempt: number
      readonly blockedUntil: number | null
    }
    const addresses = new Map<string, Row>()
    const pairs = new Map<string, Row>()
    const pairKey = (key: LoginKey) => JSON.stringify([key.realm, key.email, key.address])
    const addressKey = (key: LoginKey) => JSON.stringify([key.realm, key.address])
    const lockout = (attempts: number, rules: ThrottleRules, now: number) =>
      attempts >= rules.allowance
        ? now +
          Math.min(ms(rules.maxLockout), ms(rules.lockout) * Math.pow(2, Math.min(attempts - rules.allowance, 40)))
        : null
    return LoginAttemptRepo.of({
      admit: (key, rules) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const address = addresses.get(addressKey(key))
          const counted: Row = address === undefined || address.windowStart <= now - ms(rules.window)
            ? { email: "", attempts: 1, windowStart: now, lastAttempt: now, blockedUntil: null }
            : { ...address, attempts: address.attempts + 1, lastAttempt: now }
          // A refusal keeps nothing, as the SQL transaction rolls back the address's count.
          if (counted.attempts > rules.perAddress) {
            return refuse(Math.ceil((counted.windowStart + ms(rules.window) - now) / 1000))
          }
          const pair = pairs.get(pairKey(key))
          if (pair?.blockedUntil != null && pair.blockedUntil > now) {
            return refuse(Math.ceil((pair.blockedUntil - now) / 1000))
          }
          const attempts = pair === undefined || pair.lastAttempt <= now - forgetMs(rules) ? 1 : pair.attempts + 1
          pairs.set(pairKey(key), {
            realm: key.realm,
            email: key.email,
            attempts,
            windowStart: pair?.windowStart ?? now,
            lastAttempt: now,
            blockedUntil: lockout(attempts, rules, now)
          })
          addresses.set(addressKey(key), counted)
          return Effect.void
        }),
      succeeded: (key) =>
        Effect.sync(() => {
          const address = addresses.get(addressKey(key))
          if (address !== undefined) {
            addresses.set(addressKey(key), { ...address, attempts: Math.max(0, address.attempts - 1) })
          }
          pairs.delete(pairKey(key))
        }),
      forgetEmail: (realm, email) =>
        Effect.sync(() => {
          for (const [id, row] of pairs) if (row.realm === realm && row.email === email) pairs.delete(id)
        }),
      // Both realms at once: memory has no tables to keep apart.
      sweep: (_realm, rules) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const before = now - Math.max(forgetMs(rules), ms(rules.window))
          for (const rows of [addresses, pairs]) {
            for (const [id, row] of rows) if (row.lastAttempt < before) rows.delete(id)
          }
        })
    })
  })
}
