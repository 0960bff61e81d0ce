/**
 * A worker stopping (the instance shuts down) takes no further notification: each run finishes the one it holds and
 * hands its queue back, due at once, so the next instance goes on without waiting for it to be taken for stale.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../../src/domain/Callbacks.ts"
import { CallbackWorker } from "../../../src/wallet/outbox/CallbackWorker.ts"
import { PartnerBooks } from "../../support/FakePartner.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { eventually, live } from "../../support/live.ts"
import { TestApp } from "../../support/TestApp.ts"
import { givenWalletPlayer, winBet } from "../../support/WalletApp.ts"

const books = new PartnerBooks()

const instance = Effect.flatMap(
  Effect.context<never>(),
  (services) => Layer.build(CallbackWorker.pipe(Layer.provide(Layer.succeedContext(services))))
)

layer(TestApp().pipe(Layer.provideMerge(FakeUpstream.layer(books.script))), live)("the callback worker", (it) => {
  it.effect("on shutdown finishes the notification it holds and hands the queue back; the next instance goes on", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const player = yield* givenWalletPlayer(books, 10)
      const wins = ["bye-1", "bye-2", "bye-3"].map((txn) => transactionEventId("win", txn))
      for (const txn of ["bye-1", "bye-2", "bye-3"]) yield* winBet(player.userCode, txn, { bet: 0, win: 1 })
      books.notificationDelayMillis = 1_000
      yield* Effect.scoped(Effect.gen(function*() {
        yield* instance
        yield* eventually(Effect.sync(() => books.receivedFor(wins[0]).length), (n) => n === 1, "the first sent")
      }))
      // The scope closed once the held notification was answered.
      assert.deepStrictEqual(books.applied.filter((id) => wins.includes(id)), [wins[0]], "the held one, no more")
      const [queue] = yield* sql<{ locked_by: string | null; attempts: number; due: boolean }>`
        SELECT locked_by, attempts, next_attempt_at <= now() AS due FROM partner_callback_queues
        WHERE player_id = ${player.playerId}`
      assert.deepStrictEqual(queue, { locked_by: null, attempts: 0, due: true }, "handed back, due at once")

      books.notificationDelayMillis = 0
      yield* instance
      yield* eventually(Effect.sync(() => wins.every((win) => books.applied.includes(win))), (done) => done, "the rest")
      assert.deepStrictEqual(books.applied.filter((id) => wins.includes(id)), wins, "in order, each once")
    }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => (books.notificationDelayMillis = 0)))))
})
