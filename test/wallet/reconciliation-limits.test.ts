/**
 * What a reconciliation may cost the service: the day is looked up before the body is read (a day without a
 * statement is a 404 however large the body), the body is at most 4 MiB, a partner runs one at a time, and each
 * run counts as 10 requests against the partner's rate limit.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServer } from "effect/http"
import { TestClock } from "effect/testing"
import * as http from "node:http"
import { dayOf, dayStart, nextDay } from "../../src/domain/Statements.ts"
import { Statements } from "../../src/wallet/statements/Statements.ts"
import { eventually, live } from "../support/live.ts"
import { bearer, errorBody, givenPartner, request, TestApp } from "../support/TestApp.ts"

const today = dayOf(Date.now())
const url = (day: string) => `/api/partner/v1/wallet/statements/${day}/reconciliation`
const post = (token: string, day: string, body: string) =>
  request("POST", url(day), { headers: { ...bearer(token), "content-type": "application/x-ndjson" }, body })

/** Today's statements written, as if it were tomorrow (the statements' clock a TestClock set there). */
const closeToday = Effect.flatMap(
  Effect.service(Statements),
  (statements) =>
    Effect.flatMap(TestClock.setTime(dayStart(nextDay(today)).getTime() + 3_600_000), () => statements.closeDays).pipe(
      Effect.provide(TestClock.layer())
    )
)

const line = (i: number) => JSON.stringify({ transaction_id: `t-${i}`, kind: "bet", amount: -1.5 })

/** A reconciliation whose body is sent in part and held open until `finish` is called. */
const heldOpen = (token: string, day: string) =>
  Effect.flatMap(Effect.service(HttpServer.HttpServer), (server) =>
    Effect.sync(() => {
      const address = server.address
      if (address._tag === "UnixPathAddress") throw new Error("the test server does not listen on TCP")
      const req = http.request({
        host: "127.0.0.1",
        port: address.port,
        method: "POST",
        path: url(day),
        headers: { ...bearer(token), "content-type": "application/x-ndjson", "transfer-encoding": "chunked" }
      })
      const answered = new Promise<number>((resolve) => {
        req.on("response", (response) => {
          response.resume()
          response.on("end", () => resolve(response.statusCode ?? 0))
        })
        req.on("error", () => resolve(0))
      })
      req.write(`${line(0)}\n`)
      return { finish: () => (req.end(`${line(1)}\n`), answered) }
    }))

// CurrencyConfig: the app needs it since issue 33, and TestConfig does not give it yet.
layer(TestApp(), live)("reconciliation limits", (it) => {
  it.effect(
    "the day looked up before the body is read; a body over 4 MiB a 413; one run at a time per partner; each 10 requests",
    () =>
      Effect.gen(function*() {
        // Every partner first: today's statements are written once, for the partners there are then.
        const { token } = yield* givenPartner({ name: "Reconciling" })
        const other = yield* givenPartner({ name: "Other Reconciler" })
        const limited = yield* givenPartner({ name: "Limited Reconciler", rateLimitPerMinute: 20 })
        const unread = yield* post(token, nextDay(today), "not json at all\n".repeat(1000))
        assert.strictEqual(unread.status, 404, "the day is looked up first: its body is never read")
        assert.include(errorBody(unread).message, "has not ended yet")

        yield* closeToday
        const fine = yield* post(token, today, `${line(1)}\n`)
        assert.strictEqual(fine.status, 200)
        const lines = Array.from({ length: Math.ceil((4.5 * 1024 * 1024) / line(0).length) }, (_, i) => line(i))
        const large = yield* post(token, today, lines.join("\n"))
        assert.strictEqual(large.status, 413)
        assert.include(errorBody(large).message, "larger than 4 MiB")

        // One at a time: a run held open (its body not finished) holds the partner's.
        const held = yield* heldOpen(token, today)
        const second = yield* eventually(post(token, today, `${line(1)}\n`), (answer) => answer.status === 429)
        assert.include(errorBody(second).message, "already running")
        assert.strictEqual(second.headers["retry-after"], "1")
        assert.strictEqual((yield* post(other.token, today, `${line(1)}\n`)).status, 200, "another partner's goes on")
        assert.strictEqual(yield* Effect.promise(held.finish), 200)
        assert.strictEqual((yield* post(token, today, `${line(1)}\n`)).status, 200, "then the next one")

        const statuses: Array<number> = []
        for (let i = 0; i < 3; i++) statuses.push((yield* post(limited.token, today, `${line(1)}\n`)).status)
        assert.deepStrictEqual(statuses, [200, 200, 429], "20 requests a minute: two runs")
      }),
    { timeout: 60_000 }
  )
})
