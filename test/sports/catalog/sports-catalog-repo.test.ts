/**
 * SportsCatalogRepo's two forms publish and read alike: the same spec (SportsCatalogRepoSpec.ts) over PostgreSQL and
 * over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { CatalogChanges } from "../../../src/sports/catalog/CatalogChanges.ts"
import { SportsCatalogRepo } from "../../../src/sports/catalog/SportsCatalogRepo.ts"
import * as SportsCatalogRepoMemory from "../../../src/sports/catalog/SportsCatalogRepoMemory.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { sportsCatalogRepoSpec } from "./SportsCatalogRepoSpec.ts"

layer(SportsCatalogRepo.layerSql.pipe(Layer.provide(Layer.mergeAll(TestDatabase, CatalogChanges.none))))(
  "SportsCatalogRepo over PostgreSQL",
  sportsCatalogRepoSpec
)

layer(SportsCatalogRepoMemory.layerMemory)("SportsCatalogRepo over memory", sportsCatalogRepoSpec)
