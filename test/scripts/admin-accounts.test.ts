import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { admin } from "../support/AdminCli.ts"
import { adminClient, adminRequest, loginAs } from "../support/AdminConsole.ts"
import { live } from "../support/live.ts"
import { TestApp } from "../support/TestApp.ts"

layer(TestApp(), live)("admin CLI: console accounts and the audit trail", (it) => {
  it.effect("admins create prints a one-time password that logs in once and must then be replaced", () =>
    Effect.gen(function*() {
      const created = yield* admin("admins", "create", "--email", "Ana@Example.com", "--role", "viewer")
      assert.strictEqual(created.exitCode, 0, created.stderr)
      const output = JSON.parse(created.stdout)
      assert.deepStrictEqual(Object.keys(output).sort(), ["email", "one_time_password", "role"])
      assert.strictEqual(output.email, "ana@example.com")
      assert.match(output.one_time_password, /^[A-Za-z0-9_-]{20}$/)
      const session = yield* loginAs("ana@example.com", output.one_time_password)
      assert.isTrue((yield* (yield* adminClient(session)).session.current()).mustChangePassword)
      // The list never shows a password or its hash.
      const listed = yield* admin("admins", "list")
      assert.notInclude(listed.stdout, output.one_time_password)
      assert.notInclude(listed.stdout, "scrypt")
      assert.deepStrictEqual(JSON.parse(listed.stdout).map((a: any) => [a.email, a.role]), [[
        "ana@example.com",
        "viewer"
      ]])
      const again = yield* admin("admins", "create", "--email", "ana@example.com")
      assert.strictEqual(again.exitCode, 1)
      assert.include(again.stderr, "already exists")
      const bad = yield* admin("admins", "create", "--email", "not-an-email")
      assert.strictEqual(bad.exitCode, 1)

      // A one-time password lasts a day; `admins reset-password` issues a fresh one.
      const late = JSON.parse((yield* admin("admins", "create", "--email", "late@example.com")).stdout)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE admin_accounts SET password_set_at = now() - interval '25 hours' WHERE email = 'late@example.com'`
      const expired = yield* adminRequest("POST", "/admin/api/session", {
        json: { email: "late@example.com", password: late.one_time_password }
      })
      assert.strictEqual(expired.status, 401)
      assert.match(expired.body.message, /has expired .*ask an operator for a new one \(admins reset-password\)/)
      const reset = yield* admin("admins", "reset-password", "late@example.com")
      assert.strictEqual(reset.exitCode, 0, reset.stderr)
      const fresh = JSON.parse(reset.stdout)
      assert.notStrictEqual(fresh.one_time_password, late.one_time_password)
      const renewed = yield* loginAs("late@example.com", fresh.one_time_password)
      assert.isTrue((yield* (yield* adminClient(renewed)).session.current()).mustChangePassword)
    }))

  it.effect("the CLI's partner changes are in the audit trail, as the machine user, without secrets", () =>
    Effect.gen(function*() {
      const created = JSON.parse((yield* admin("partners", "create", "--name", "Cli Audited")).stdout)
      assert.strictEqual((yield* admin("partners", "deactivate", "cli-audited")).exitCode, 0)
      assert.strictEqual((yield* admin("partners", "rotate-token", "cli-audited")).exitCode, 0)
      const listed = yield* admin("audit", "list", "--target", "partner:cli-audited")
      assert.strictEqual(listed.exitCode, 0, listed.stderr)
      const entries = JSON.parse(listed.stdout)
      assert.deepStrictEqual(entries.map((e: any) => [e.action, e.via]), [
        ["partner.rotate-token", "cli"],
        ["partner.deactivate", "cli"],
        ["partner.create", "cli"]
      ])
      assert.match(entries[0].actor, /@/)
      assert.deepStrictEqual([entries[1].before.status, entries[1].after.status], ["active", "inactive"])
      assert.notInclude(listed.stdout, created.token)
      assert.notInclude(listed.stdout, created.webhook_secret)
    }))
})
