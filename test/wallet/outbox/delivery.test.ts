import { assert, describe, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { createHmac, timingSafeEqual } from "node:crypto"
import { CallbackOutbox } from "../../../src/wallet/outbox/CallbackOutbox.ts"
import { transactionEventId } from "../../../src/domain/Callbacks.ts"
import { PartnerBooks } from "../../support/FakePartner.ts"
import { eventually, live } from "../../support/live.ts"
import { givenPlayer, givenWalletPartner, WalletApp, winBet } from "../../support/WalletApp.ts"

const books = new PartnerBooks()

const givenPlayerWith = (start: number) =>
  Effect.gen(function*() {
    const created = yield* givenWalletPartner(books)
    const external = `player-${created.partner.id}`
    const player = yield* givenPlayer(books, created.partner.id, external, start)
    return { ...created, external, userCode: player.internalUserId, playerId: player.id }
  })

const callbackRow = (eventId: string) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) =>
      sql<{ id: string; status: string; attempts: number; last_error: string | null }>`
      SELECT id::text, status, attempts, last_error FROM partner_callbacks WHERE event_id = ${eventId}
    `
  ).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

/** The partner guide's signature check, as a partner would write it: any of the signatures may match. */
const partnerVerifies = (secret: string, headers: Record<string, string | string[] | undefined>, rawBody: string) => {
  const timestamp = String(headers["x-partner-timestamp"])
  const expected = Buffer.from("v1=" + createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex"))
  const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300
  return fresh &&
    String(headers["x-partner-signature"]).split(",").some((given) =>
      given.length === expected.length && timingSafeEqual(Buffer.from(given), expected)
    )
}

layer(WalletApp(books), live)("Notifications", (it) => {
  it.effect("a failed delivery is retried with backoff, the same body and event id, freshly signed", () =>
    Effect.gen(function*() {
      const { external, userCode, webhookSecret } = yield* givenPlayerWith(50)
      books.failNotifications = 1
      yield* winBet(userCode, "retry-1", { bet: 1, win: 3 })
      const win = transactionEventId("win", "retry-1")
      const failed = yield* eventually(callbackRow(win), (row) => row?.attempts === 1, "the first failed attempt")
      assert.deepInclude(failed, { status: "pending" })
      assert.match(failed.last_error ?? "", /HTTP 500/)
      // The queue records its backoff (about 3 s after a first failure) once the attempt's run has ended: the next
      // attempt is then that far past the notification.
      const outbox = yield* CallbackOutbox
      yield* eventually(
        outbox.list({ status: "pending", limit: 1 }),
        ([listed]) =>
          listed !== undefined && (listed.nextAttemptAt?.getTime() ?? 0) > listed.createdAt.getTime() + 2_000,
        "the next attempt backing off"
      )

      // No new activity: the queue's own backoff (about 3 s) brings it back.
      const delivered = yield* eventually(callbackRow(win), (row) => row.status === "delivered", "the retry")
      assert.strictEqual(delivered.attempts, 2)
      assert.isNull(delivered.last_error)
      assert.strictEqual(books.balanceOf(external), 5_200n)

      const attempts = books.receivedFor(win)
      assert.strictEqual(attempts.length, 2)
      assert.deepStrictEqual(attempts[0].body, attempts[1].body)
      for (const attempt of attempts) {
        const raw = attempt.raw
        assert.isTrue(partnerVerifies(webhookSecret, attempt.headers, raw), "the partner guide's check accepts it")
        assert.isFalse(partnerVerifies(webhookSecret, attempt.headers, raw.replace("\"amount\":3", "\"amount\":30")))
        assert.isFalse(partnerVerifies("whsec_someone_else", attempt.headers, raw))
      }
    }))

  it.effect("a partner's answer is read up to 64 KiB: a larger error is named as such, a larger 2xx still delivers", () =>
    Effect.gen(function*() {
      const { external, userCode } = yield* givenPlayerWith(50)
      books.hugeNotifications = true
      books.failNotifications = 1
      yield* winBet(userCode, "huge-1", { bet: 1, win: 3 })
      const win = transactionEventId("win", "huge-1")
      const failed = yield* eventually(callbackRow(win), (row) => row?.attempts === 1, "the first failed attempt")
      assert.strictEqual(failed.last_error, "The partner answered HTTP 500: (an answer larger than 64 KiB)")
      const delivered = yield* eventually(callbackRow(win), (row) => row.status === "delivered", "the retry").pipe(
        Effect.ensuring(Effect.sync(() => (books.hugeNotifications = false)))
      )
      assert.strictEqual(delivered.attempts, 2)
      assert.strictEqual(books.balanceOf(external), 5_200n)
    }))

  it.effect("a player's notifications arrive in order, even when the first has to be retried", () =>
    Effect.gen(function*() {
      const { external, userCode } = yield* givenPlayerWith(10)
      books.failNotifications = 1
      yield* winBet(userCode, "order-1", { bet: 1, win: 2 })
      yield* eventually(
        callbackRow(transactionEventId("win", "order-1")),
        (row) => row?.attempts === 1,
        "the first failure"
      )
      yield* winBet(userCode, "order-2", { bet: 1, win: 5 })
      yield* winBet(userCode, "order-3", { bet: 1, win: 7 })
      yield* eventually(Effect.sync(() => books.balanceOf(external)), (cents) => cents === 2_100n, "all three wins")
      const wins = ["order-1", "order-2", "order-3"].map((txn) => transactionEventId("win", txn))
      assert.deepStrictEqual(books.applied.filter((id) => wins.includes(id)), wins)
    }))

  it.effect("callbacks retry replays a delivered notification (same event id: the partner does not pay twice)", () =>
    Effect.gen(function*() {
      const { external, userCode } = yield* givenPlayerWith(10)
      yield* winBet(userCode, "replay-1", { bet: 1, win: 4 })
      const win = transactionEventId("win", "replay-1")
      const row = yield* eventually(callbackRow(win), (row) => row?.status === "delivered", "the first delivery")
      const outbox = yield* CallbackOutbox
      const retried = yield* outbox.retry(Number(row.id))
      assert.strictEqual(retried.status, "pending")
      yield* eventually(Effect.sync(() => books.receivedFor(win).length), (n) => n === 2, "the replay")
      yield* eventually(callbackRow(win), (row) => row.status === "delivered", "delivered again")
      assert.strictEqual(books.balanceOf(external), 1_300n)

      const bet = yield* callbackRow(transactionEventId("bet", "replay-1"))
      const notReplayable = yield* Effect.exit(outbox.retry(Number(bet.id)))
      assert.isTrue(Exit.isFailure(notReplayable))
      assert.match(JSON.stringify(notReplayable), /CallbackNotReplayable/)
      const unknown = yield* Effect.exit(outbox.retry(999_999_999))
      assert.match(JSON.stringify(unknown), /CallbackNotFound/)
    }))
})

describe("when deliveries run out of attempts", () => {
  const patient = new PartnerBooks()
  layer(WalletApp(patient, { callbacks: { maxAttempts: 1 } }), live)("the line", (it) => {
    it.effect("is marked failed and waits for an operator's retry", () =>
      Effect.gen(function*() {
        const { partner } = yield* givenWalletPartner(patient)
        const player = yield* givenPlayer(patient, partner.id, "patient-1", 10)
        patient.failNotifications = 1
        yield* winBet(player.internalUserId, "last-1", { bet: 1, win: 2 })
        const win = transactionEventId("win", "last-1")
        const failed = yield* eventually(callbackRow(win), (row) => row?.status === "failed", "the failure")
        assert.strictEqual(failed.attempts, 1)
        yield* Effect.sleep("3500 millis")
        assert.strictEqual((yield* callbackRow(win)).status, "failed", "no more attempts on its own")
        yield* (yield* CallbackOutbox).retry(Number(failed.id))
        yield* eventually(callbackRow(win), (row) => row.status === "delivered", "the operator's retry")
        assert.strictEqual(patient.balanceOf("patient-1"), 1_100n)
      }))
  })
})
