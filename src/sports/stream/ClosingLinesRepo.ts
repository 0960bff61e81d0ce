import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Schema, Scope } from "effect"
import * as Arr from "effect/Array"
import { SqlClient } from "effect/sql"
import type { ClosingAsk, ClosingLine } from "../../domain/ClosingLines.ts"
import { ClosingMarket, closingSources } from "../../domain/SportsChanges.ts"
import * as ChangeFeed from "../../platform/ChangeFeed.ts"
import { rowsOf } from "../../platform/SqlRows.ts"

/** NOTIFY channel: asks of closing lines were written (any provider, any instance); delivered at commit. */
export const closingAsksChannel = "partner_api_closing_asks"

/** Rows go to PostgreSQL as JSON documents of this many. */
const chunkSize = 5_000
const chunks = <A>(items: ReadonlyArray<A>) => Arr.chunksOf(items, chunkSize)

// Rows are decoded once, then given the domain's times (epoch millis).
const LineRow = Schema.Struct({
  eventId: Schema.String,
  sportId: Schema.Int,
  leagueId: Schema.String,
  source: Schema.Literals(closingSources),
  closedAt: Schema.Date,
  quotedAt: Schema.Date,
  markets: Schema.Array(ClosingMarket)
}).pipe(Schema.encodeKeys({
  eventId: "event_id",
  sportId: "sport_id",
  leagueId: "league_id",
  closedAt: "closed_at",
  quotedAt: "quoted_at"
}))

const AskRow = Schema.Struct({
  eventId: Schema.String,
  sportId: Schema.Int,
  leagueId: Schema.String,
  closedAt: Schema.Date,
  attempts: Schema.Int
}).pipe(Schema.encodeKeys({ eventId: "event_id", sportId: "sport_id", leagueId: "league_id", closedAt: "closed_at" }))

const lineRows = rowsOf(LineRow)
const askRows = rowsOf(AskRow)
const keptRows = rowsOf(Schema.Struct({ event_id: Schema.String }))
const dueRows = rowsOf(Schema.Struct({ due_at: Schema.NullOr(Schema.Date) }))
const countRows = rowsOf(Schema.Struct({ pruned: Schema.Int }))

const lineOf = (row: typeof LineRow.Type): ClosingLine => ({
  ...row,
  closedAt: row.closedAt.getTime(),
  quotedAt: row.quotedAt.getTime()
})

const askOf = (row: typeof AskRow.Type): ClosingAsk => ({ ...row, closedAt: row.closedAt.getTime() })

const iso = (millis: number) => new Date(millis).toISOString()

