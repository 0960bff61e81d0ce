/**
 * StreamRecords' two forms answer alike: the same spec (StreamRecordsSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { StreamRecords } from "../../../src/sports/stream/StreamRecords.ts"
import * as StreamRecordsMemory from "../../../src/sports/stream/StreamRecordsMemory.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { streamRecordsSpec } from "./StreamRecordsSpec.ts"

layer(StreamRecords.layerSql.pipe(Layer.provide(TestDatabase)))(
  "StreamRecords over PostgreSQL",
  (it) => streamRecordsSpec(it, Effect.sync(() => Date.now()))
)

layer(StreamRecordsMemory.layerMemory)(
  "StreamRecords over memory",
  (it) => streamRecordsSpec(it, Clock.currentTimeMillis)
)
