/**
 * A crashed instance leaves the delivery queues it held locked to it. Nothing releases them: a queue held longer than
 * PARTNER_CALLBACK_STALE_LOCK (as the living instance has it) is simply claimable again, and that instance's worker
 * takes it over; a queue held for less is its holder's.
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

// No worker in the app until the test starts one, once the queues are as a crash left them.
layer(TestApp().pipe(Layer.provideMerge(FakeUpstream.layer(books.script))), live)(
  "the callback worker after a crash elsewhere",
  (it) => {
    it.effect("takes over a player's delivery queue held for longer than its stale time, and leaves one held for less", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [crashed, alive] = [yield* givenWalletPlayer(books, 10), yield* givenWalletPlayer(books, 10)]
        // Free rounds: the partner is asked nothing, so only a worker delivers their wins.
        yield* winBet(crashed.userCode, "stale-1", { bet: 0, win: 1 })
        yield* winBet(alive.userCode, "stale-2", { bet: 0, win: 1 })
        yield* sql`UPDATE partner_callback_queues SET locked_by = 'crashed', locked_at = now() - interval '11 minutes'
                 WHERE player_id = ${crashed.playerId}`
        yield* sql`UPDATE partner_callback_queues SET locked_by = 'alive', locked_at = now() - interval '9 minutes'
                 WHERE player_id = ${alive.playerId}`

        const services = yield* Effect.context<never>()
        yield* Layer.build(CallbackWorker.pipe(Layer.provide(Layer.succeedContext(services))))
        const win = transactionEventId("win", "stale-1")
        yield* eventually(Effect.sync(() => books.applied.includes(win)), (done) => done, "the crashed holder's win")
        yield* eventually(
          sql<
            { n: number }
          >`SELECT count(*)::int AS n FROM partner_callback_queues WHERE player_id = ${crashed.playerId}`,
          ([row]) => row.n === 0,
          "its queue emptied and forgotten"
        )
        yield* Effect.sleep("500 millis")
        assert.isFalse(books.applied.includes(transactionEventId("win", "stale-2")), "the living holder's is its own")
        const [held] = yield* sql<{ locked_by: string }>`
        SELECT locked_by FROM partner_callback_queues WHERE player_id = ${alive.playerId}`
        assert.strictEqual(held.locked_by, "alive")
      }).pipe(Effect.scoped))
  }
)
