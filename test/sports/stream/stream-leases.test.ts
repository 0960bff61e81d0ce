/**
 * StreamLeases' two forms answer alike: the same spec (StreamLeasesSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { PartnerRepo } from "../../../src/partners/PartnerRepo.ts"
import { StreamLeases } from "../../../src/sports/stream/StreamLeases.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { streamLeasesSpec } from "./StreamLeasesSpec.ts"

layer(Layer.mergeAll(StreamLeases.layerSql, PartnerRepo.layerSql).pipe(Layer.provideMerge(TestDatabase)))(
  "StreamLeases over PostgreSQL",
  (it) =>
    streamLeasesSpec(
      it,
      (by) =>
        Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
          sql`UPDATE sports_stream_connections SET expires_at = expires_at - make_interval(secs => ${
            Duration.toSeconds(by)
          })`).pipe(Effect.asVoid, Effect.orDie)
    )
)

layer(Layer.mergeAll(StreamLeases.layerMemory, PartnerRepo.layerMemory))(
  "StreamLeases over memory",
  (it) => streamLeasesSpec(it, TestClock.adjust)
)
