/**
 * SandboxRepo's two forms answer alike: the same spec (SandboxRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { SandboxRepo } from "../../src/integrations/sandbox/SandboxRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { sandboxRepoSpec } from "./SandboxRepoSpec.ts"

layer(Layer.mergeAll(SandboxRepo.layer, PartnerRepo.layerSql).pipe(Layer.provideMerge(TestDatabase)))(
  "SandboxRepo over PostgreSQL",
  (it) =>
    sandboxRepoSpec(
      it,
      (by) =>
        Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
          sql`UPDATE sandbox_casino_sessions SET created_at = created_at - make_interval(secs => ${
            Duration.toSeconds(by)
          })`).pipe(Effect.asVoid, Effect.orDie)
    )
)

layer(Layer.mergeAll(SandboxRepo.layerMemory, PartnerRepo.layerMemory))(
  "SandboxRepo over memory",
  (it) => sandboxRepoSpec(it, TestClock.adjust)
)
