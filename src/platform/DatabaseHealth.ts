import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The database answers a trivial query within 2 seconds: what /ready and the console's status check. */
export const ping = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
  Effect.timeout("2 seconds"),
  Effect.asVoid
)
