/**
 * The portal API's allowance per session: a session (a viewer's refused rolls, an owner's test sends and
 * redeliveries) makes at most 120 requests a minute, then a 429 with Retry-After; another session is not held back.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminRequest, type AdminSession } from "../support/AdminConsole.ts"
import { live } from "../support/live.ts"
import { givenPortalUser } from "../support/Portal.ts"
import { givenPartner, TestApp } from "../support/TestApp.ts"

const portal = (method: "GET" | "POST", path: string, session: AdminSession, json?: unknown) =>
  adminRequest(method, `/portal/api${path}`, { session, json })

layer(TestApp(), live)("the portal API's allowance", (it) => {
  it.effect("a session's 200 requests in a row: the first 100 answered, then 429s with Retry-After", () =>
    Effect.gen(function*() {
      const { partner } = yield* givenPartner({ name: "Busy Portal" })
      const viewer = yield* givenPortalUser(partner, "busy-viewer@example.com", "viewer")
      const owner = yield* givenPortalUser(partner, "busy-owner@example.com", "owner")
      const answers: Array<{ status: number; retryAfter: string | undefined }> = []
      for (let i = 0; i < 200; i++) {
        // A viewer's refused roll: each wrote an audit row, unbounded.
        const answer = yield* portal("POST", "/tokens/test/roll", viewer.session, {})
        answers.push({ status: answer.status, retryAfter: answer.headers["retry-after"] })
      }
      assert.deepStrictEqual(answers.slice(0, 100).map((answer) => answer.status), answers.slice(0, 100).map(() => 403))
      const limited = answers.find((answer) => answer.status === 429)
      assert.isDefined(limited, "past the allowance: a 429")
      assert.match(limited!.retryAfter ?? "", /^\d+$/)
      assert.strictEqual((yield* portal("GET", "/session", owner.session)).status, 200, "another session goes on")
    }))
})
