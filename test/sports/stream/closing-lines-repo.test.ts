/**
 * ClosingLinesRepo's two forms keep closing lines and their asks alike: the same spec (ClosingLinesRepoSpec.ts) over
 * PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { ClosingLinesRepo } from "../../../src/sports/stream/ClosingLinesRepo.ts"
import { live } from "../../support/live.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { closingLinesRepoSpec } from "./ClosingLinesRepoSpec.ts"

layer(ClosingLinesRepo.layerSql.pipe(Layer.provide(TestDatabase)), live)(
  "ClosingLinesRepo over PostgreSQL",
  (it) => closingLinesRepoSpec(it)
)

layer(ClosingLinesRepo.layerMemory, live)("ClosingLinesRepo over memory", (it) => closingLinesRepoSpec(it))
