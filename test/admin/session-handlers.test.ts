import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { TestClock } from "effect/testing"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { IdentityConfig } from "../../src/identity/IdentityConfig.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import * as AdminAuth from "../../src/admin/http/AdminAuth.ts"
import { AdminLoginHandlers, AdminSessionHandlers } from "../../src/admin/http/Session.ts"
import { AdminApi } from "../../src/api/admin/AdminApi.ts"
import {
  SessionForbidden,
  SessionUnauthorized,
  TooManyAttempts,
  ValidationFailed
} from "../../src/api/admin/AdminErrors.ts"
import { AppConfig } from "../../src/platform/AppConfig.ts"
import { AddressRanges, ClientAddress } from "../../src/platform/ClientAddress.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { type AdminSession, asAdmin, givenAdmin, sessionOf, testPassword } from "../support/AdminConsole.ts"
import { testConfig, testIdentityConfig } from "../support/TestApp.ts"

/**
 * The contract's rules for log-in and the session (statuses, the envelope, the CSRF token, throttling,
 * one-time passwords), through the real handlers and middleware over memory repositories: no socket, no
 * PostgreSQL. What needs the database (SQL, transactions, concurrent log-ins) is in admin-api.test.ts and
 * login-burst.test.ts.
 */
const InMemorySession = Layer.mergeAll(AdminLoginHandlers, AdminSessionHandlers).pipe(
  Layer.provideMerge(Layer.mergeAll(AdminAuth.layer, RequestValidationLive)),
  Layer.provideMerge(AdminAccounts.layerMemory),
  Layer.provideMerge(Layer.mergeAll(
    Layer.succeed(IdentityConfig, testIdentityConfig({ loginMaxFailures: 2, oneTimePasswordTtl: Duration.hours(24) })),
    Layer.succeed(AppConfig, testConfig()),
    Layer.succeed(ClientAddress, ClientAddress.make(new AddressRanges([])))
  )),
  Layer.provideMerge(HttpServer.layerServices)
)

/** The typed client wired to the handlers, as `session` (none: no cookie, no CSRF token). Its middleware is fixed when it is made. */
const clientAs = (session?: AdminSession) =>
  HttpApiTest.groups(AdminApi, ["login", "session"]).pipe(Effect.provide(asAdmin(session)))
const client = clientAs()

const auditOf = (target: string) =>
  Effect.flatMap(Effect.service(AuditRepo), (audit) => audit.list({ target, limit: 100 }))

