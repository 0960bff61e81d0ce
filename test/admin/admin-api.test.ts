import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { PasswordHashing } from "../../src/identity/Passwords.ts"
import { ValidationFailed } from "../../src/api/admin/AdminErrors.ts"
import { adminClient, adminRequest, givenAdmin, loginAs, loginWithHost, testPassword } from "../support/AdminConsole.ts"
import { live } from "../support/live.ts"
import { bearer, request, TestApp } from "../support/TestApp.ts"

/** A log-in from `client` (the test's requests come through 127.0.0.1, a trusted proxy here, which names the client). */
const loginFrom = (client: string, email: string, password: string) =>
  adminRequest("POST", "/admin/api/session", { json: { email, password }, headers: { "x-forwarded-for": client } })

const auditOf = (target: string) =>
  Effect.flatMap(Effect.service(AuditRepo), (audit) => audit.list({ target, limit: 100 }))

layer(
  TestApp({
    admin: { loginMaxFailures: 3, loginMaxFailuresPerAddress: 20, concurrentHashes: 64 },
    trustedProxies: ["127.0.0.1"]
  }),
  live
)("admin API security", (it) => {
  it.effect("log-in sets an HttpOnly, SameSite=Strict session cookie scoped to /admin and answers a CSRF token", () =>
    Effect.gen(function*() {
      yield* givenAdmin("ops@example.com")
      const answer = yield* adminRequest("POST", "/admin/api/session", {
        json: { email: " Ops@Example.com ", password: testPassword }
      })
      assert.strictEqual(answer.status, 200)
      assert.deepStrictEqual(answer.body.admin, { email: "ops@example.com", role: "operator" })
      assert.match(answer.body.csrf_token, /^[A-Za-z0-9_-]{43}$/)
      const cookie = answer.setCookie.find((line) => line.startsWith("admin_session="))!
      assert.match(cookie, /HttpOnly/i)
      assert.match(cookie, /SameSite=Strict/i)
      assert.match(cookie, /Path=\/admin/)
      assert.notMatch(cookie, /Secure/i, "plain http in tests: not Secure")
      const behindHttps = yield* adminRequest("POST", "/admin/api/session", {
        json: { email: "ops@example.com", password: testPassword },
        headers: { "x-forwarded-proto": "https" }
      })
      assert.match(behindHttps.setCookie.join(";"), /Secure/)
      // A TLS proxy that sends no X-Forwarded-Proto: any host but this machine's own gets a Secure cookie.
      const behindSilentProxy = yield* loginWithHost("console.example.com", "ops@example.com")
      assert.strictEqual(behindSilentProxy.status, 200)
      assert.match(behindSilentProxy.setCookie.join(";"), /Secure/)
      // Only the session's hash is stored.
      const sql = yield* SqlClient.SqlClient
      const value = cookie.split(";")[0].slice("admin_session=".length)
      const stored = yield* sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM admin_sessions WHERE id_hash = sha256(convert_to(${value}, 'UTF8'))`
      assert.strictEqual(stored[0].n, 1)
    }))

  it.effect("without a session every endpoint is 401; a wrong password is 401; a disabled account cannot log in", () =>
    Effect.gen(function*() {
      for (
        const [method, path] of [["GET", "/admin/api/partners"], ["GET", "/admin/api/session"], [
          "POST",
          "/admin/api/partners"
        ], ["GET", "/admin/api/audit"]] as const
      ) {
        const answer = yield* adminRequest(method, path, { json: method === "POST" ? { name: "x" } : undefined })
        assert.strictEqual(answer.status, 401, path)
        assert.deepStrictEqual(answer.body, { success: false, message: "Log in first." })
      }
      yield* givenAdmin("wrong@example.com")
      const wrong = yield* adminRequest("POST", "/admin/api/session", {
        json: { email: "wrong@example.com", password: "not it at all" }
      })
      assert.strictEqual(wrong.status, 401)
      assert.deepStrictEqual(wrong.body, { success: false, message: "Wrong e-mail or password." })
      const unknown = yield* adminRequest("POST", "/admin/api/session", {
        json: { email: "nobody@example.com", password: testPassword }
      })
      assert.deepStrictEqual(unknown.body, wrong.body, "an unknown e-mail answers as a wrong password")
      const forged = yield* adminRequest("GET", "/admin/api/partners", { headers: { cookie: "admin_session=forged" } })
      assert.strictEqual(forged.status, 401)

      yield* givenAdmin("gone@example.com")
      const session = yield* loginAs("gone@example.com")
      yield* (yield* AdminAccounts).setDisabled({ name: "test", via: "cli" }, "gone@example.com", true)
      assert.strictEqual(
        (yield* adminRequest("GET", "/admin/api/partners", { session })).status,
        401,
        "its sessions end"
      )
      assert.strictEqual(
        (yield* adminRequest("POST", "/admin/api/session", {
          json: { email: "gone@example.com", password: testPassword }
        })).status,
        401
      )
    }))

  it.effect("log-ins are throttled per e-mail and client, with lock-outs that double; another client is not held back", () =>
    Effect.gen(function*() {
      yield* givenAdmin("throttled@example.com")
      const guesser = "203.0.113.10"
      for (let i = 0; i < 3; i++) {
        assert.strictEqual((yield* loginFrom(guesser, "throttled@example.com", `guess ${i}`)).status, 401)
      }
      const blocked = yield* loginFrom(guesser, "throttled@example.com", testPassword)
      assert.strictEqual(blocked.status, 429, "even the right password, from the guessing client")
      assert.match(blocked.body.message, /Too many failed log-ins: try again in 1 minute/)
      assert.isAtLeast(blocked.body.retry_after_seconds, 1)
      assert.isAtMost(blocked.body.retry_after_seconds, 60)
      assert.strictEqual(blocked.headers["retry-after"], String(blocked.body.retry_after_seconds))

      // The real admin, elsewhere, logs in: a stranger's guesses do not lock them out.
      assert.strictEqual((yield* loginFrom("198.51.100.7", "throttled@example.com", testPassword)).status, 200)
      yield* givenAdmin("other@example.com")
      assert.strictEqual(
        (yield* loginFrom(guesser, "other@example.com", testPassword)).status,
        200,
        "nor another account"
      )

      // Each failure past the allowance doubles the lock-out (1, 2, 4 minutes).
      const sql = yield* SqlClient.SqlClient
      for (const [longest, shortest] of [[120, 61], [240, 121]]) {
        yield* sql`UPDATE admin_login_attempts SET blocked_until = now() WHERE email = 'throttled@example.com' AND address = ${guesser}`
        assert.strictEqual((yield* loginFrom(guesser, "throttled@example.com", "another guess")).status, 401)
        const again = yield* loginFrom(guesser, "throttled@example.com", testPassword)
        assert.strictEqual(again.status, 429)
        assert.isAtLeast(again.body.retry_after_seconds, shortest)
        assert.isAtMost(again.body.retry_after_seconds, longest)
      }
      // An IPv6 client is counted by its /64: it cannot start afresh by taking another address of its network.
      for (let i = 0; i < 3; i++) {
        assert.strictEqual(
          (yield* loginFrom(`2001:db8:1:2::${i + 1}`, "other@example.com", `v6 guess ${i}`)).status,
          401
        )
      }
      assert.strictEqual((yield* loginFrom("2001:db8:1:2:ffff::9", "other@example.com", testPassword)).status, 429)
      assert.strictEqual((yield* loginFrom("2001:db8:1:3::1", "other@example.com", testPassword)).status, 200)

      const failures = (yield* auditOf("admin:throttled@example.com")).filter((entry) =>
        entry.action === "admin.login-failed"
      )
      assert.strictEqual(failures.length, 5, "each checked failure is audited; the refused (429) ones are not")
      assert.deepStrictEqual(failures[0].after, { client: guesser, reason: "wrong password" })
      assert.notInclude(JSON.stringify(failures), "guess")
    }))

  it.effect("a burst of concurrent log-ins: no more than the allowed attempts are checked, the rest are 429", () =>
    Effect.gen(function*() {
      yield* givenAdmin("burst@example.com")
      const answers = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => loginFrom("203.0.113.20", "burst@example.com", `burst guess ${i}`)),
        { concurrency: "unbounded" }
      )
      const statuses = answers.map((answer) => answer.status)
      assert.strictEqual(statuses.filter((status) => status === 401).length, 3, statuses.join(","))
      assert.strictEqual(statuses.filter((status) => status === 429).length, 17, statuses.join(","))
      const checked = (yield* auditOf("admin:burst@example.com")).filter((entry) =>
        entry.action === "admin.login-failed"
      )
      assert.strictEqual(checked.length, 3)

      // One address guessing many e-mails at once: at most ADMIN_LOGIN_MAX_FAILURES_PER_ADDRESS are checked.
      const spray = yield* Effect.all(
        Array.from({ length: 30 }, (_, i) => loginFrom("203.0.113.30", `spray${i}@example.com`, "a guess")),
        { concurrency: "unbounded" }
      )
      const sprayed = spray.map((answer) => answer.status)
      assert.strictEqual(sprayed.filter((status) => status === 401).length, 20, sprayed.join(","))
      assert.strictEqual(sprayed.filter((status) => status === 429).length, 10, sprayed.join(","))
      assert.strictEqual((yield* loginFrom("203.0.113.30", "burst@example.com", testPassword)).status, 429)
      assert.strictEqual(
        (yield* loginFrom("203.0.113.31", "other-burst@example.com", "a guess")).status,
        401,
        "another address is not"
      )
    }))

  it.effect("a log-in while every permit to hash is taken and the queue for them is full is a 429 with Retry-After, not a wait", () =>
    Effect.gen(function*() {
      yield* givenAdmin("busy@example.com")
      const { admin } = (yield* PasswordHashing).gates
      // Every place held (as 64 log-ins being checked and those queued behind them would), then one more log-in.
      const busy = yield* admin.places.withPermits(admin.size)(
        loginFrom("203.0.113.40", "busy@example.com", testPassword)
      )
      assert.strictEqual(busy.status, 429)
      assert.deepStrictEqual(busy.body, {
        success: false,
        message: "Too many log-ins are being checked right now: try again in a moment.",
        retry_after_seconds: 1
      })
      assert.strictEqual(busy.headers["retry-after"], "1")
      assert.strictEqual(
        (yield* loginFrom("203.0.113.40", "busy@example.com", testPassword)).status,
        200,
        "nothing counted against it"
      )
    }))

  it.effect("log-ins, failed log-ins and log-outs are audited with the client's address, never a password", () =>
    Effect.gen(function*() {
      yield* givenAdmin("audited-login@example.com")
      assert.strictEqual((yield* loginFrom("192.0.2.44", "audited-login@example.com", "not my password")).status, 401)
      assert.strictEqual((yield* loginFrom("192.0.2.44", "my password typed as e-mail", "x")).status, 401)
      const ok = yield* loginFrom("192.0.2.44", "audited-login@example.com", testPassword)
      const cookie = ok.setCookie.find((line) => line.startsWith("admin_session="))!.split(";")[0]
      assert.strictEqual(
        (yield* adminRequest("DELETE", "/admin/api/session", { session: { cookie, csrf: ok.body.csrf_token } })).status,
        200
      )
      const entries = (yield* auditOf("admin:audited-login@example.com")).filter((entry) =>
        entry.action.startsWith("admin.log")
      )
      assert.deepStrictEqual(entries.map((entry) => [entry.action, entry.actor, entry.via]), [
        ["admin.logout", "audited-login@example.com", "console"],
        ["admin.login", "audited-login@example.com", "console"],
        ["admin.login-failed", "audited-login@example.com", "console"]
      ])
      assert.deepStrictEqual(entries[1].after, { client: "192.0.2.44" })
      const unknown = yield* auditOf("admin:(unknown e-mail)")
      assert.isTrue(unknown.some((entry) => (entry.after as { client: string }).client === "192.0.2.44"))
      const everything = JSON.stringify(
        yield* Effect.flatMap(Effect.service(AuditRepo), (audit) => audit.list({ limit: 1000 }))
      )
      assert.notInclude(everything, "not my password")
      assert.notInclude(
        everything,
        "typed as e-mail",
        "an e-mail that names no account may be a password: not recorded"
      )
      assert.notInclude(everything, testPassword)
    }))

  it.effect("a change without the CSRF token, with a wrong one, or from another origin is 403 and changes nothing", () =>
    Effect.gen(function*() {
      yield* givenAdmin("csrf@example.com")
      const session = yield* loginAs("csrf@example.com")
      for (const csrf of [null, "wrong", session.csrf.slice(1)]) {
        const answer = yield* adminRequest("POST", "/admin/api/partners", { session, csrf, json: { name: "Forged" } })
        assert.strictEqual(answer.status, 403)
        assert.match(answer.body.message, /CSRF/)
      }
      const crossSite = yield* adminRequest("POST", "/admin/api/partners", {
        session,
        json: { name: "Forged" },
        headers: { origin: "https://evil.example" }
      })
      assert.strictEqual(crossSite.status, 403)
      assert.strictEqual(crossSite.body.message, "Changes are only taken from the console's own pages.")
      const list = yield* adminRequest("GET", "/admin/api/partners?search=forged", { session })
      assert.deepStrictEqual(list.body.partners, [])
      const created = yield* adminRequest("POST", "/admin/api/partners", { session, json: { name: "Real One" } })
      assert.strictEqual(created.status, 200)
    }))

  it.effect("a viewer reads but cannot change anything (403); logging out ends the session", () =>
    Effect.gen(function*() {
      yield* givenAdmin("viewer@example.com", "viewer")
      const session = yield* loginAs("viewer@example.com")
      assert.strictEqual((yield* adminRequest("GET", "/admin/api/partners", { session })).status, 200)
      assert.strictEqual((yield* adminRequest("GET", "/admin/api/wallet/transactions", { session })).status, 200)
      for (
        const [method, path] of [
          ["POST", "/admin/api/partners"],
          ["PATCH", "/admin/api/partners/demo"],
          ["POST", "/admin/api/partners/demo/deactivate"],
          ["POST", "/admin/api/partners/demo/rotate-token"],
          ["POST", "/admin/api/callbacks/1/redeliver"],
          ["POST", "/admin/api/casino/sync"],
          ["POST", "/admin/api/casino/providers/aurora-gaming/disable"]
        ] as const
      ) {
        const answer = yield* adminRequest(method, path, { session, json: { name: "x" } })
        assert.strictEqual(answer.status, 403, path)
        assert.match(answer.body.message, /viewer/)
      }
      const out = yield* adminRequest("DELETE", "/admin/api/session", { session })
      assert.strictEqual(out.status, 200)
      assert.match(out.setCookie.join(";"), /admin_session=;|Max-Age=0|Expires=Thu, 01 Jan 1970/)
      assert.strictEqual((yield* adminRequest("GET", "/admin/api/session", { session })).status, 401)
    }))

  it.effect("an expired session is refused", () =>
    Effect.gen(function*() {
      yield* givenAdmin("expired@example.com")
      const session = yield* loginAs("expired@example.com")
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE admin_sessions SET expires_at = now() - interval '1 second'`
      const answer = yield* adminRequest("GET", "/admin/api/session", { session })
      assert.strictEqual(answer.status, 401)
      assert.match(answer.body.message, /log in again/)
    }))

  it.effect("a one-time password must be replaced before anything else", () =>
    Effect.gen(function*() {
      const { password } = yield* (yield* AdminAccounts).create({ name: "test", via: "cli" }, {
        email: "new@example.com",
        role: "operator"
      })
      const session = yield* loginAs("new@example.com", password)
      const current = yield* adminRequest("GET", "/admin/api/session", { session })
      assert.isTrue(current.body.must_change_password)
      assert.strictEqual((yield* adminRequest("GET", "/admin/api/partners", { session })).status, 403)
      const tooShort = yield* adminRequest("POST", "/admin/api/session/password", {
        session,
        json: { current_password: password, new_password: "short" }
      })
      assert.strictEqual(tooShort.status, 422)
      const changed = yield* adminRequest("POST", "/admin/api/session/password", {
        session,
        json: { current_password: password, new_password: "a much longer passphrase" }
      })
      assert.strictEqual(changed.status, 200)
      assert.strictEqual((yield* adminRequest("GET", "/admin/api/partners", { session })).status, 200)
      assert.strictEqual(
        (yield* adminRequest("POST", "/admin/api/session", { json: { email: "new@example.com", password } })).status,
        401
      )
    }))

  it.effect("a one-time password expires after ADMIN_ONE_TIME_PASSWORD_TTL; a reset issues a fresh one", () =>
    Effect.gen(function*() {
      const accounts = yield* AdminAccounts
      const { password } = yield* accounts.create({ name: "test", via: "cli" }, {
        email: "late@example.com",
        role: "viewer"
      })
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE admin_accounts SET password_set_at = now() - interval '25 hours' WHERE email = 'late@example.com'`
      const late = yield* loginFrom("203.0.113.50", "late@example.com", password)
      assert.strictEqual(late.status, 401)
      assert.strictEqual(
        late.body.message,
        "This one-time password has expired (they last 1d): ask an operator for a new one (admins reset-password)."
      )
      const wrong = yield* loginFrom("203.0.113.50", "late@example.com", "not the one-time password")
      assert.strictEqual(
        wrong.body.message,
        "Wrong e-mail or password.",
        "only who knows the password learns it expired"
      )
      const fresh = yield* accounts.resetPassword({ name: "test", via: "cli" }, "late@example.com")
      const session = yield* loginFrom("203.0.113.51", "late@example.com", fresh.password)
      assert.strictEqual(session.status, 200)
      assert.isTrue(session.body.must_change_password)
    }))

  it.effect("partners through the API: created with a token shown once, deactivated (the partner API then answers 401), audited", () =>
    Effect.gen(function*() {
      yield* givenAdmin("audit@example.com")
      const session = yield* loginAs("audit@example.com")
      const api = yield* adminClient(session)
      const created = yield* api.partners.create({
        payload: { name: "Audited Bets", commission_percent: 7.5, callback_url: "" }
      })
      const token = created.token
      assert.match(token, /^pak_/)
      assert.strictEqual((yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })).status, 200)
      const shown = yield* api.partners.show({ params: { slug: "audited-bets" } })
      assert.notInclude(JSON.stringify(shown), token)
      yield* api.partners.deactivate({ params: { slug: "audited-bets" } })
      assert.strictEqual((yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })).status, 401)
      const invalid = yield* Effect.flip(
        api.partners.update({ params: { slug: "audited-bets" }, payload: { commission_percent: 150 } })
      )
      assert.instanceOf(invalid, ValidationFailed)
      const audit = yield* api.system.audit({ query: { target: "partner:audited-bets" } })
      assert.deepStrictEqual(audit.entries.map((entry) => [entry.action, entry.actor, entry.via]), [
        ["partner.deactivate", "audit@example.com", "console"],
        ["partner.create", "audit@example.com", "console"]
      ])
      assert.deepStrictEqual((audit.entries[0].before as { status: string }).status, "active")
      assert.deepStrictEqual((audit.entries[0].after as { status: string }).status, "inactive")
      assert.notInclude(JSON.stringify(audit), token)
      assert.notInclude(JSON.stringify(audit), created.webhook_secret)
    }))

  it.effect("a change and its audit row are one transaction: when the row cannot be written, the change is undone", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* givenAdmin("doomed@example.com", "viewer")
      yield* givenAdmin("atomic@example.com")
      const session = yield* loginAs("atomic@example.com")
      assert.strictEqual(
        (yield* adminRequest("POST", "/admin/api/partners", { session, json: { name: "Doomed" } })).status,
        200
      )
      // The database refuses the audit rows of these two targets, as a full disk or a lost connection would.
      yield* sql`
        CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$
      `
      yield* sql`
        CREATE TRIGGER refuse_audit BEFORE INSERT ON admin_audit FOR EACH ROW
        WHEN (NEW.target IN ('partner:doomed', 'admin:doomed@example.com')) EXECUTE FUNCTION refuse_audit()
      `
      const renamed = yield* adminRequest("PATCH", "/admin/api/partners/doomed", { session, json: { name: "Renamed" } })
      const promoted = yield* Effect.exit(
        (yield* AdminAccounts).setRole({ name: "test", via: "cli" }, "doomed@example.com", "operator")
      )
      yield* sql`DROP TRIGGER refuse_audit ON admin_audit`
      yield* sql`DROP FUNCTION refuse_audit()`
      assert.strictEqual(renamed.status, 500)
      assert.strictEqual(
        (yield* adminRequest("GET", "/admin/api/partners/doomed", { session })).body.partner.name,
        "Doomed"
      )
      assert.isTrue(promoted._tag === "Failure")
      const admins = yield* adminRequest("GET", "/admin/api/admins", { session })
      assert.strictEqual(
        admins.body.admins.find((admin: { email: string }) => admin.email === "doomed@example.com").role,
        "viewer"
      )
    }))

  it.effect("refused changes are audited (CSRF, origin, role, invalid input) without what was typed", () =>
    Effect.gen(function*() {
      yield* givenAdmin("refused@example.com")
      const session = yield* loginAs("refused@example.com")
      assert.strictEqual(
        (yield* adminRequest("POST", "/admin/api/partners", { session, csrf: null, json: { name: "No Token" } }))
          .status,
        403
      )
      const crossSite = { session, json: { name: "Cross Site" }, headers: { origin: "https://evil.example" } }
      assert.strictEqual((yield* adminRequest("POST", "/admin/api/partners", crossSite)).status, 403)
      const invalid = yield* adminRequest("PATCH", "/admin/api/partners/demo", {
        session,
        json: { commission_percent: 150 }
      })
      assert.strictEqual(invalid.status, 422)
      const badPayload = yield* adminRequest("PATCH", "/admin/api/partners/demo", {
        session,
        json: { rate_limit_per_minute: 0 }
      })
      assert.strictEqual(badPayload.status, 422)
      const wrongCurrent = yield* adminRequest("POST", "/admin/api/session/password", {
        session,
        json: { current_password: "secret typed wrong", new_password: "another long passphrase" }
      })
      assert.strictEqual(wrongCurrent.status, 422)
      yield* givenAdmin("refused-viewer@example.com", "viewer")
      const viewer = yield* loginAs("refused-viewer@example.com")
      assert.strictEqual((yield* adminRequest("POST", "/admin/api/casino/sync", { session: viewer })).status, 403)

      const entries = (yield* Effect.flatMap(Effect.service(AuditRepo), (audit) => audit.list({ limit: 1000 })))
        .filter((entry) => entry.action === "console.change-refused" && entry.actor.startsWith("refused"))
      const seen = entries.map((entry) => [entry.actor, entry.target, (entry.after as { status: number }).status])
      assert.deepStrictEqual(seen.reverse(), [
        ["refused@example.com", "POST /admin/api/partners", 403],
        ["refused@example.com", "POST /admin/api/partners", 403],
        ["refused@example.com", "PATCH /admin/api/partners/demo", 422],
        ["refused@example.com", "PATCH /admin/api/partners/demo", 422],
        ["refused@example.com", "POST /admin/api/session/password", 422],
        ["refused-viewer@example.com", "POST /admin/api/casino/sync", 403]
      ])
      assert.match((entries[0].after as { reason: string }).reason, /viewer/)
      assert.deepStrictEqual((entries[1].after as { fields: Array<string> }).fields, ["current_password"])
      const recorded = JSON.stringify(entries)
      assert.notInclude(recorded, "secret typed wrong")
      assert.notInclude(recorded, "another long passphrase")
    }))

  it.effect("an operator sets a partner's rate limit, which the partner API applies; null gives it the default again", () =>
    Effect.gen(function*() {
      yield* givenAdmin("limits@example.com")
      const session = yield* loginAs("limits@example.com")
      const api = yield* adminClient(session)
      const created = yield* api.partners.create({ payload: { name: "Limited Bets" } })
      assert.isNull(created.partner.rateLimitPerMinute)
      const slug = created.partner.slug
      const path = `/admin/api/partners/${slug}`

      // On the wire: 1.5 is not even an integer, which the typed client would refuse to send.
      for (const wrong of [0, -5, 1.5]) {
        const refused = yield* adminRequest("PATCH", path, { session, json: { rate_limit_per_minute: wrong } })
        assert.strictEqual(refused.status, 422, String(wrong))
      }
      const set = yield* api.partners.update({ params: { slug }, payload: { rate_limit_per_minute: 2 } })
      assert.strictEqual(set.partner.rateLimitPerMinute, 2)
      const limited = yield* request("GET", "/api/partner/v1/status", { headers: bearer(created.token) })
      assert.strictEqual(limited.headers["ratelimit-limit"], "2")

      const cleared = yield* api.partners.update({ params: { slug }, payload: { rate_limit_per_minute: null } })
      assert.isNull(cleared.partner.rateLimitPerMinute)
      const audit = yield* api.system.audit({ query: { target: `partner:${slug}` } })
      const updates = audit.entries.filter((entry) => entry.action === "partner.update") as ReadonlyArray<
        { before: { rate_limit_per_minute: number | null }; after: { rate_limit_per_minute: number | null } }
      >
      assert.deepStrictEqual(
        updates.map((entry) => [entry.before.rate_limit_per_minute, entry.after.rate_limit_per_minute]),
        [[2, null], [null, 2]]
      )
    }))

  it.effect("the admin API has its own OpenAPI document, for a logged-in admin only", () =>
    Effect.gen(function*() {
      const anonymous = yield* adminRequest("GET", "/admin/api/openapi.json")
      assert.strictEqual(anonymous.status, 401)
      assert.deepStrictEqual(anonymous.body, { success: false, message: "Log in first." })
      assert.strictEqual(
        (yield* adminRequest("GET", "/admin/api/openapi.json", { headers: { cookie: "admin_session=forged" } })).status,
        401
      )
      yield* givenAdmin("reader@example.com", "viewer")
      const answer = yield* adminRequest("GET", "/admin/api/openapi.json", {
        session: yield* loginAs("reader@example.com")
      })
      assert.strictEqual(answer.status, 200)
      assert.include(Object.keys(answer.body.paths), "/admin/api/partners")
      assert.notInclude(Object.keys(answer.body.paths), "/api/partner/v1/status")
      assert.property(answer.body.components.securitySchemes, "session")
    }))

  it.effect("the system status: the database answers the readiness check; snake_case on the wire, no secret shown", () =>
    Effect.gen(function*() {
      yield* givenAdmin("status@example.com", "viewer")
      const session = yield* loginAs("status@example.com")
      const { system } = yield* (yield* adminClient(session)).system.status()
      assert.isTrue(system.database.ok)
      assert.instanceOf(system.startedAt, Date)
      const answer = yield* adminRequest("GET", "/admin/api/system", { session })
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.body.system.started_at, system.startedAt.toISOString())
      assert.includeMembers(Object.keys(answer.body.system), [
        "version",
        "started_at",
        "database",
        "casino",
        "sports",
        "wallet",
        "jobs"
      ])
      assert.deepStrictEqual(Object.keys(answer.body.system.wallet).sort(), [
        "failed_callbacks",
        "pending_bets",
        "pending_callbacks"
      ])
      assert.property(answer.body.system.sports, "rate_limit_per_hour")
      assert.notMatch(JSON.stringify(answer.body), /postgres(ql)?:\/\//, "no database URL")
    }))
})
