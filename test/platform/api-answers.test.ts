/**
 * What every answer of the three APIs (the partner API, the console's, the portal's) carries whatever it is: never
 * stored by a browser or a proxy (answers carry tokens, secrets and invitation links), never sniffed as another type.
 * And a callback URL's credentials and query values, masked wherever it is shown or audited.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminRequest, givenAdmin, loginAs } from "../support/AdminConsole.ts"
import { live } from "../support/live.ts"
import { givenPortalUser } from "../support/Portal.ts"
import { bearer, givenPartner, request, TestApp } from "../support/TestApp.ts"

const assertNotStored = (headers: Readonly<Record<string, string | undefined>>, what: string) => {
  assert.strictEqual(headers["cache-control"], "no-store", what)
  assert.strictEqual(headers["x-content-type-options"], "nosniff", what)
}

layer(TestApp(), live)("API answers", (it) => {
  it.effect("the partner API, the console's and the portal's: no-store and nosniff on successes and refusals", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Headers" })
      const partner = [
        ["a success", yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) }), 200],
        ["a 401", yield* request("GET", "/api/partner/v1/status"), 401],
        ["an unknown route", yield* request("GET", "/api/partner/v1/nothing-here", { headers: bearer(token) }), 404]
      ] as const
      for (const [what, answer, status] of partner) {
        assert.strictEqual(answer.status, status, what)
        assertNotStored(answer.headers, `partner API: ${what}`)
      }
      yield* givenAdmin("headers@example.com")
      const session = yield* loginAs("headers@example.com")
      const console = [
        ["a success", yield* adminRequest("GET", "/admin/api/partners", { session }), 200],
        ["a 401", yield* adminRequest("GET", "/admin/api/partners"), 401]
      ] as const
      for (const [what, answer, status] of console) {
        assert.strictEqual(answer.status, status, what)
        assertNotStored(answer.headers, `console API: ${what}`)
      }
      const portal = yield* request("GET", "/portal/api/session")
      assert.strictEqual(portal.status, 401)
      assertNotStored(portal.headers, "portal API: a 401")
    }))

  it.effect("a callback URL with credentials and a key: masked in the console, the portal and the audit trail", () =>
    Effect.gen(function*() {
      const secretUrl = "http://hook-user:hook-pass@127.0.0.1:9/wallet?key=k3y-abc&mode=live"
      const shown = "http://***:***@127.0.0.1:9/wallet?key=***&mode=***"
      const { partner } = yield* givenPartner({ name: "Masked", slug: "masked", callbackUrl: secretUrl })
      yield* givenAdmin("masker@example.com")
      const session = yield* loginAs("masker@example.com")
      const view = yield* adminRequest("GET", "/admin/api/partners/masked", { session })
      assert.strictEqual(view.body.partner.callback_url, shown)
      assert.notInclude(JSON.stringify(view.body), "hook-pass")
      assert.notInclude(JSON.stringify(view.body), "k3y-abc")
      const changed = yield* adminRequest("PATCH", "/admin/api/partners/masked", {
        session,
        json: { test_callback_url: secretUrl.replace("k3y-abc", "k3y-def") }
      })
      assert.strictEqual(changed.status, 200)
      assert.notInclude(JSON.stringify(changed.body), "k3y-def")
      const audit = yield* adminRequest("GET", "/admin/api/audit?target=partner:masked", { session })
      assert.strictEqual(audit.status, 200)
      for (const secret of ["hook-pass", "k3y-abc", "k3y-def"]) assert.notInclude(JSON.stringify(audit.body), secret)
      assert.include(JSON.stringify(audit.body), shown)
      const owner = yield* givenPortalUser(partner, "masked-owner@example.com", "owner")
      const webhooks = yield* adminRequest("GET", "/portal/api/webhooks", { session: owner.session })
      assert.strictEqual(webhooks.status, 200)
      for (const secret of ["hook-pass", "k3y-abc", "k3y-def"]) assert.notInclude(JSON.stringify(webhooks.body), secret)
    }))
})
