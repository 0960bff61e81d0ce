/**
 * CertificationRepo's two forms answer alike: the same spec (CertificationRepoSpec.ts) over PostgreSQL and over
 * memory.
 */
import { layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { CallbacksConfig } from "../../src/wallet/CallbacksConfig.ts"
import { CertificationRepo } from "../../src/wallet/certification/CertificationRepo.ts"
import * as CertificationRepoMemory from "../../src/wallet/certification/CertificationRepoMemory.ts"
import { testCallbacksConfig } from "../support/TestApp.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { certificationRepoSpec } from "./CertificationRepoSpec.ts"

const config = Layer.succeed(CallbacksConfig, testCallbacksConfig())

layer(
  Layer.mergeAll(CertificationRepo.layerSql, PartnerRepo.layerSql).pipe(
    Layer.provide(config),
    Layer.provideMerge(TestDatabase)
  )
)(
  "CertificationRepo over PostgreSQL",
  (it) =>
    certificationRepoSpec(
      it,
      (id, by) =>
        Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
          sql`UPDATE wallet_certifications SET updated_at = updated_at - make_interval(secs => ${
            Duration.toSeconds(by)
          }),
              started_at = started_at - make_interval(secs => ${Duration.toSeconds(by)}) WHERE public_id = ${id}`).pipe(
            Effect.asVoid,
            Effect.orDie
          )
    )
)

layer(Layer.mergeAll(CertificationRepoMemory.layerMemory, PartnerRepo.layerMemory).pipe(Layer.provide(config)))(
  "CertificationRepo over memory",
  (it) => certificationRepoSpec(it, (_id, by) => TestClock.adjust(by))
)
