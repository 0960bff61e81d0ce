/**
 * SportsChangeLog's two forms answer alike: the same spec (SportsChangeLogSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { SportsChangeLog } from "../../../src/sports/stream/SportsChangeLog.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { sportsChangeLogSpec } from "./SportsChangeLogSpec.ts"

layer(SportsChangeLog.layerSql.pipe(Layer.provideMerge(TestDatabase)))(
  "SportsChangeLog over PostgreSQL",
  (it) =>
    sportsChangeLogSpec(
      it,
      (by) =>
        Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
          sql`UPDATE sports_changes SET recorded_at = recorded_at - make_interval(secs => ${Duration.toSeconds(by)})`)
          .pipe(Effect.asVoid, Effect.orDie)
    )
)

layer(SportsChangeLog.layerMemory)("SportsChangeLog over memory", (it) => sportsChangeLogSpec(it, TestClock.adjust))
