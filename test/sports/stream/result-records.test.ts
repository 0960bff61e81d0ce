/**
 * ResultRecords' two forms answer alike: the same spec (ResultRecordsSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { ResultRecords } from "../../../src/sports/stream/ResultRecords.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { resultRecordsSpec } from "./ResultRecordsSpec.ts"

layer(ResultRecords.layerSql.pipe(Layer.provide(TestDatabase)))(
  "ResultRecords over PostgreSQL",
  (it) => resultRecordsSpec(it, Effect.sync(() => Date.now()))
)

layer(ResultRecords.layerMemory)("ResultRecords over memory", (it) => resultRecordsSpec(it, Clock.currentTimeMillis))
