import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { AdminAccounts } from "../../src/admin/AdminAccounts.ts"
import { adminRequest, givenAdmin, loginAs, loginWithHost, testPassword } from "../support/AdminConsole.ts"
import { live } from "../support/live.ts"
import { bearer, request, TestApp } from "../support/TestApp.ts"

layer(TestApp({ admin: { loginMaxFailures: 3 } }), live)("admin API security", (it) => {
  it.effect("log-in sets an HttpOnly, SameSite=Strict session cookie scoped to /admin and answers a CSRF token", () =>
    Effect.gen(function*() {
      yield* givenAdmin("ops@example.com")
      const answer = yield* adminRequest("POST", "/admin/api/session", { json: { email: " Ops@Example.com ", password: testPassword } })
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
      const stored = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM admin_sessions WHERE id_hash = sha256(convert_to(${value}, 'UTF8'))`
      assert.strictEqual(stored[0].n, 1)
    }))

  it.effect("without a session every endpoint is 401; a wrong password is 401; a disabled account cannot log in", () =>
    Effect.gen(function*() {
      for (const [method, path] of [["GET", "/admin/api/partners"], ["GET", "/admin/api/session"], ["POST", "/admin/api/partners"], ["GET", "/admin/api/audit"]] as const) {
        const answer = yield* adminRequest(method, path, { json: method === "POST" ? { name: "x" } : undefined })
        assert.strictEqual(answer.status, 401, path)
        assert.deepStrictEqual(answer.body, { success: false, message: "Log in first." })
      }
      yield* givenAdmin("wrong@example.com")
      const wrong = yield* adminRequest("POST", "/admin/api/session", { json: { email: "wrong@example.com", password: "not it at all" } })
      assert.strictEqual(wrong.status, 401)
      assert.deepStrictEqual(wrong.body, { success: false, message: "Wrong e-mail or password." })
      const unknown = yield* adminRequest("POST", "/admin/api/session", { json: { email: "nobody@example.com", password: testPassword } })
      assert.deepStrictEqual(unknown.body, wrong.body, "an unknown e-mail answers as a wrong password")
      const forged = yield* adminRequest("GET", "/admin/api/partners", { headers: { cookie: "admin_session=forged" } })
      assert.strictEqual(forged.status, 401)

      yield* givenAdmin("gone@example.com")
      const session = yield* loginAs("gone@example.com")
      yield* (yield* AdminAccounts).setDisabled({ name: "test", via: "cli" }, "gone@example.com", true)
      assert.strictEqual((yield* adminRequest("GET", "/admin/api/partners", { session })).status, 401, "its sessions end")
      assert.strictEqual((yield* adminRequest("POST", "/admin/api/session", { json: { email: "gone@example.com", password: testPassword } })).status, 401)
    }))

  it.effect("log-ins are throttled per e-mail after ADMIN_LOGIN_MAX_FAILURES failures, even with the right password", () =>
    Effect.gen(function*() {
      yield* givenAdmin("throttled@example.com")
      for (let i = 0; i < 3; i++) {
        const answer = yield* adminRequest("POST", "/admin/api/session", { json: { email: "throttled@example.com", password: `guess ${i}` } })
        assert.strictEqual(answer.status, 401)
      }
      const blocked = yield* adminRequest("POST", "/admin/api/session", { json: { email: "throttled@example.com", password: testPassword } })
      assert.strictEqual(blocked.status, 429)
      assert.match(blocked.body.message, /Too many failed log-ins: try again in 15 minute/)
      assert.isAbove(blocked.body.retry_after_seconds, 800)
      // Another account is not held back by it.
      yield* givenAdmin("other@example.com")
      assert.strictEqual((yield* adminRequest("POST", "/admin/api/session", { json: { email: "other@example.com", password: testPassword } })).status, 200)
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
      for (const [method, path] of [
        ["POST", "/admin/api/partners"],
        ["PATCH", "/admin/api/partners/demo"],
        ["POST", "/admin/api/partners/demo/deactivate"],
        ["POST", "/admin/api/partners/demo/rotate-token"],
        ["POST", "/admin/api/callbacks/1/redeliver"],
        ["POST", "/admin/api/casino/sync"],
        ["POST", "/admin/api/casino/providers/aurora-gaming/disable"]
      ] as const) {
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
      const { password } = yield* (yield* AdminAccounts).create({ name: "test", via: "cli" }, { email: "new@example.com", role: "operator" })
      const session = yield* loginAs("new@example.com", password)
      const current = yield* adminRequest("GET", "/admin/api/session", { session })
      assert.isTrue(current.body.must_change_password)
      assert.strictEqual((yield* adminRequest("GET", "/admin/api/partners", { session })).status, 403)
      const tooShort = yield* adminRequest("POST", "/admin/api/session/password", { session, json: { current_password: password, new_password: "short" } })
      assert.strictEqual(tooShort.status, 422)
      const changed = yield* adminRequest("POST", "/admin/api/session/password", {
        session,
        json: { current_password: password, new_password: "a much longer passphrase" }
      })
      assert.strictEqual(changed.status, 200)
      assert.strictEqual((yield* adminRequest("GET", "/admin/api/partners", { session })).status, 200)
      assert.strictEqual((yield* adminRequest("POST", "/admin/api/session", { json: { email: "new@example.com", password } })).status, 401)
    }))

  it.effect("partners through the API: created with a token shown once, deactivated (the partner API then answers 401), audited", () =>
    Effect.gen(function*() {
      yield* givenAdmin("audit@example.com")
      const session = yield* loginAs("audit@example.com")
      const created = yield* adminRequest("POST", "/admin/api/partners", {
        session,
        json: { name: "Audited Bets", commission_percent: 7.5, callback_url: "" }
      })
      assert.strictEqual(created.status, 200)
      const token = created.body.token as string
      assert.match(token, /^pak_/)
      assert.strictEqual((yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })).status, 200)
      const shown = yield* adminRequest("GET", "/admin/api/partners/audited-bets", { session })
      assert.notInclude(JSON.stringify(shown.body), token)
      assert.strictEqual((yield* adminRequest("POST", "/admin/api/partners/audited-bets/deactivate", { session })).status, 200)
      assert.strictEqual((yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })).status, 401)
      const invalid = yield* adminRequest("PATCH", "/admin/api/partners/audited-bets", { session, json: { commission_percent: 150 } })
      assert.strictEqual(invalid.status, 422)
      const audit = yield* adminRequest("GET", "/admin/api/audit?target=partner:audited-bets", { session })
      assert.deepStrictEqual(audit.body.entries.map((entry: any) => [entry.action, entry.actor, entry.via]), [
        ["partner.deactivate", "audit@example.com", "console"],
        ["partner.create", "audit@example.com", "console"]
      ])
      assert.deepStrictEqual(audit.body.entries[0].before.status, "active")
      assert.deepStrictEqual(audit.body.entries[0].after.status, "inactive")
      assert.notInclude(JSON.stringify(audit.body), token)
      assert.notInclude(JSON.stringify(audit.body), created.body.webhook_secret)
    }))

  it.effect("an operator sets a partner's rate limit, which the partner API applies; null gives it the default again", () =>
    Effect.gen(function*() {
      yield* givenAdmin("limits@example.com")
      const session = yield* loginAs("limits@example.com")
      const created = yield* adminRequest("POST", "/admin/api/partners", { session, json: { name: "Limited Bets" } })
      assert.strictEqual(created.status, 200)
      assert.isNull(created.body.partner.rate_limit_per_minute)
      const slug = created.body.partner.slug
      const path = `/admin/api/partners/${slug}`

      for (const wrong of [0, -5, 1.5]) {
        const refused = yield* adminRequest("PATCH", path, { session, json: { rate_limit_per_minute: wrong } })
        assert.strictEqual(refused.status, 422, String(wrong))
      }
      const set = yield* adminRequest("PATCH", path, { session, json: { rate_limit_per_minute: 2 } })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      assert.strictEqual(set.body.partner.rate_limit_per_minute, 2)
      const limited = yield* request("GET", "/api/partner/v1/status", { headers: bearer(created.body.token) })
      assert.strictEqual(limited.headers["ratelimit-limit"], "2")

      const cleared = yield* adminRequest("PATCH", path, { session, json: { rate_limit_per_minute: null } })
      assert.isNull(cleared.body.partner.rate_limit_per_minute)
      const audit = yield* adminRequest("GET", `/admin/api/audit?target=partner:${slug}`, { session })
      const updates = audit.body.entries.filter((entry: { action: string }) => entry.action === "partner.update")
      assert.deepStrictEqual(
        updates.map((entry: { before: { rate_limit_per_minute: number | null }; after: { rate_limit_per_minute: number | null } }) =>
          [entry.before.rate_limit_per_minute, entry.after.rate_limit_per_minute]),
        [[2, null], [null, 2]]
      )
    }))

  it.effect("the admin API has its own OpenAPI document", () =>
    Effect.gen(function*() {
      const answer = yield* adminRequest("GET", "/admin/api/openapi.json")
      assert.strictEqual(answer.status, 200)
      assert.include(Object.keys(answer.body.paths), "/admin/api/partners")
      assert.notInclude(Object.keys(answer.body.paths), "/api/partner/v1/status")
      assert.property(answer.body.components.securitySchemes, "session")
    }))
})
