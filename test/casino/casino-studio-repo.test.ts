/**
 * CasinoStudioRepo's two forms answer alike: the same spec (CasinoStudioRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { CasinoStudioRepo } from "../../src/casino/CasinoStudioRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { casinoStudioRepoSpec } from "./CasinoStudioRepoSpec.ts"

layer(CasinoStudioRepo.layerSql.pipe(Layer.provide(TestDatabase)))(
  "CasinoStudioRepo over PostgreSQL",
  casinoStudioRepoSpec
)

layer(CasinoStudioRepo.layerMemory)("CasinoStudioRepo over memory", casinoStudioRepoSpec)