/** The tables in PostgreSQL. */
const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    Effect.orDie(Effect.provideService(effect, SqlClient.SqlClient, sql))

  // One LISTEN (a pooled connection held) for every asker of the instance, started by the first, for as long as the
  // repository lives.
  const repoScope = yield* Effect.scope
  const wakes = new Set<Effect.Effect<void>>()
  let listening = false
  const listen = Effect.suspend(() => {
    if (listening) return Effect.void
    listening = true
    const wakeAll = Effect.suspend(() => Effect.forEach([...wakes], (wake) => wake, { discard: true }))
    return ChangeFeed.onChange(closingAsksChannel, wakeAll).pipe(
      Effect.provideService(PgClient.PgClient, pg),
      Scope.provide(repoScope)
    )
  })

  const keep = (provider: string, lines: ReadonlyArray<ClosingLine>) =>
    Effect.map(
      Effect.forEach(chunks(lines), (chunk) => {
        const rows = chunk.map((line) => ({
          event_id: line.eventId,
          sport_id: line.sportId,
          league_id: line.leagueId,
          source: line.source,
          closed_at: iso(line.closedAt),
          quoted_at: iso(line.quotedAt),
          markets: line.markets
        }))
        const ids = JSON.stringify(chunk.map((line) => line.eventId))
        // The first line of an event is kept; a later one (another instance, the provider's answer after the kick-off's)
        // changes nothing. A line kept ends its ask, whoever kept it.
        return keptRows(sql`
          WITH kept AS (
            INSERT INTO sports_closing_lines (provider, event_id, sport_id, league_id, source, closed_at, quoted_at, markets)
            SELECT ${provider}, l.event_id, l.sport_id, l.league_id, l.source, l.closed_at, l.quoted_at, l.markets
            FROM json_to_recordset(${JSON.stringify(rows)}::json) AS l(
              event_id text, sport_id integer, league_id text, source text, closed_at timestamptz,
              quoted_at timestamptz, markets jsonb)
            ON CONFLICT (provider, event_id) DO NOTHING
            RETURNING event_id
          ),
          asked AS (
            DELETE FROM sports_closing_asks
            WHERE provider = ${provider} AND event_id IN (SELECT json_array_elements_text(${ids}::json))
          )
          SELECT event_id FROM kept
        `)
      }),
      (kept) => new Set(kept.flat().map((row) => row.event_id)) as ReadonlySet<string>
    )

  const want = (provider: string, asks: ReadonlyArray<ClosingAsk>, dueAt: number) =>
    run(Effect.gen(function*() {
      if (asks.length === 0) return
      for (const chunk of chunks(asks)) {
        const rows = chunk.map((ask) => ({
          event_id: ask.eventId,
          sport_id: ask.sportId,
          league_id: ask.leagueId,
          closed_at: iso(ask.closedAt)
        }))
        yield* sql`
          INSERT INTO sports_closing_asks (provider, event_id, sport_id, league_id, closed_at, due_at)
          SELECT ${provider}, a.event_id, a.sport_id, a.league_id, a.closed_at, ${new Date(dueAt)}
          FROM json_to_recordset(${JSON.stringify(rows)}::json)
            AS a(event_id text, sport_id integer, league_id text, closed_at timestamptz)
          WHERE NOT EXISTS (
            SELECT 1 FROM sports_closing_lines l WHERE l.provider = ${provider} AND l.event_id = a.event_id
          )
          ON CONFLICT (provider, event_id) DO NOTHING
        `
      }
      yield* ChangeFeed.announce(closingAsksChannel, provider)
    }))

  const closingLine = (provider: string, eventId: string) =>
    Effect.map(
      lineRows(sql`
        SELECT event_id, sport_id, league_id, source, closed_at, quoted_at, markets
        FROM sports_closing_lines WHERE provider = ${provider} AND event_id = ${eventId}
      `),
      (rows) => rows.length === 0 ? undefined : lineOf(rows[0])
    )

  const claim = (provider: string, options: { readonly now: number; readonly until: number; readonly limit: number }) =>
    Effect.map(
      // SKIP LOCKED: instances claiming at once take different asks; the one taken is theirs until `until`.
      askRows(sql`
        UPDATE sports_closing_asks a SET attempts = a.attempts + 1, due_at = ${new Date(options.until)}
        FROM (
          SELECT event_id FROM sports_closing_asks
          WHERE provider = ${provider} AND due_at <= ${new Date(options.now)}
          ORDER BY due_at, closed_at, event_id
          LIMIT ${options.limit}
          FOR UPDATE SKIP LOCKED
        ) due
        WHERE a.provider = ${provider} AND a.event_id = due.event_id
        RETURNING a.event_id, a.sport_id, a.league_id, a.closed_at, a.attempts
      `),
      (rows) => rows.map(askOf).sort((a, b) => a.closedAt - b.closedAt || (a.eventId < b.eventId ? -1 : 1))
    )

  return ClosingLinesRepo.of({
    keep: Effect.fn("ClosingLinesRepo.keep")(keep),
    want: Effect.fn("ClosingLinesRepo.want")(want),
    closingLine: Effect.fn("ClosingLinesRepo.closingLine")(closingLine),
    claim: Effect.fn("ClosingLinesRepo.claim")(claim),
    nextDue: (provider) =>
      Effect.map(
        dueRows(sql`SELECT min(due_at) AS due_at FROM sports_closing_asks WHERE provider = ${provider}`),
        (rows) => rows[0].due_at?.getTime() ?? null
      ),
    retry: (provider, eventId, dueAt) =>
      run(sql`
        UPDATE sports_closing_asks SET due_at = ${new Date(
        dueAt
      )} WHERE provider = ${provider} AND event_id = ${eventId}
      `).pipe(Effect.asVoid),
    drop: (provider, eventId) =>
      run(sql`DELETE FROM sports_closing_asks WHERE provider = ${provider} AND event_id = ${eventId}`).pipe(
        Effect.asVoid
      ),
    prune: Effect.fn("ClosingLinesRepo.prune")((olderThan: Date) =>
      Effect.map(
        countRows(sql`
          WITH asks AS (DELETE FROM sports_closing_asks WHERE closed_at < ${olderThan}),
          deleted AS (DELETE FROM sports_closing_lines WHERE closed_at < ${olderThan} RETURNING 1)
          SELECT count(*)::int AS pruned FROM deleted
        `),
        (rows) => rows[0].pruned
      )
    ),
    whenWanted: (wake) =>
      Effect.andThen(
        Effect.acquireRelease(
          Effect.sync(() => void wakes.add(wake)),
          () => Effect.sync(() => void wakes.delete(wake))
        ),
        listen
      )
  })
})

