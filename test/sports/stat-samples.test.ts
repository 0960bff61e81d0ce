/**
 * StatSamplesRepo's two forms keep samples alike: the same spec over PostgreSQL (layer) and over memory
 * (layerMemory). Each test keeps the samples of an event of its own; the samples are of 2030 but for prune's.
 */
import { assert, layer, type Vitest } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type StatSample, StatSamplesRepo } from "../../src/sports/StatSamplesRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

const provider = "api-football"
const at = (time: string) => new Date(`2030-01-01T${time}Z`)
const sample = (minute: number, stats: Record<string, number>, sampledAt: Date): StatSample => ({
  minute,
  stats,
  sampledAt
})
const record = (eventId: string, each: StatSample) =>
  Effect.flatMap(Effect.service(StatSamplesRepo), (repo) => repo.record(provider, eventId, each))
const samplesOf = (eventId: string, of = provider) =>
  Effect.flatMap(Effect.service(StatSamplesRepo), (repo) => repo.samplesOf(of, eventId))

const statSamplesSpec = (it: Vitest.MethodsNonLive<StatSamplesRepo>) => {
  it.effect("an event's samples are answered by minute ascending, each as recorded", () =>
    Effect.gen(function*() {
      yield* record("1001", sample(30, { possession: 58, shots_on_target: 5 }, at("10:30:00")))
      yield* record("1001", sample(2, { possession: 50, shots_on_target: 0 }, at("10:02:00")))
      yield* record("1001", sample(15, { possession: 55, shots_on_target: 2 }, at("10:15:00")))
      yield* record("1002", sample(15, { possession: 45 }, at("10:15:00")))
      const samples = yield* samplesOf("1001")
      assert.deepStrictEqual(samples.map((each) => each.minute), [2, 15, 30])
      assert.deepStrictEqual(samples[2], sample(30, { possession: 58, shots_on_target: 5 }, at("10:30:00")))
      assert.deepStrictEqual(yield* samplesOf("1002", "betsapi"), [])
      assert.deepStrictEqual(yield* samplesOf("1003"), [])
    }))

  it.effect("the later sample of a minute replaces it; an older one arriving late does not", () =>
    Effect.gen(function*() {
      yield* record("2001", sample(44, { corners: 3 }, at("11:44:10")))
      yield* record("2001", sample(44, { corners: 4 }, at("11:44:50")))
      assert.deepStrictEqual(yield* samplesOf("2001"), [sample(44, { corners: 4 }, at("11:44:50"))])
      yield* record("2001", sample(44, { corners: 2 }, at("11:44:05")))
      assert.deepStrictEqual(yield* samplesOf("2001"), [sample(44, { corners: 4 }, at("11:44:50"))])
    }))

  it.effect("of 20 samples of one minute recorded at once, the newest is kept", () =>
    Effect.gen(function*() {
      const times = Array.from({ length: 20 }, (_, i) => new Date(at("12:10:00").getTime() + ((i * 7) % 20) * 1000))
      yield* Effect.forEach(
        times,
        (time) => record("3001", sample(10, { shots: time.getUTCSeconds() }, time)),
        { concurrency: "unbounded", discard: true }
      )
      assert.deepStrictEqual(yield* samplesOf("3001"), [sample(10, { shots: 19 }, at("12:10:19"))])
    }))

  it.effect("minutes outside 0 to 200, and ids over their bounds, are left out, not refused", () =>
    Effect.gen(function*() {
      for (const minute of [-1, 201, 12.5, Number.NaN]) {
        yield* record("4001", sample(minute, { shots: 1 }, at("13:00:00")))
      }
      yield* record("4001", sample(0, { shots: 0 }, at("13:00:00")))
      yield* record("4001", sample(200, { shots: 9 }, at("16:20:00")))
      assert.deepStrictEqual((yield* samplesOf("4001")).map((each) => each.minute), [0, 200])
      yield* record("x".repeat(65), sample(1, { shots: 1 }, at("13:01:00")))
      yield* Effect.flatMap(
        Effect.service(StatSamplesRepo),
        (repo) => repo.record("p".repeat(33), "4002", sample(1, { shots: 1 }, at("13:01:00")))
      )
      assert.deepStrictEqual(yield* samplesOf("x".repeat(65)), [])
      yield* record("x".repeat(64), sample(1, { shots: 1 }, at("13:01:00")))
      assert.strictEqual((yield* samplesOf("x".repeat(64))).length, 1)
    }))

  it.effect("a sample keeps 32 statistics at most, and only integers from 0 under well-formed names", () =>
    Effect.gen(function*() {
      const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`stat_${String(i).padStart(2, "0")}`, i]))
      yield* record("5001", sample(1, many, at("14:01:00")))
      const [kept] = yield* samplesOf("5001")
      assert.deepStrictEqual(Object.keys(kept.stats).sort(), Object.keys(many).sort().slice(0, 32))
      yield* record(
        "5001",
        sample(2, {
          possession: 58,
          fouls: 0,
          negative: -1,
          fraction: 1.5,
          huge: Number.MAX_SAFE_INTEGER + 1,
          infinite: Number.POSITIVE_INFINITY,
          text: "7" as unknown as number,
          ["n".repeat(65)]: 1,
          ["n".repeat(64)]: 2,
          "": 3
        }, at("14:02:00"))
      )
      const [, second] = yield* samplesOf("5001")
      assert.deepStrictEqual(second.stats, { possession: 58, fouls: 0, ["n".repeat(64)]: 2 })
    }))

  it.effect("an event with a sample at every minute answers the latest 200", () =>
    Effect.gen(function*() {
      yield* Effect.forEach(
        Array.from({ length: 201 }, (_, minute) => minute),
        (minute) =>
          record("6001", sample(minute, { shots: minute }, new Date(at("15:00:00").getTime() + minute * 60_000))),
        { concurrency: 10, discard: true }
      )
      const samples = yield* samplesOf("6001")
      assert.strictEqual(samples.length, 200)
      assert.deepStrictEqual([samples[0].minute, samples[199].minute], [1, 200])
    }))

  it.effect("prune removes the samples taken before a time, any event's, and says how many", () =>
    Effect.gen(function*() {
      const repo = yield* StatSamplesRepo
      const old = new Date("2020-01-01T10:00:00Z")
      yield* repo.record(provider, "7001", sample(1, { shots: 1 }, old))
      yield* repo.record(provider, "7001", sample(2, { shots: 2 }, new Date("2020-01-31T10:00:00Z")))
      yield* repo.record("betsapi", "7002", sample(1, { shots: 1 }, old))
      yield* repo.record(provider, "7003", sample(1, { shots: 1 }, at("10:00:00")))
      assert.strictEqual(yield* repo.prune(new Date("2020-01-31T10:00:00Z")), 2)
      assert.deepStrictEqual((yield* repo.samplesOf(provider, "7001")).map((each) => each.minute), [2])
      assert.deepStrictEqual(yield* repo.samplesOf("betsapi", "7002"), [])
      assert.strictEqual((yield* repo.samplesOf(provider, "7003")).length, 1)
      assert.strictEqual(yield* repo.prune(new Date("2020-01-31T10:00:00Z")), 0)
    }))
}

layer(StatSamplesRepo.layer.pipe(Layer.provide(TestDatabase)))("StatSamplesRepo over PostgreSQL", statSamplesSpec)

layer(StatSamplesRepo.layerMemory)("StatSamplesRepo over memory", statSamplesSpec)
