/**
 * The baseline of the refresh row: the same rows a refresh just published
 * (its leagues, teams, memberships and events, read back from the catalog)
 * written by COPY into tables of the same shape and the same indexes, in one
 * transaction. What writing those rows costs this database with nothing else
 * to do: no provider, no comparison with what is there, no deactivation. The
 * tables start empty (a refresh writes into the whole catalog's indexes).
 */
import { Effect } from "effect"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"

/** A CSV field as COPY reads it: empty for NULL, anything else quoted. */
const field = (value: unknown) =>
  value === null || value === undefined
    ? ""
    : `"${(value instanceof Date ? value.toISOString() : String(value)).replaceAll("\"", "\"\"")}"`

const tables = [
  {
    table: "sports_leagues",
    columns: ["id", "sport_id", "country_code", "name", "provider"],
    where: "id NOT LIKE 'bl%'"
  },
  {
    table: "sports_teams",
    columns: ["id", "sport_id", "country_code", "name", "provider"],
    where: "id NOT LIKE 'bt%'"
  },
  { table: "sports_team_leagues", columns: ["team_id", "league_id", "provider"], where: "team_id NOT LIKE 'bt%'" },
  {
    table: "sports_events",
    columns: [
      "id",
      "sport_id",
      "country_code",
      "league_id",
      "league_name",
      "home_team_id",
      "home_name",
      "away_team_id",
      "away_name",
      "starts_at",
      "status",
      "score",
      "minute",
      "has_odds",
      "provider"
    ],
    where: "id NOT LIKE 'be%'"
  }
] as const

/**
 * Seconds to COPY the rows a refresh from the benchmark's BetsAPI stand-in wrote (everything but the
 * synthetic catalog's `bl`, `bt` and `be` ids) into empty copies of their tables, committed; and how many.
 */
export const copyFloor = (databaseUrl: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      const rows = []
      for (const { columns, table, where } of tables) {
        const result = await client.query({
          text: `SELECT ${columns.join(", ")} FROM ${table} WHERE ${where}`,
          rowMode: "array"
        })
        rows.push(result.rows.map((row: ReadonlyArray<unknown>) => row.map(field).join(",")).join("\n") + "\n")
      }
      for (const { table } of tables) {
        await client.query(`DROP TABLE IF EXISTS bench_copy_${table}`)
        await client.query(`CREATE TABLE bench_copy_${table} (LIKE ${table} INCLUDING ALL)`)
      }
      const started = performance.now()
      await client.query("BEGIN")
      for (const [i, { columns, table }] of tables.entries()) {
        await pipeline(
          Readable.from([rows[i]]),
          client.query(copyFrom(`COPY bench_copy_${table} (${columns.join(", ")}) FROM STDIN WITH (FORMAT csv)`))
        )
      }
      await client.query("COMMIT")
      const seconds = (performance.now() - started) / 1000
      const counts = rows.map((text) => text.split("\n").length - 1)
      for (const { table } of tables) await client.query(`DROP TABLE bench_copy_${table}`)
      return { seconds, events: counts[3], rows: counts.reduce((a, b) => a + b, 0) }
    } finally {
      await client.end()
    }
  })
