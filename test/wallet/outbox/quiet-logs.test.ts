/**
 * A partner that fails or cannot be reached is an everyday event: each failed
 * delivery is one WARN line saying why, with no stack trace and no ERROR.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { CallbackOutbox } from "../../../src/wallet/outbox/CallbackOutbox.ts"
import { transactionEventId } from "../../../src/domain/Callbacks.ts"
import { PartnerBooks } from "../../support/FakePartner.ts"
import { eventually, live } from "../../support/live.ts"
import { makeLogCapture } from "../../support/LogCapture.ts"
import { givenPlayer, givenWalletPartner, WalletApp, winBet } from "../../support/WalletApp.ts"

const books = new PartnerBooks()
const logs = makeLogCapture()

const callbackRow = (eventId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ id: number; status: string; attempts: number }>`
      SELECT id, status, attempts FROM partner_callbacks WHERE event_id = ${eventId}
    `).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

layer(WalletApp(books).pipe(Layer.provide(logs.layer)), live)("delivery logs", (it) => {
  it.effect("a failing, then unreachable partner: one WARN line per failed delivery, no stack, no ERROR", () =>
    Effect.gen(function*() {
      const created = yield* givenWalletPartner(books)
      const player = yield* givenPlayer(books, created.partner.id, "quiet-player", 20)

      books.failNotifications = 1 // the first attempt gets a 500
      yield* winBet(player.internalUserId, "quiet-1", { bet: 1, win: 4 })
      const win = transactionEventId("win", "quiet-1")
      yield* eventually(callbackRow(win), (row) => row?.attempts === 1, "the first failed attempt")
      books.behaviour = "down" // the retry finds the partner unreachable (connection dropped)
      const second = yield* eventually(callbackRow(win), (row) => row.attempts === 2, "the second failed attempt")
      books.behaviour = "fine"
      yield* (yield* CallbackOutbox).retry(Number(second.id)) // the row's bigint id, as an id is passed
      yield* eventually(callbackRow(win), (row) => row.status === "delivered", "the delivery")

      const warnings = logs.entries.filter((entry) => entry.message === "Partner notification not delivered")
      assert.lengthOf(warnings, 2)
      for (const warning of warnings) {
        assert.strictEqual(warning.level, "WARN")
        assert.strictEqual(warning.annotations.event_id, win)
        assert.isString(warning.annotations.detail)
        assert.notMatch(String(warning.annotations.detail), /\n\s+at /)
      }
      const loud = logs.entries.filter((entry) =>
        entry.level === "ERROR" || entry.level === "FATAL" || entry.cause !== undefined ||
        /\n\s+at /.test(String(entry.message))
      )
      assert.deepStrictEqual(loud, [])
    }))
})
