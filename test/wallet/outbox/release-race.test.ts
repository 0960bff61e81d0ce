/**
 * A notification written between a run's claim (which read its batch) and the release that writes the run's marks
 * is delivered by the next run: the release, one statement, keeps the queue when it sees the notification
 * (committed before it began) and when it waits for its writer (committed while it ran, after its snapshot). Checked
 * with no worker: the test plays the holder through the outbox's own run (CallbackOutbox.drain) or the repository,
 * and holds a wallet statement's transaction open at the moment it means.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { CallbackOutbox } from "../../../src/wallet/outbox/CallbackOutbox.ts"
import { OutboxRepo, queuesScheduling } from "../../../src/wallet/outbox/OutboxRepo.ts"
import { PartnerBooks } from "../../support/FakePartner.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { live } from "../../support/live.ts"
import { awaitLockWait } from "./OutboxRepoForms.ts"
import { TestApp } from "../../support/TestApp.ts"
import { givenWalletPlayer, winBet } from "../../support/WalletApp.ts"

const books = new PartnerBooks()
const running = Effect.succeed(false)

/** The player's queue if a holder could claim it now (other players' queues claimed are handed back). */
const claimOf = (playerId: number) =>
  Effect.gen(function*() {
    const repo = yield* OutboxRepo
    const claimed = yield* repo.claim(`holder-${playerId}`, 100, Duration.minutes(1))
    for (const other of claimed) if (other.playerId !== playerId) yield* repo.release(other, { _tag: "Due" })
    return claimed.find((queue) => queue.playerId === playerId)
  })

/** A second notification of the player's, as the win's, written with its queue, in `sql`'s transaction. */
const writeAnother = (sql: SqlClient.SqlClient, winEventId: string, eventId: string) =>
  Effect.andThen(
    sql`
      INSERT INTO partner_callbacks (event_id, partner_id, environment, player_id, kind, txn_id, body, status)
      SELECT ${eventId}, partner_id, environment, player_id, kind, ${eventId}, body, 'pending'
      FROM partner_callbacks WHERE event_id = ${winEventId}
      RETURNING player_id
    `,
    (rows) => queuesScheduling(sql, sql`VALUES (${rows[0].player_id}::bigint)`, "preserve")
  )

const statusOf = (eventId: string) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) => sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${eventId}`
  ).pipe(
    Effect.map(([row]) => row?.status),
    Effect.orDie
  )

layer(TestApp().pipe(Layer.provideMerge(FakeUpstream.layer(books.script))), live)("a run's release", (it) => {
  it.effect("a notification committed after the claim read its batch is delivered by the next run", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const outbox = yield* CallbackOutbox
      const player = yield* givenWalletPlayer(books, 10)
      yield* winBet(player.userCode, "release-1", { bet: 0, win: 1 })
      const held = (yield* claimOf(player.playerId))!
      assert.strictEqual(held.batch.length, 1)
      const win = held.batch[0].eventId

      yield* writeAnother(sql, win, "evt_release_committed").pipe(Effect.orDie)
      assert.deepStrictEqual(yield* outbox.drain(held, running), { _tag: "Emptied" }, "all its batch delivered")
      assert.strictEqual(yield* statusOf(win), "delivered")

      const next = (yield* claimOf(player.playerId))!
      assert.deepStrictEqual(next.batch.map((head) => head.eventId), ["evt_release_committed"], "the queue kept")
      yield* outbox.drain(next, running)
      assert.strictEqual(yield* statusOf("evt_release_committed"), "delivered")
      assert.strictEqual(books.receivedFor("evt_release_committed").length, 1)
      assert.isUndefined(yield* claimOf(player.playerId), "then forgotten")
    }))

  it.effect("a notification committed while the release waits for its writer is delivered by the next run", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* OutboxRepo
      const outbox = yield* CallbackOutbox
      const player = yield* givenWalletPlayer(books, 10)
      yield* winBet(player.userCode, "release-2", { bet: 0, win: 1 })
      const held = (yield* claimOf(player.playerId))!
      const [head] = held.batch

      // A wallet statement writes a notification and its player's queue, and does not commit yet.
      const written = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      const writer = yield* sql.withTransaction(Effect.gen(function*() {
        yield* writeAnother(sql, head.eventId, "evt_release_waited")
        yield* Deferred.succeed(written, undefined)
        yield* Deferred.await(commit)
      })).pipe(Effect.orDie, Effect.forkChild)
      yield* Deferred.await(written)

      // The run delivered its batch and releases the queue emptied, its mark with it: the release waits for the writer.
      const releasing = yield* Effect.forkChild(repo.release(held, { _tag: "Emptied" }, { delivered: [head.id] }))
      yield* awaitLockWait("the release waiting for the writer's row")
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(writer)
      yield* Fiber.join(releasing)
      assert.strictEqual(yield* statusOf(head.eventId), "delivered", "the run's mark written with the release")

      const next = (yield* claimOf(player.playerId))!
      assert.deepStrictEqual(next.batch.map((each) => each.eventId), ["evt_release_waited"], "the queue kept")
      yield* outbox.drain(next, running)
      assert.strictEqual(books.receivedFor("evt_release_waited").length, 1)
      assert.isUndefined(yield* claimOf(player.playerId), "then forgotten")
    }))
})
