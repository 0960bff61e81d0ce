import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import {
  LoginAttemptRepo,
  type LoginKey,
  type LoginRealm,
  LoginThrottled,
  type ThrottleRules
} from "../../src/identity/LoginAttemptRepo.ts"

/**
 * What LoginAttemptRepo promises, whichever form counts: run over PostgreSQL (layerSql) and over memory (layerMemory)
 * by login-attempt-repo.test.ts, so the twin the sign-in specs stand on is shown to count as the SQL does. Nothing
 * here waits for time to pass (a lock-out running out is the throttle's tests', under a test clock): every test
 * counts e-mails and addresses of its own, since the layer (and its rows) is shared by the file's tests.
 */
export const loginAttemptRepoSpec = (it: Vitest.MethodsNonLive<LoginAttemptRepo>) => {
  const unique = () => randomBytes(4).toString("hex")
  const rules: ThrottleRules = {
    allowance: 3,
    lockout: Duration.minutes(15),
    maxLockout: Duration.hours(1),
    perAddress: 5,
    window: Duration.minutes(10)
  }
  const keyOf = (realm: LoginRealm = "admin", address = `192.0.2.${unique()}`): LoginKey => ({
    realm,
    email: `someone-${unique()}@example.com`,
    address
  })
  const admit = (key: LoginKey) => Effect.flatMap(Effect.service(LoginAttemptRepo), (repo) => repo.admit(key, rules))
  /** Whether an attempt is let through now (and so counted). */
  const admitted = (key: LoginKey) => Effect.match(admit(key), { onFailure: () => false, onSuccess: () => true })
  const attempts = (key: LoginKey, n: number) => Effect.forEach(Array.from({ length: n }), () => admitted(key))
  /** The seconds a refusal asks to wait, from a first lock-out of `rules.lockout` just begun. */
  const assertLockedOut = (refused: unknown, lockout: Duration.Duration) => {
    assert.instanceOf(refused, LoginThrottled)
    const seconds = (refused as LoginThrottled).retryAfterSeconds
    assert.isTrue(seconds > Duration.toSeconds(lockout) - 60 && seconds <= Duration.toSeconds(lockout), String(seconds))
  }

  it.effect("an e-mail and client get the allowance, then a lock-out; the refusal says how long", () =>
    Effect.gen(function*() {
      const key = keyOf()
      assert.deepStrictEqual(yield* attempts(key, 3), [true, true, true], "the third attempt starts the lock-out")
      assertLockedOut(yield* Effect.flip(admit(key)), rules.lockout)
      assert.deepStrictEqual(yield* attempts(key, 2), [false, false], "it holds")
    }))

  it.effect("the same e-mail from another client, another e-mail from the client, another realm: counted apart", () =>
    Effect.gen(function*() {
      const key = keyOf()
      yield* attempts(key, 3)
      assert.isTrue(yield* admitted({ ...key, address: `192.0.2.${unique()}` }))
      assert.isTrue(yield* admitted({ ...key, email: `other-${unique()}@example.com` }))
      assert.deepStrictEqual(yield* attempts({ ...key, realm: "portal" }, 3), [true, true, true])
      assert.isFalse(yield* admitted(key))
    }))

  it.effect("a client past its failures of any e-mail is refused until its window ends, and a refusal counts nothing", () =>
    Effect.gen(function*() {
      const address = `192.0.2.${unique()}`
      for (let i = 0; i < 5; i++) assert.isTrue(yield* admitted(keyOf("admin", address)))
      const refused = yield* Effect.flip(admit(keyOf("admin", address)))
      assertLockedOut(refused, rules.window)
      // Refused, the attempt was not counted: one success gives back one attempt, and one more is let through.
      const repo = yield* LoginAttemptRepo
      yield* repo.succeeded(keyOf("admin", address))
      assert.isTrue(yield* admitted(keyOf("admin", address)))
      assert.isFalse(yield* admitted(keyOf("admin", address)))
      assert.isTrue(yield* admitted(keyOf("portal", address)), "the portal's clients are counted apart")
    }))

  it.effect("a log-in that succeeds forgets the pair's failures: the allowance starts again", () =>
    Effect.gen(function*() {
      const repo = yield* LoginAttemptRepo
      const key = keyOf()
      yield* attempts(key, 2)
      yield* repo.succeeded(key)
      assert.deepStrictEqual(yield* attempts(key, 4), [true, true, true, false])
    }))

  it.effect("a password reset lifts every lock-out of the e-mail in its realm, from every client", () =>
    Effect.gen(function*() {
      const repo = yield* LoginAttemptRepo
      const key = keyOf()
      const elsewhere = { ...key, address: `192.0.2.${unique()}` }
      const portal = { ...key, realm: "portal" as const }
      for (const locked of [key, elsewhere, portal]) yield* attempts(locked, 3)
      yield* repo.forgetEmail("admin", key.email)
      assert.isTrue(yield* admitted(key))
      assert.isTrue(yield* admitted(elsewhere))
      assert.isFalse(yield* admitted(portal), "the portal's lock-out is the portal's")
    }))
}
