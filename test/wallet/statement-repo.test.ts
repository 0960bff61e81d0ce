/**
 * StatementRepo's two forms answer alike: the same spec (StatementRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { StatementRepo } from "../../src/wallet/statements/StatementRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { statementRepoSpec } from "./StatementRepoSpec.ts"

layer(Layer.mergeAll(StatementRepo.layerSql, PartnerRepo.layerSql).pipe(Layer.provide(TestDatabase)))(
  "StatementRepo over PostgreSQL",
  statementRepoSpec
)

layer(Layer.mergeAll(StatementRepo.layerMemory, PartnerRepo.layerMemory))(
  "StatementRepo over memory",
  statementRepoSpec
)
