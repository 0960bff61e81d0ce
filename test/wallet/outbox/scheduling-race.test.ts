/**
 * A notification written at the moment its player's holder finds the delivery queue emptied still has a queue. The
 * holder forgets an emptied queue (deletes its row) only after locking the row and looking again, in a statement of
 * its own: a wallet statement that wrote the row first is waited for and its notification seen; one that comes after
 * waits for the holder and writes the row anew. Checked with no worker: the test plays the holder, and holds a
 * wallet statement's transaction open at the moment it means.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { OutboxRepo, queuesScheduling } from "../../../src/wallet/outbox/OutboxRepo.ts"
import { PartnerBooks } from "../../support/FakePartner.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { live } from "../../support/live.ts"
import { awaitLockWait } from "./OutboxRepoForms.ts"
import { TestApp } from "../../support/TestApp.ts"
import { givenWalletPlayer, winBet } from "../../support/WalletApp.ts"

const books = new PartnerBooks()

layer(TestApp().pipe(Layer.provideMerge(FakeUpstream.layer(books.script))), live)("a player's delivery queue", (it) => {
  it.effect("written while its holder forgets it emptied, it stays, due, with the new notification", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* OutboxRepo
      const player = yield* givenWalletPlayer(books, 10)
      yield* winBet(player.userCode, "race-1", { bet: 0, win: 1 })
      const held = (yield* repo.claim("holder", 100, Duration.minutes(1))).find((q) => q.playerId === player.playerId)!
      for (const head of yield* repo.queueOf(player.playerId, 10)) yield* repo.markDelivered(head.id)

      // A wallet statement writes a notification and its player's queue, and does not commit yet.
      const written = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      const writer = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`
          INSERT INTO partner_callbacks (event_id, partner_id, environment, player_id, kind, txn_id, body, status)
          VALUES ('evt_race_2', ${player.partner.id}, 'live', ${player.playerId}, 'win', 'race-2', '{"amount":1}', 'pending')`
        yield* queuesScheduling(sql, sql`VALUES (${player.playerId}::bigint)`, "preserve")
        yield* Deferred.succeed(written, undefined)
        yield* Deferred.await(commit)
      })).pipe(Effect.orDie, Effect.forkChild)
      yield* Deferred.await(written)

      // The holder found nothing left to deliver (the notification is not committed) and forgets the queue: it waits.
      const forgetting = yield* Effect.forkChild(repo.release(held, { _tag: "Emptied" }))
      yield* awaitLockWait("the holder waiting for the writer's row")
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(writer)
      yield* Fiber.join(forgetting)

      const [queue] = yield* sql<{ locked_by: string | null; due: boolean }>`
        SELECT locked_by, next_attempt_at <= now() AS due FROM partner_callback_queues
        WHERE player_id = ${player.playerId}`
      assert.deepStrictEqual(queue, { locked_by: null, due: true }, "the new notification has a queue")
      const [head] = yield* repo.queueOf(player.playerId, 1)
      assert.strictEqual(head.eventId, "evt_race_2")
    }))
})
