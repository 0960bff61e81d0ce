import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import {
  isEventKey,
  maxSamples,
  replaces,
  samplesAnswered,
  sampleToKeep,
  type StatSample
} from "../domain/StatSamples.ts"
import { rowsOf } from "../platform/SqlRows.ts"

export type { StatSample } from "../domain/StatSamples.ts"

// Rows are decoded once, into the domain's own shape.
const SampleRow = Schema.Struct({
  minute: Schema.Int,
  stats: Schema.Record(Schema.String, Schema.Int),
  sampledAt: Schema.Date
}).pipe(Schema.encodeKeys({ sampledAt: "sampled_at" }))
const sampleRows = rowsOf(SampleRow)
const countRows = rowsOf(Schema.Struct({ pruned: Schema.Int }))

/** The table in PostgreSQL. */
const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const record = (provider: string, eventId: string, sample: StatSample) => {
    const kept = sampleToKeep(provider, eventId, sample)
    if (kept === null) return Effect.void
    // A row locked by another instance's upsert is read again once it commits: the later sampled_at wins either way.
    return sql`
      INSERT INTO sports_stat_samples (provider, event_id, minute, stats, sampled_at)
      VALUES (${provider}, ${eventId}, ${kept.minute}, ${JSON.stringify(kept.stats)}::jsonb, ${kept.sampledAt})
      ON CONFLICT (provider, event_id, minute) DO UPDATE SET stats = excluded.stats, sampled_at = excluded.sampled_at
      WHERE sports_stat_samples.sampled_at < excluded.sampled_at
    `.pipe(Effect.asVoid, Effect.orDie)
  }

  const samplesOf = (provider: string, eventId: string) =>
    isEventKey(provider, eventId)
      ? sampleRows(sql`
          SELECT minute, stats, sampled_at FROM (
            SELECT minute, stats, sampled_at FROM sports_stat_samples
            WHERE provider = ${provider} AND event_id = ${eventId}
            ORDER BY minute DESC LIMIT ${maxSamples}
          ) latest
          ORDER BY minute
        `)
      : Effect.succeed([])

  const prune = (olderThan: Date) =>
    Effect.map(
      countRows(sql`
        WITH deleted AS (DELETE FROM sports_stat_samples WHERE sampled_at < ${olderThan} RETURNING 1)
        SELECT count(*)::int AS pruned FROM deleted
      `),
      (rows) => rows[0].pruned
    )

  return StatSamplesRepo.of({
    record: Effect.fn("StatSamplesRepo.record")(record),
    samplesOf: Effect.fn("StatSamplesRepo.samplesOf")(samplesOf),
    prune: Effect.fn("StatSamplesRepo.prune")(prune)
  })
})

/** The same rules over memory: one sample per event and minute, replaced only by a later one. */
const makeMemory = Effect.sync(() => {
  const events = new Map<string, Map<number, StatSample>>()
  const keyOf = (provider: string, eventId: string) => JSON.stringify([provider, eventId])
  // Dates are copied in and out, as the SQL's are fresh each read.
  const copy = (sample: StatSample): StatSample => ({ ...sample, sampledAt: new Date(sample.sampledAt.getTime()) })

  return StatSamplesRepo.of({
    record: (provider, eventId, sample) =>
      Effect.sync(() => {
        const kept = sampleToKeep(provider, eventId, sample)
        if (kept === null) return
        const key = keyOf(provider, eventId)
        const minutes = events.get(key) ?? new Map<number, StatSample>()
        const before = minutes.get(kept.minute)
        if (before === undefined || replaces(before, kept)) minutes.set(kept.minute, kept)
        events.set(key, minutes)
      }),
    samplesOf: (provider, eventId) =>
      Effect.sync(() =>
        isEventKey(provider, eventId)
          ? samplesAnswered([...(events.get(keyOf(provider, eventId))?.values() ?? [])]).map(copy)
          : []
      ),
    prune: (olderThan) =>
      Effect.sync(() => {
        let pruned = 0
        for (const [key, minutes] of events) {
          for (const [minute, sample] of minutes) {
            if (sample.sampledAt.getTime() < olderThan.getTime()) {
              minutes.delete(minute)
              pruned++
            }
          }
          if (minutes.size === 0) events.delete(key)
        }
        return pruned
      })
  })
})

/**
 * The statistics samples of events (sports_stat_samples): the only code that reads or writes them. A provider that
 * answers its statistics as running totals (API-Football) is sampled each time a live fixture is read; the rules of
 * what is kept are StatSamples' (src/domain). Database failures are defects here: callers cannot act on them.
 *
 * Layers: `StatSamplesRepo.layer` (PostgreSQL) and `layerMemory` (the same rules over memory, for tests without a
 * database).
 */
export class StatSamplesRepo extends Context.Service<StatSamplesRepo, {
  /**
   * Keeps a sample of an event's statistics (the latest of a minute replaces that minute's earlier one; an older
   * one arriving late changes nothing). A sample out of bounds (its minute, its ids) is left out, not refused; so
   * are the statistics that are (see statsToKeep).
   */
  record(provider: string, eventId: string, sample: StatSample): Effect.Effect<void>
  /** The event's samples, by minute ascending (at most 200: the latest minutes). */
  samplesOf(provider: string, eventId: string): Effect.Effect<ReadonlyArray<StatSample>>
  /** Removes the samples taken before `olderThan`, any event's; how many. */
  prune(olderThan: Date): Effect.Effect<number>
}>()("partner-api/sports/StatSamplesRepo") {
  /** The table in PostgreSQL. */
  static readonly layer: Layer.Layer<StatSamplesRepo, never, SqlClient.SqlClient> = Layer.effect(
    StatSamplesRepo,
    Effect.suspend(() => makeSql)
  )

  /** The same rules over memory, for tests without PostgreSQL. */
  static readonly layerMemory: Layer.Layer<StatSamplesRepo> = Layer.effect(
    StatSamplesRepo,
    Effect.suspend(() => makeMemory)
  )
}