layer(InMemorySession)("admin log-in and session over memory", (it) => {
  it.effect("a log-in answers the session envelope: who, the CSRF token, and when it ends", () =>
    Effect.gen(function*() {
      yield* givenAdmin("envelope@example.com", "viewer")
      const answer = yield* (yield* client).login.login({
        payload: { email: " Envelope@Example.com ", password: testPassword }
      })
      assert.deepStrictEqual(answer.admin, { email: "envelope@example.com", role: "viewer" })
      assert.isTrue(answer.success)
      assert.isFalse(answer.mustChangePassword)
      assert.match(answer.csrfToken, /^[A-Za-z0-9_-]{43}$/)
      // The test's clock starts at 0: the session lasts ADMIN_SESSION_TTL from the log-in.
      assert.deepStrictEqual(answer.expiresAt, new Date(Duration.toMillis(Duration.hours(8))))
    }))

  it.effect("without a session is 401; a wrong password and an unknown e-mail answer alike", () =>
    Effect.gen(function*() {
      const api = yield* client
      const error = yield* Effect.flip(api.session.current())
      assert.instanceOf(error, SessionUnauthorized)
      assert.strictEqual(error.message, "Log in first.")
      yield* givenAdmin("wrong@example.com")
      const wrong = yield* Effect.flip(
        api.login.login({ payload: { email: "wrong@example.com", password: "not it at all" } })
      )
      const unknown = yield* Effect.flip(
        api.login.login({ payload: { email: "nobody@example.com", password: testPassword } })
      )
      assert.instanceOf(wrong, SessionUnauthorized)
      assert.strictEqual(wrong.message, "Wrong e-mail or password.")
      assert.deepStrictEqual(unknown, wrong)
      const failures = (yield* auditOf("admin:wrong@example.com")).filter((entry) =>
        entry.action === "admin.login-failed"
      )
      assert.deepStrictEqual(failures.map((entry) => entry.after), [{ client: "unknown", reason: "wrong password" }])
    }))

  it.effect("a session's read answers it; a change without its CSRF token is 403 and recorded", () =>
    Effect.gen(function*() {
      yield* givenAdmin("csrf@example.com")
      const session = yield* sessionOf("csrf@example.com")
      const current = yield* (yield* clientAs(session)).session.current()
      assert.strictEqual(current.csrfToken, session.csrf)
      const refused = yield* Effect.flip((yield* clientAs({ cookie: session.cookie, csrf: "forged" })).session.logout())
      assert.instanceOf(refused, SessionForbidden)
      assert.strictEqual(refused.message, "This change lacks the session's CSRF token (X-CSRF-Token): reload the page.")
      const recorded = yield* auditOf("DELETE /admin/api/session")
      assert.deepStrictEqual(recorded[0].after, { status: 403, reason: refused.message })
    }))

  it.effect("bad input is 422 naming the field (the typed client checks the contract's own schema before sending)", () =>
    Effect.gen(function*() {
      yield* givenAdmin("input@example.com")
      const session = yield* sessionOf("input@example.com")
      const api = yield* clientAs(session)
      const short = yield* Effect.flip(
        api.session.changePassword({ payload: { current_password: testPassword, new_password: "short" } })
      )
      assert.instanceOf(short, ValidationFailed)
      assert.deepStrictEqual(short.errors, { password: ["The password must have 12 to 200 characters."] })
      const wrong = yield* Effect.flip(
        api.session.changePassword({
          payload: { current_password: "not mine at all", new_password: "a long new password" }
        })
      )
      assert.deepStrictEqual((wrong as ValidationFailed).errors, {
        current_password: ["The current password is wrong."]
      })
      // A refused change records the fields that failed, never what was in them.
      const recorded = yield* auditOf("POST /admin/api/session/password")
      assert.deepStrictEqual(recorded.map((entry) => (entry.after as { fields: unknown }).fields), [[
        "current_password"
      ], ["password"]])
    }))

  it.effect("failed log-ins past the allowance are 429 with the lock-out's seconds, lifted when it has passed", () =>
    Effect.gen(function*() {
      yield* givenAdmin("throttled@example.com")
      const api = yield* client
      const attempt = (password: string) => api.login.login({ payload: { email: "throttled@example.com", password } })
      for (let i = 0; i < 2; i++) assert.instanceOf(yield* Effect.flip(attempt(`guess ${i}`)), SessionUnauthorized)
      const blocked = yield* Effect.flip(attempt(testPassword))
      assert.instanceOf(blocked, TooManyAttempts)
      assert.strictEqual((blocked as TooManyAttempts).retry_after_seconds, 60)
      yield* TestClock.adjust(Duration.minutes(1))
      assert.strictEqual((yield* attempt(testPassword)).admin.email, "throttled@example.com")
    }))

  it.effect("a one-time password logs in until ADMIN_ONE_TIME_PASSWORD_TTL has passed, then is refused as expired", () =>
    Effect.gen(function*() {
      const accounts = yield* AdminAccounts
      const { password } = yield* accounts.create({ name: "test", via: "cli" }, {
        email: "fresh@example.com",
        role: "viewer"
      })
      const api = yield* client
      const first = yield* api.login.login({ payload: { email: "fresh@example.com", password } })
      assert.isTrue(first.mustChangePassword)
      yield* TestClock.adjust(Duration.hours(25))
      const expired = yield* Effect.flip(api.login.login({ payload: { email: "fresh@example.com", password } }))
      assert.instanceOf(expired, SessionUnauthorized)
      assert.match(expired.message, /^This one-time password has expired \(they last 1d\)/)
    }))
})
