/**
 * The job queue's connections may still be closing when the worker's release
 * returns; the database stopping right then (as the embedded PostgreSQL does
 * after the service, or a test database dropped WITH (FORCE)) cuts them. That
 * raised an unhandled 'error' (the queue had dropped its pool's handlers) and
 * took the process down; now it is a debug line.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { CallbackWorker, jobQueueApplicationName } from "../../../src/wallet/outbox/CallbackWorker.ts"
import { live } from "../../support/live.ts"
import { TestServices } from "../../support/TestApp.ts"

layer(TestServices(), live)("the callback worker", (it) => {
  it.effect("its connections cut by the server while they close raise nothing", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const services = yield* Effect.context<never>()
      const queueConnections = Effect.map(
        sql<{ count: number }>`
          SELECT count(*)::int AS count FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = ${jobQueueApplicationName}
        `,
        ([row]) => row.count
      )
      for (let run = 0; run < 3; run++) {
        yield* Effect.scoped(Effect.gen(function*() {
          yield* Layer.build(CallbackWorker.pipe(Layer.provide(Layer.succeedContext(services))))
          assert.isAbove(yield* queueConnections, 0, "the queue is connected")
        }))
        // The server goes away under whatever is still closing.
        yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                   WHERE datname = current_database() AND application_name = ${jobQueueApplicationName}`
        yield* Effect.sleep("200 millis") // an unhandled 'error' would surface here and fail the run
        assert.strictEqual(yield* queueConnections, 0)
      }
    }))
})
