/**
 * PartnerUserRepo's two forms answer alike: the same spec (PartnerUserRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { PartnerUserRepo } from "../../src/identity/PartnerUserRepo.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { partnerUserRepoSpec } from "./PartnerUserRepoSpec.ts"

layer(PartnerUserRepo.layerSql.pipe(Layer.provideMerge(PartnerRepo.layerSql), Layer.provide(TestDatabase)))(
  "PartnerUserRepo over PostgreSQL",
  partnerUserRepoSpec
)

layer(PartnerUserRepo.layerMemory.pipe(Layer.provideMerge(PartnerRepo.layerMemory)))(
  "PartnerUserRepo over memory",
  partnerUserRepoSpec
)
