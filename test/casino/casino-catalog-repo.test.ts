/**
 * CasinoCatalogRepo's two forms answer alike: the same spec (CasinoCatalogRepoSpec.ts) over PostgreSQL and over
 * memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { CasinoCatalogRepo } from "../../src/casino/CasinoCatalogRepo.ts"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { casinoCatalogRepoSpec } from "./CasinoCatalogRepoSpec.ts"
import * as CasinoCatalogRepoMemory from "../../src/casino/CasinoCatalogRepoMemory.ts"

layer(CasinoCatalogRepo.layerSql.pipe(Layer.provide([CasinoConfig.layer, TestDatabase])))(
  "CasinoCatalogRepo over PostgreSQL",
  casinoCatalogRepoSpec
)

layer(CasinoCatalogRepoMemory.layerMemory)("CasinoCatalogRepo over memory", casinoCatalogRepoSpec)
