/**
 * A notification written at the moment a worker takes its player's delivery job still gets a job. The job is keyed by
 * the player (one job per delivery queue): a decision's statement asks graphile-worker's add_job for it, which updates
 * the job when no worker holds it and, when one does, adds a new one (the held run may have read the delivery queue
 * before this notification was committed). A worker that takes the job between add_job's two steps (after the update
 * found it free, before the insert met it) left add_job doing neither: the held run ended without the notification,
 * and no job was left to deliver it until the player's next wallet call. That is what two decisions of one player at
 * once meet (a credit and a rollback of one debit): the second waits for the first's commit, whose job a worker takes
 * at that same moment.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Credit, Debit, Rollback } from "../../../src/domain/WalletEvents.ts"
import { playerQueuePrefix } from "../../../src/wallet/outbox/OutboxRepo.ts"
import { Wallet } from "../../../src/wallet/Wallet.ts"
import { PartnerBooks } from "../../support/FakePartner.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { eventually, live } from "../../support/live.ts"
import { TestApp } from "../../support/TestApp.ts"
import { givenWalletPlayer } from "../../support/WalletApp.ts"

const books = new PartnerBooks()

const fields = (userCode: number) => ({
  aggregator: "sandbox" as const,
  userCode,
  roundId: "sr-round",
  gameCode: "g",
  providerCode: "p"
})
const handle = (event: Debit | Credit | Rollback) =>
  Effect.flatMap(Effect.service(Wallet), (w) => w.handle(event, "live"))

// No notification worker here: the test plays the worker's part on the job table, at the moment it means.
layer(TestApp().pipe(Layer.provideMerge(FakeUpstream.layer(books.script))), live)("a player's delivery job", (it) => {
  it.effect("a notification written while a worker takes its player's job gets a job of its own", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const player = yield* givenWalletPlayer(books, 100)
      const key = `${playerQueuePrefix}${player.playerId}`
      yield* handle({ _tag: "Debit", ...fields(player.userCode), txnId: "sr-debit", bet: 1_000n })
      // The credit's win is owed: its player's job waits for a worker.
      yield* handle({
        _tag: "Credit",
        ...fields(player.userCode),
        txnId: "sr-credit",
        win: 2_500n,
        debitTxnId: "sr-debit"
      })
      const [held] = yield* sql<{ id: string }>`SELECT id::text FROM graphile_worker.jobs WHERE key = ${key}`
      assert.isDefined(held, "the credit's notification has a job")

      // A worker takes that job, in a transaction that commits only when the test says.
      const taken = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const worker = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`
          UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'another-worker' WHERE id = ${held.id}
        `
        yield* Deferred.succeed(taken, undefined)
        yield* Deferred.await(release)
      })).pipe(Effect.orDie, Effect.forkChild)
      yield* Deferred.await(taken)

      // The rollback's statement finds the job free, then waits on the worker's lock to write it (the worker's
      // transaction holds that one lock: whatever waits on a lock waits on it)...
      const rollingBack = yield* Effect.forkChild(
        handle({ _tag: "Rollback", ...fields(player.userCode), txnId: "sr-rollback", debitTxnId: "sr-debit" })
      )
      yield* eventually(
        sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'
        `.pipe(Effect.orDie),
        ([row]) => row.n > 0,
        "the rollback's statement waiting for the job"
      )
      // ...and the worker's lock is committed: the job is held.
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(worker)
      const undone = yield* Fiber.join(rollingBack)
      assert.strictEqual(undone._tag, "Accepted")

      // The held run had read the delivery queue before the rollback's notification was committed: it ends with its
      // win delivered, and its job is completed (deleted, as the worker completes a job).
      yield* sql`DELETE FROM graphile_worker._private_jobs WHERE id = ${held.id}`
      const [notification] = yield* sql<{ status: string }>`
        SELECT status FROM partner_callbacks WHERE player_id = ${player.playerId} AND kind = 'rollback'
      `
      assert.strictEqual(notification.status, "pending")
      const jobs = yield* sql<{ locked_at: Date | null }>`SELECT locked_at FROM graphile_worker.jobs WHERE key = ${key}`
      assert.deepStrictEqual(jobs, [{ locked_at: null }], "the rollback's notification has a job a worker can take")
    }))
})