/**
 * The same tables over memory: a line kept once per provider and event (the first wins), asks claimed in the SQL's
 * order and held until their lease ends, wake-ups told as each want ends (the SQL's NOTIFY comes at commit).
 */
const makeMemory = Effect.sync(() => {
  const lines = new Map<string, ClosingLine>()
  const asks = new Map<string, ClosingAsk & { readonly provider: string; readonly dueAt: number }>()
  const listeners = new Set<Effect.Effect<void>>()
  const keyOf = (provider: string, eventId: string) => JSON.stringify([provider, eventId])
  const copy = (line: ClosingLine): ClosingLine => ({
    ...line,
    markets: line.markets.map((market) => ({ ...market, odds: market.odds.map((odd) => ({ ...odd })) }))
  })
  const compare = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0

  return ClosingLinesRepo.of({
    keep: (provider, kept) =>
      Effect.sync(() => {
        const added = new Set<string>()
        for (const line of kept) {
          const key = keyOf(provider, line.eventId)
          asks.delete(key)
          if (lines.has(key)) continue
          lines.set(key, copy(line))
          added.add(line.eventId)
        }
        return added
      }),
    want: (provider, wanted, dueAt) =>
      Effect.suspend(() => {
        if (wanted.length === 0) return Effect.void
        for (const ask of wanted) {
          const key = keyOf(provider, ask.eventId)
          if (lines.has(key) || asks.has(key)) continue
          asks.set(key, { ...ask, attempts: 0, provider, dueAt })
        }
        return Effect.forEach([...listeners], (wake) => wake, { discard: true })
      }),
    closingLine: (provider, eventId) =>
      Effect.sync(() => {
        const line = lines.get(keyOf(provider, eventId))
        return line === undefined ? undefined : copy(line)
      }),
    claim: (provider, { limit, now, until }) =>
      Effect.sync(() => {
        const due = [...asks.values()]
          .filter((ask) => ask.provider === provider && ask.dueAt <= now)
          .sort((a, b) => a.dueAt - b.dueAt || a.closedAt - b.closedAt || compare(a.eventId, b.eventId))
          .slice(0, limit)
        return due.map((ask) => {
          const taken = { ...ask, attempts: ask.attempts + 1, dueAt: until }
          asks.set(keyOf(provider, ask.eventId), taken)
          const { dueAt: _due, provider: _provider, ...claimed } = taken
          return claimed
        }).sort((a, b) => a.closedAt - b.closedAt || compare(a.eventId, b.eventId))
      }),
    nextDue: (provider) =>
      Effect.sync(() => {
        const due = [...asks.values()].filter((ask) => ask.provider === provider).map((ask) => ask.dueAt)
        return due.length === 0 ? null : Math.min(...due)
      }),
    retry: (provider, eventId, dueAt) =>
      Effect.sync(() => {
        const ask = asks.get(keyOf(provider, eventId))
        if (ask !== undefined) asks.set(keyOf(provider, eventId), { ...ask, dueAt })
      }),
    drop: (provider, eventId) => Effect.sync(() => void asks.delete(keyOf(provider, eventId))),
    prune: (olderThan) =>
      Effect.sync(() => {
        let pruned = 0
        for (const [key, line] of lines) {
          if (line.closedAt < olderThan.getTime()) {
            lines.delete(key)
            pruned++
          }
        }
        for (const [key, ask] of asks) if (ask.closedAt < olderThan.getTime()) asks.delete(key)
        return pruned
      }),
    whenWanted: (wake) =>
      Effect.acquireRelease(
        Effect.sync(() => void listeners.add(wake)),
        () => Effect.sync(() => void listeners.delete(wake))
      )
  })
})

