/**
 * The log-in's password checks as a flood meets them: a throttled or locked-out attempt is refused before it takes a
 * permit to hash (it only asks the database), each realm (the console, the portal) has its own permits, and a
 * log-in waits in a short queue for one rather than being refused at once. And "change password" counts its
 * checks of the current password as the log-in counts its attempts: a stolen session cannot guess at scrypt speed.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { adminRequest, givenAdmin, loginAs, testPassword } from "../support/AdminConsole.ts"
import { live } from "../support/live.ts"
import { TestApp } from "../support/TestApp.ts"

/** A log-in from `client` (the test's requests come through 127.0.0.1, a trusted proxy here, which names the client). */
const loginFrom = (client: string, email: string, password: string) =>
  adminRequest("POST", "/admin/api/session", { json: { email, password }, headers: { "x-forwarded-for": client } })

layer(
  TestApp({
    admin: { loginMaxFailures: 3, loginMaxFailuresPerAddress: 5, concurrentHashes: 2 },
    trustedProxies: ["127.0.0.1"]
  }),
  live
)("log-in permits and the change of a password", (it) => {
  it.effect("wrong log-ins with random e-mails at once, far past the throttle: the right ones still log in", () =>
    Effect.gen(function*() {
      const admins = ["permit-a@example.com", "permit-b@example.com", "permit-c@example.com"]
      for (const email of admins) yield* givenAdmin(email)
      const flood = Array.from(
        { length: 60 },
        (_, i) =>
          Effect.map(
            loginFrom("203.0.113.66", `random-${i}-${Math.random()}@example.com`, "a guess"),
            (answer) => answer.status
          )
      )
      const rightOnes = admins.map((email, i) =>
        Effect.map(loginFrom(`198.51.100.${10 + i}`, email, testPassword), (answer) => answer.status)
      )
      // The right ones go in the middle of the flood, as they would meet it.
      const statuses = yield* Effect.all([...flood.slice(0, 30), ...rightOnes, ...flood.slice(30)], {
        concurrency: "unbounded"
      })
      const flooded = [...statuses.slice(0, 30), ...statuses.slice(33)]
      assert.deepStrictEqual(statuses.slice(30, 33), [200, 200, 200], statuses.join(","))
      assert.strictEqual(flooded.filter((status) => status === 401).length, 5, "the address's allowance checked")
      assert.strictEqual(flooded.filter((status) => status === 429).length, 55, "the rest refused by the throttle")
    }))

  it.effect("change password: wrong current passwords count as failed log-ins, then even the right one is a 429", () =>
    Effect.gen(function*() {
      yield* givenAdmin("changer@example.com")
      const session = yield* loginAs("changer@example.com")
      const change = (current: string) =>
        adminRequest("POST", "/admin/api/session/password", {
          session,
          json: { current_password: current, new_password: "a brand new password" },
          headers: { "x-forwarded-for": "203.0.113.77" }
        })
      for (let i = 0; i < 3; i++) assert.strictEqual((yield* change(`guess ${i}`)).status, 422)
      const throttled = yield* change(testPassword)
      assert.strictEqual(throttled.status, 429, "the allowance spent: the right one too")
      assert.match(throttled.body.message, /Too many failed log-ins/)
      assert.strictEqual(
        (yield* loginFrom("203.0.113.77", "changer@example.com", testPassword)).status,
        429,
        "and a log-in from that client: the same throttle"
      )
    }))
})
