/**
 * AdminAccountRepo's two forms answer alike: the same spec (AdminAccountRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { AdminAccountRepo } from "../../src/identity/AdminAccountRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { adminAccountRepoSpec } from "./AdminAccountRepoSpec.ts"

layer(AdminAccountRepo.layerSql.pipe(Layer.provide(TestDatabase)))(
  "AdminAccountRepo over PostgreSQL",
  adminAccountRepoSpec
)

layer(AdminAccountRepo.layerMemory)("AdminAccountRepo over memory", adminAccountRepoSpec)
