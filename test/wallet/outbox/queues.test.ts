/**
 * The outbox's own delivery queues and their workers: a notification leaves at its commit's NOTIFY, without waiting
 * for a worker's next look, and two instances' workers share the players' queues without ever delivering one
 * player's at once or out of order.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../../src/domain/Callbacks.ts"
import { CallbackWorker, callbackWorker } from "../../../src/wallet/outbox/CallbackWorker.ts"
import { callbacksWrittenChannel } from "../../../src/wallet/outbox/OutboxQueuesSql.ts"
import { PartnerBooks } from "../../support/FakePartner.ts"
import { FakeUpstream, type Script } from "../../support/FakeUpstream.ts"
import { eventually, live } from "../../support/live.ts"
import { TestApp } from "../../support/TestApp.ts"
import { givenWalletPlayer, winBet } from "../../support/WalletApp.ts"

const books = new PartnerBooks()
/** When each notification reached the partner. */
const arrivals: Array<{ readonly eventId: string; readonly player: string; readonly at: number }> = []
const recording: Script = (call) => {
  if (["win", "refund", "rollback"].includes(call.body?.kind)) {
    arrivals.push({
      eventId: String(call.headers["x-partner-event-id"]),
      player: String(call.body?.player?.external_player_id),
      at: performance.now()
    })
  }
  return books.script(call)
}

/** A worker of an instance of its own, for the rest of the scope. */
const instance = (worker: Layer.Layer<never, never, any> = CallbackWorker) =>
  Effect.flatMap(
    Effect.context<never>(),
    (services) => Layer.build(worker.pipe(Layer.provide(Layer.succeedContext(services))))
  )

// No worker in the app: each test starts the instances it means.
layer(TestApp().pipe(Layer.provideMerge(FakeUpstream.layer(recording))), live)("the delivery queues", (it) => {
  it.effect("a notification written is delivered at its commit's NOTIFY, not at the worker's next look", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 10)
      // A worker that would look for due queues only once an hour: only the NOTIFY can wake it.
      yield* instance(callbackWorker({ pollInterval: "1 hour" }))
      // It listens: PostgreSQL shows its connection's LISTEN on the outbox's channel (the app runs no other worker).
      const sql = yield* SqlClient.SqlClient
      yield* eventually(
        sql<{ readonly n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND query ILIKE ${`LISTEN %${callbacksWrittenChannel}%`}
        `.pipe(Effect.orDie),
        ([row]) => row.n >= 1,
        "the worker's LISTEN"
      )
      for (const txn of ["notify-1", "notify-2", "notify-3"]) {
        // A free round: the partner is asked nothing, so only the worker delivers the win.
        yield* winBet(player.userCode, txn, { bet: 0, win: 1 })
        const win = transactionEventId("win", txn)
        const written = performance.now()
        yield* eventually(Effect.sync(() => books.applied.includes(win)), (done) => done, `${txn} delivered`)
        assert.isBelow(performance.now() - written, 1_500, "delivered within moments of its commit")
      }
    }).pipe(Effect.scoped))

  it.effect("two instances never deliver one player's queue at once, and each player's go in order, once", () =>
    Effect.gen(function*() {
      const players = [yield* givenWalletPlayer(books, 10), yield* givenWalletPlayer(books, 10)]
      yield* instance()
      yield* instance()
      books.notificationDelayMillis = 100
      const written = new Map<string, Array<string>>()
      for (let round = 0; round < 6; round++) {
        for (const player of players) {
          const txn = `pair-${player.playerId}-${round}`
          yield* winBet(player.userCode, txn, { bet: 0, win: 1 })
          written.set(player.external, [...(written.get(player.external) ?? []), transactionEventId("win", txn)])
        }
      }
      const all = [...written.values()].flat()
      yield* eventually(Effect.sync(() => all.every((win) => books.applied.includes(win))), (done) => done, "all")
      for (const [player, wins] of written) {
        const reached = arrivals.filter((arrival) => arrival.player === player)
        assert.deepStrictEqual(reached.map((arrival) => arrival.eventId), wins, "in order, each once")
        for (let i = 1; i < reached.length; i++) {
          // The partner answers each after 100 ms: the next may only leave once the last was answered.
          assert.isAtLeast(reached[i].at - reached[i - 1].at, 95, `${player}'s ${i}th not sent beside the one before`)
        }
      }
    }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => (books.notificationDelayMillis = 0)))))
})
