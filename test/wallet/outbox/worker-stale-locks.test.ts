import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { CallbackWorker } from "../../../src/wallet/outbox/CallbackWorker.ts"
import { deliveryTask, playerQueuePrefix } from "../../../src/wallet/outbox/OutboxRepo.ts"
import { eventually, live } from "../../support/live.ts"
import { TestServices } from "../../support/TestApp.ts"

layer(TestServices(), live)("the callback worker after a crash elsewhere", (it) => {
  it.effect("releases a player's delivery queue a dead instance left locked: its job and its queue", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const queue = `${playerQueuePrefix}987654`
      // A delivery queue as a crashed instance leaves it: its job and queue locked by a worker that no longer runs.
      // The job waits an hour, so the living worker does not simply run it.
      yield* sql`SELECT id FROM graphile_worker.add_job(${deliveryTask}, json_build_object('player_id', 987654),
                   queue_name => ${queue}, job_key => ${queue}, run_at => now() + interval '1 hour')`
      yield* sql`UPDATE graphile_worker._private_jobs SET locked_by = 'crashed', locked_at = now() - interval '1 hour'
                 WHERE key = ${queue}`
      yield* sql`UPDATE graphile_worker._private_job_queues SET locked_by = 'crashed', locked_at = now() - interval '1 hour'
                 WHERE queue_name = ${queue}`
      const locks = sql<{ job: string | null; queue: string | null }>`
        SELECT j.locked_by AS job, q.locked_by AS queue
        FROM graphile_worker.jobs j JOIN graphile_worker._private_job_queues q ON q.queue_name = j.queue_name
        WHERE j.key = ${queue}`
      assert.deepStrictEqual(yield* locks, [{ job: "crashed", queue: "crashed" }])

      const services = yield* Effect.context<never>()
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(CallbackWorker.pipe(Layer.provide(Layer.succeedContext(services))))
        yield* eventually(
          locks,
          (rows) => rows.length === 1 && rows[0].job === null && rows[0].queue === null,
          "the delivery queue released"
        )
      }))
    }))
})
