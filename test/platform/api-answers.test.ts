/**
 * What every answer of the three APIs (the partner API, the console's, the portal's) carries whatever it is: never
 * stored by a browser or a proxy (answers carry tokens, secrets and invitation links), never sniffed as another type.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminRequest, givenAdmin, loginAs } from "../support/AdminConsole.ts"
import { live } from "../support/live.ts"
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
})
