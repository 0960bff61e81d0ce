/**
 * StuckAlertRepo's two forms answer alike: the same spec (StuckAlertRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { StuckAlertRepo } from "../../src/wallet/stuck/StuckAlertRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { stuckAlertRepoSpec } from "./StuckAlertRepoSpec.ts"

layer(Layer.mergeAll(StuckAlertRepo.layerSql, PartnerRepo.layerSql).pipe(Layer.provide(TestDatabase)))(
  "StuckAlertRepo over PostgreSQL",
  stuckAlertRepoSpec
)

layer(Layer.mergeAll(StuckAlertRepo.layerMemory, PartnerRepo.layerMemory))(
  "StuckAlertRepo over memory",
  stuckAlertRepoSpec
)
