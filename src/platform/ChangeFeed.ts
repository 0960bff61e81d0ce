import { PgClient } from "@effect/sql-pg"
import { Effect, Queue, Schedule } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Changes announced through PostgreSQL NOTIFY, so every running instance
 * (and the admin CLI's changes) reach every cache at once. Caches keep a
 * time-to-live as their bound for the moments a listener is reconnecting.
 */

/** Announces a change on `channel`; inside a transaction it is delivered at commit. */
export const announce = (channel: string, payload = "") =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql`SELECT pg_notify(${channel}, ${payload})`).pipe(
    Effect.asVoid,
    Effect.orDie
  )

/** Runs `onChange` after each burst of notifications on `channel`, for as long as the scope lives. */
export const onChange = Effect.fn("ChangeFeed.onChange")(function*(channel: string, onChange: Effect.Effect<void>) {
  const pg = yield* PgClient.PgClient
  yield* Effect.gen(function*() {
    const changes = yield* pg.listen(channel)
    yield* Effect.forever(Effect.andThen(Queue.takeAll(changes), onChange))
  }).pipe(
    Effect.scoped,
    Effect.tapCause((cause) =>
      Effect.logWarning("Change listener stopped; retrying").pipe(
        Effect.annotateLogs({ channel }),
        Effect.andThen(Effect.logDebug(cause))
      )
    ),
    Effect.retry(Schedule.spaced("5 seconds")),
    Effect.forkScoped
  )
})
