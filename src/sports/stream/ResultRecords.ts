import { Clock, Context, Effect, Layer, Schema } from "effect"
import * as Arr from "effect/Array"
import { SqlClient } from "effect/sql"
import type { FinalScore } from "../../domain/Sports.ts"
import type { ResultRecord } from "../../domain/SportsLifecycle.ts"
import { rowsOf } from "../../platform/SqlRows.ts"

/** Rows go to PostgreSQL as JSON documents of this many. */
const chunkSize = 5_000

/** A record is kept this long after its last change (its final, or its last correction). */
export const resultRetentionDays = 30

const Winner = Schema.Literals(["home", "away", "draw"])

const ResultRow = Schema.Struct({
  event_id: Schema.String,
  home_score: Schema.Int,
  away_score: Schema.Int,
  winner: Winner,
  final_at: Schema.Date,
  corrected_at: Schema.NullOr(Schema.Date),
  previous_home_score: Schema.NullOr(Schema.Int),
  previous_away_score: Schema.NullOr(Schema.Int),
  previous_winner: Schema.NullOr(Winner),
  answered_at: Schema.Date
})

const resultRows = rowsOf(ResultRow)
const countRows = rowsOf(Schema.Struct({ pruned: Schema.Int }))

const recordOf = (row: typeof ResultRow.Type): ResultRecord => ({
  eventId: row.event_id,
  homeScore: row.home_score,
  awayScore: row.away_score,
  winner: row.winner,
  finalAt: row.final_at.getTime(),
  correctedAt: row.corrected_at?.getTime() ?? null,
  // The table's CHECK keeps the three previous columns null together.
  previous: row.previous_home_score === null || row.previous_away_score === null || row.previous_winner === null
    ? null
    : { homeScore: row.previous_home_score, awayScore: row.previous_away_score, winner: row.previous_winner },
  answeredAt: row.answered_at.getTime()
})

const iso = (millis: number) => new Date(millis).toISOString()

const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const held = (provider: string, eventIds: ReadonlyArray<string>) =>
    eventIds.length === 0 ? Effect.succeed(new Map<string, ResultRecord>()) : Effect.map(
      resultRows(sql`
        SELECT event_id, home_score, away_score, winner, final_at, corrected_at, previous_home_score,
               previous_away_score, previous_winner, answered_at
        FROM sports_results
        WHERE provider = ${provider} AND event_id IN (SELECT json_array_elements_text(${
        JSON.stringify(eventIds)
      }::json))
      `),
      (rows) => new Map(rows.map((row) => [row.event_id, recordOf(row)]))
    )

  const save = (provider: string, records: ReadonlyArray<ResultRecord>) =>
    Effect.forEach(Arr.chunksOf(records, chunkSize), (chunk) => {
      const rows = chunk.map((record) => ({
        event_id: record.eventId,
        home_score: record.homeScore,
        away_score: record.awayScore,
        winner: record.winner,
        final_at: iso(record.finalAt),
        corrected_at: record.correctedAt === null ? null : iso(record.correctedAt),
        previous_home_score: record.previous?.homeScore ?? null,
        previous_away_score: record.previous?.awayScore ?? null,
        previous_winner: record.previous?.winner ?? null,
        answered_at: iso(record.answeredAt)
      }))
      return sql`
        INSERT INTO sports_results (provider, event_id, home_score, away_score, winner, final_at, corrected_at,
                                    previous_home_score, previous_away_score, previous_winner, answered_at)
        SELECT ${provider}, r.event_id, r.home_score, r.away_score, r.winner, r.final_at, r.corrected_at,
               r.previous_home_score, r.previous_away_score, r.previous_winner, r.answered_at
        FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(
          event_id text, home_score integer, away_score integer, winner text, final_at timestamptz,
          corrected_at timestamptz, previous_home_score integer, previous_away_score integer, previous_winner text,
          answered_at timestamptz)
        ON CONFLICT (provider, event_id) DO UPDATE SET
          home_score = EXCLUDED.home_score, away_score = EXCLUDED.away_score, winner = EXCLUDED.winner,
          final_at = EXCLUDED.final_at, corrected_at = EXCLUDED.corrected_at,
          previous_home_score = EXCLUDED.previous_home_score, previous_away_score = EXCLUDED.previous_away_score,
          previous_winner = EXCLUDED.previous_winner, answered_at = EXCLUDED.answered_at
      `
    }, { discard: true }).pipe(Effect.orDie)

  return ResultRecords.of({
    held: Effect.fn("ResultRecords.held")(held),
    save: Effect.fn("ResultRecords.save")(save),
    prune: Effect.map(
      countRows(sql`
        WITH deleted AS (
          DELETE FROM sports_results
          WHERE coalesce(corrected_at, final_at) < now() - make_interval(days => ${resultRetentionDays})
          RETURNING 1
        )
        SELECT count(*)::int AS pruned FROM deleted
      `),
      (rows) => rows[0].pruned
    ).pipe(Effect.withSpan("ResultRecords.prune"))
  })
})

/** The records over memory (ResultRecords.layerMemory): keyed by provider and event as the table is; pruned by the Clock. */
const makeMemory = Effect.sync(() => {
  const results = new Map<string, Map<string, ResultRecord>>()
  const of = (provider: string) => {
    if (!results.has(provider)) results.set(provider, new Map())
    return results.get(provider)!
  }
  const copy = (record: ResultRecord): ResultRecord => ({
    ...record,
    previous: record.previous === null ? null : { ...record.previous } satisfies FinalScore
  })
  return ResultRecords.of({
    held: (provider, eventIds) =>
      Effect.sync(() => {
        const kept = of(provider)
        return new Map(eventIds.flatMap((id) => {
          const record = kept.get(id)
          return record === undefined ? [] : [[id, copy(record)] as const]
        }))
      }),
    save: (provider, records) =>
      Effect.sync(() => {
        if (new Set(records.map((record) => record.eventId)).size !== records.length) {
          throw new Error("ON CONFLICT DO UPDATE command cannot affect row a second time")
        }
        const kept = of(provider)
        for (const record of records) kept.set(record.eventId, copy(record))
      }),
    prune: Effect.map(Clock.currentTimeMillis, (now) => {
      let pruned = 0
      for (const kept of results.values()) {
        for (const [id, record] of kept) {
          if ((record.correctedAt ?? record.finalAt) < now - resultRetentionDays * 86_400_000) {
            kept.delete(id)
            pruned++
          }
        }
      }
      return pruned
    })
  })
})

/**
 * The service's record of final results (sports_results), by provider and event: when it first saw each event final,
 * and its last correction. The only code that reads or writes the table; written under the change log's lock
 * (SportsChangeLog.withLog), by ChangeRecorder, in the transaction that appends the changes it tells.
 */
export class ResultRecords extends Context.Service<ResultRecords, {
  /** What it holds of these events' results (those it holds). */
  held(provider: string, eventIds: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, ResultRecord>>
  save(provider: string, records: ReadonlyArray<ResultRecord>): Effect.Effect<void>
  /** Forgets results whose last change is older than resultRetentionDays; how many. */
  readonly prune: Effect.Effect<number>
}>()("partner-api/sports/stream/ResultRecords") {
  static readonly layerSql: Layer.Layer<ResultRecords, never, SqlClient.SqlClient> = Layer.effect(
    ResultRecords,
    Effect.suspend(() => makeSql)
  )

  /** The same records over memory, for tests without PostgreSQL (see makeMemory). */
  static readonly layerMemory: Layer.Layer<ResultRecords> = Layer.effect(
    ResultRecords,
    Effect.suspend(() => makeMemory)
  )
}