/**
 * Closing lines (sports_closing_lines) and the asks of them still to make of the provider (sports_closing_asks): the
 * only code that reads or writes them. The change recorder keeps lines and writes asks under the change log's lock,
 * in the transaction that appends their changes; the asks are claimed by ClosingLineAsks. The rules are
 * ClosingLines' (src/domain). Database failures are defects here: callers cannot act on them.
 */
export class ClosingLinesRepo extends Context.Service<ClosingLinesRepo, {
  /** Keeps each event's line unless one is kept already, and ends its ask either way: the events whose line this kept. */
  keep(provider: string, lines: ReadonlyArray<ClosingLine>): Effect.Effect<ReadonlySet<string>>
  /** Asks for these events' lines, due at `dueAt`, but where a line or an ask is kept already; announced at commit. */
  want(provider: string, asks: ReadonlyArray<ClosingAsk>, dueAt: number): Effect.Effect<void>
  /** The line kept of an event, if any. */
  closingLine(provider: string, eventId: string): Effect.Effect<ClosingLine | undefined>
  /**
   * Up to `limit` asks of `provider` due at `now`, each counted as an attempt and held until `until` (then due again,
   * should the instance that took it die), in kick-off order.
   */
  claim(provider: string, options: {
    readonly now: number
    readonly until: number
    readonly limit: number
  }): Effect.Effect<ReadonlyArray<ClosingAsk>>
  /** When the next ask of `provider` is due (held ones included); null when there is none. */
  nextDue(provider: string): Effect.Effect<number | null>
  /** An ask made again at `dueAt`. */
  retry(provider: string, eventId: string, dueAt: number): Effect.Effect<void>
  /** An ask given up (the provider has no line for the event, or every attempt failed). */
  drop(provider: string, eventId: string): Effect.Effect<void>
  /** Removes the lines (and asks) of events that closed before `olderThan`, any provider's; how many lines. */
  prune(olderThan: Date): Effect.Effect<number>
  /** Runs `wake` after each burst of asks written (any instance), for as long as the scope lives. */
  whenWanted(wake: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope>
}>()("partner-api/sports/stream/ClosingLinesRepo") {
  static readonly layerSql: Layer.Layer<ClosingLinesRepo, never, SqlClient.SqlClient | PgClient.PgClient> = Layer
    .effect(ClosingLinesRepo, Effect.suspend(() => makeSql))

  /** The same tables over memory, for tests without PostgreSQL (see makeMemory). */
  static readonly layerMemory: Layer.Layer<ClosingLinesRepo> = Layer.effect(
    ClosingLinesRepo,
    Effect.suspend(() => makeMemory)
  )
}
