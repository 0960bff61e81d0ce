/**
 * UnreadableCallRepo's two forms answer alike: the same spec (UnreadableCallRepoSpec.ts) over PostgreSQL and over
 * memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { UnreadableCallRepo } from "../../src/wallet/stuck/UnreadableCallRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { unreadableCallRepoSpec } from "./UnreadableCallRepoSpec.ts"

layer(
  Layer.mergeAll(UnreadableCallRepo.layerSql, PartnerPlayers.layerSql, PartnerRepo.layerSql).pipe(
    Layer.provide(TestDatabase)
  )
)("UnreadableCallRepo over PostgreSQL", unreadableCallRepoSpec)

layer(Layer.mergeAll(UnreadableCallRepo.layerMemory, PartnerPlayers.layerMemory, PartnerRepo.layerMemory))(
  "UnreadableCallRepo over memory",
  unreadableCallRepoSpec
)
