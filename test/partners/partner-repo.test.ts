/**
 * PartnerRepo's two forms answer alike: the same spec (PartnerRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { partnerRepoSpec } from "./PartnerRepoSpec.ts"

layer(PartnerRepo.layerSql.pipe(Layer.provideMerge(TestDatabase)))(
  "PartnerRepo over PostgreSQL",
  (it) =>
    partnerRepoSpec(
      it,
      (partnerId, by) =>
        Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
          sql`UPDATE partner_tokens SET expires_at = expires_at - make_interval(secs => ${Duration.toSeconds(by)})
            WHERE partner_id = ${partnerId} AND expires_at IS NOT NULL`).pipe(Effect.asVoid, Effect.orDie)
    )
)

layer(PartnerRepo.layerMemory)(
  "PartnerRepo over memory",
  (it) => partnerRepoSpec(it, (_partnerId, by) => TestClock.adjust(by))
)
