import { PgClient } from "@effect/sql-pg"
import * as Arr from "effect/Array"
import { Clock, Context, Duration, Effect, Exit, Layer, Schema, Scope, Semaphore } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import type { ChangeKind, ChangeRecord } from "../../domain/SportsChanges.ts"
import { changeKinds } from "../../domain/SportsChanges.ts"
import type { StreamFilter } from "../../domain/SportsStream.ts"
import * as ChangeFeed from "../../platform/ChangeFeed.ts"
import { rowsOf } from "../../platform/SqlRows.ts"

/** NOTIFY channel: changes were appended to the log (any provider, any instance); delivered at commit. */
export const sportsChangesChannel = "partner_api_sports_changes"

/** Rows go to PostgreSQL as JSON documents of this many. */
const chunkSize = 5_000
const chunks = <A>(items: ReadonlyArray<A>) => Arr.chunksOf(items, chunkSize)

/** One change as read back: its position and the text the stream sends. */
export interface LoggedChange {
  readonly position: number
  readonly kind: ChangeKind
  readonly eventId: string
  readonly sportId: number
  readonly leagueId: string
  readonly data: string
}

/** Where the log stands: its head (the highest position committed) and its floor (the highest pruned), one snapshot. */
export interface LogBounds {
  readonly head: number
  readonly floor: number
}

/** A page of the log: its changes, and the highest position pruned when it was read (same snapshot). */
export interface LogPage {
  readonly floor: number
  readonly changes: ReadonlyArray<LoggedChange>
}

const Position = Schema.NumberFromString.check(Schema.isInt())

const PageRow = Schema.Struct({
  floor: Position,
  position: Schema.NullOr(Position),
  kind: Schema.NullOr(Schema.Literals(changeKinds)),
  event_id: Schema.NullOr(Schema.String),
  sport_id: Schema.NullOr(Schema.Int),
  league_id: Schema.NullOr(Schema.String),
  data: Schema.NullOr(Schema.String)
})

/** A statement's rows decoded by `Result`; database failures are defects here: callers cannot act on them. */
const pageRows = rowsOf(PageRow)
const boundsRows = rowsOf(Schema.Struct({ head: Position, floor: Position }))
const lastRows = rowsOf(Schema.Struct({ last: Position }))
const countRows = rowsOf(Schema.Struct({ pruned: Schema.Int }))

const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    Effect.orDie(Effect.provideService(effect, SqlClient.SqlClient, sql))

  // Every writer holds this lock from before it draws a position to its commit (see sql/0019).
  const withLog = <A, E, R>(work: Effect.Effect<A, E, R>) =>
    sql.withTransaction(Effect.andThen(sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:sports-changes'))`, work))
      .pipe(
        Effect.catchTag("SqlError", Effect.die)
      )

  const append = (provider: string, changes: ReadonlyArray<ChangeRecord>) =>
    run(Effect.gen(function*() {
      if (changes.length === 0) return
      for (const [chunkIndex, chunk] of chunks(changes).entries()) {
        const rows = chunk.map((change, i) => ({
          n: chunkIndex * chunkSize + i,
          kind: change.kind,
          event_id: change.eventId,
          sport_id: change.sportId,
          league_id: change.leagueId,
          data: change.data
        }))
        // json, not jsonb, all the way: each change's text is kept as written.
        yield* sql`
          INSERT INTO sports_changes (provider, kind, event_id, sport_id, league_id, data)
          SELECT ${provider}, c.kind, c.event_id, c.sport_id, c.league_id, c.data::json
          FROM json_to_recordset(${JSON.stringify(rows)}::json)
            AS c(n integer, kind text, event_id text, sport_id integer, league_id text, data text)
          ORDER BY c.n
        `
      }
      yield* ChangeFeed.announce(sportsChangesChannel, provider)
    }))

  const filterOf = (filter: StreamFilter): Statement.Fragment => {
    const conditions = [sql`true`]
    if (filter.kinds !== null) conditions.push(sql`kind IN ${sql.in([...filter.kinds])}`)
    if (filter.sportIds !== null) {
      conditions.push(filter.sportIds.size === 0 ? sql`false` : sql`sport_id IN ${sql.in([...filter.sportIds])}`)
    }
    if (filter.leagueIds !== null) conditions.push(sql`league_id IN ${sql.in([...filter.leagueIds])}`)
    if (filter.eventIds !== null) conditions.push(sql`event_id IN ${sql.in([...filter.eventIds])}`)
    return sql.and(conditions)
  }

  const read = (provider: string, options: {
    readonly after: number
    readonly through: number | null
    readonly filter: StreamFilter | null
    readonly limit: number
  }) =>
    Effect.map(
      // One statement, one snapshot: the floor says whether anything between `after` and these rows was pruned.
      pageRows(sql`
        SELECT f.pruned_through::text AS floor, c.position::text AS position, c.kind, c.event_id, c.sport_id, c.league_id,
               c.data::text AS data
        FROM sports_change_floor f
        LEFT JOIN LATERAL (
          SELECT position, kind, event_id, sport_id, league_id, data FROM sports_changes
          WHERE provider = ${provider} AND position > ${options.after}
            ${options.through === null ? sql`` : sql`AND position <= ${options.through}`}
            AND ${options.filter === null ? sql`true` : filterOf(options.filter)}
          ORDER BY position
          LIMIT ${options.limit}
        ) c ON true
        ORDER BY c.position
      `),
      (rows): LogPage => ({
        floor: rows[0]?.floor ?? 0,
        changes: rows.flatMap((row) =>
          row.position === null ? [] : [{
            position: row.position,
            kind: row.kind!,
            eventId: row.event_id!,
            sportId: row.sport_id!,
            leagueId: row.league_id!,
            data: row.data!
          }]
        )
      })
    )

  const prune = (retention: Duration.Duration) =>
    withLog(Effect.gen(function*() {
      const seconds = Duration.toSeconds(retention)
      // recorded_at is drawn under the lock, so the last row before the cut-off has the highest position pruned.
      const [{ pruned }] = yield* countRows(sql`
        WITH cut AS (
          SELECT position FROM sports_changes WHERE recorded_at < now() - make_interval(secs => ${seconds})
          ORDER BY recorded_at DESC LIMIT 1
        ),
        deleted AS (DELETE FROM sports_changes WHERE position <= (SELECT position FROM cut) RETURNING 1),
        floor AS (
          UPDATE sports_change_floor SET pruned_through = GREATEST(pruned_through, (SELECT position FROM cut))
          WHERE EXISTS (SELECT 1 FROM cut)
        )
        SELECT count(*)::int AS pruned FROM deleted
      `)
      return pruned
    }))

  // Under the lock nobody else draws, so a block is one nextval and one setval (sql/0044).
  const draw = (count: number) =>
    Effect.map(
      lastRows(sql`
        WITH drawn AS (
          SELECT setval(pg_get_serial_sequence('sports_changes', 'position'),
                        nextval(pg_get_serial_sequence('sports_changes', 'position')) + ${count - 1}) AS last
        ),
        kept AS (UPDATE sports_change_floor SET drawn_through = GREATEST(drawn_through, (SELECT last FROM drawn)))
        SELECT last::text AS last FROM drawn
      `),
      (rows) => rows[0].last - count + 1
    )

  // Pruned to nothing, the log's head is still the last position it had (or drew).
  const bounds = Effect.map(
    boundsRows(sql`
      SELECT GREATEST((SELECT max(position) FROM sports_changes), pruned_through, drawn_through)::text AS head,
             pruned_through::text AS floor
      FROM sports_change_floor
    `),
    (rows): LogBounds => rows[0]
  )

  return SportsChangeLog.of({
    withLog,
    append: Effect.fn("SportsChangeLog.append")(append),
    read: Effect.fn("SportsChangeLog.read")(read),
    draw: Effect.fn("SportsChangeLog.draw")(draw),
    head: Effect.map(bounds, (bounds) => bounds.head),
    bounds,
    prune: Effect.fn("SportsChangeLog.prune")(prune),
    onAppend: (run) => ChangeFeed.onChange(sportsChangesChannel, run).pipe(Effect.provideService(PgClient.PgClient, pg))
  })
})

/**
 * The log over memory (SportsChangeLog.layerMemory): positions drawn in order and never reused, so a withLog whose
 * work fails leaves a gap as the SQL's rolled-back transaction does (its changes are gone); changes kept as written;
 * times by the Clock; listeners told after each burst, at the end of its withLog as the SQL's NOTIFY is at commit.
 */
const HoldsLog = Context.Reference<boolean>("partner-api/sports/stream/SportsChangeLog/HoldsLog", {
  defaultValue: () => false
})

const makeMemory = Effect.sync(() => {
  interface Row extends LoggedChange {
    readonly provider: string
    readonly recordedAt: number
  }
  let rows: Array<Row> = []
  let lastPosition = 0
  let floor = 0
  let drawnThrough = 0
  let inLog = false
  let told = false
  const listeners = new Set<Effect.Effect<void>>()
  const lock = Semaphore.makeUnsafe(1)
  const announce = Effect.suspend(() => Effect.forEach([...listeners], (run) => run, { discard: true }))

  const headNow = () => Math.max(rows.at(-1)?.position ?? 0, floor, drawnThrough)

  const matches = (filter: StreamFilter | null) => (row: Row) =>
    filter === null || (
      (filter.kinds === null || filter.kinds.has(row.kind)) &&
      (filter.sportIds === null || filter.sportIds.has(row.sportId)) &&
      (filter.leagueIds === null || filter.leagueIds.has(row.leagueId)) &&
      (filter.eventIds === null || filter.eventIds.has(row.eventId))
    )

  // A withLog inside another (pruning does) is a savepoint of the outer one: it holds the lock already.
  const withLog = <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(Effect.service(HoldsLog), (holds) => {
      if (holds) {
        const kept = { rows, floor, drawnThrough }
        return Effect.onExit(
          work,
          (exit) => Effect.sync(() => Exit.isFailure(exit) && ({ rows, floor, drawnThrough } = kept))
        )
      }
      return lock.withPermit(Effect.gen(function*() {
        const kept = { rows, floor, drawnThrough }
        inLog = true
        told = false
        const exit = yield* Effect.exit(Effect.provideService(work, HoldsLog, true))
        inLog = false
        if (Exit.isFailure(exit)) ({ rows, floor, drawnThrough } = kept)
        else if (told) yield* announce
        return yield* exit
      }))
    })

  const append = (provider: string, changes: ReadonlyArray<ChangeRecord>) =>
    Effect.gen(function*() {
      if (changes.length === 0) return
      for (const change of changes) JSON.parse(change.data) // the column is json: text that is not is refused
      const now = yield* Clock.currentTimeMillis
      rows = [
        ...rows,
        ...changes.map((change): Row => ({ ...change, position: ++lastPosition, provider, recordedAt: now }))
      ]
      if (inLog) told = true
      else yield* announce
    })

  return SportsChangeLog.of({
    withLog,
    append,
    read: (provider, { after, filter, limit, through }) =>
      Effect.sync((): LogPage => ({
        floor,
        changes: rows
          .filter((row) =>
            row.provider === provider && row.position > after && (through === null || row.position <= through)
          )
          .filter(matches(filter))
          .slice(0, limit)
          .map(({ recordedAt: _at, provider: _provider, ...change }) => change)
      })),
    draw: (count) =>
      Effect.sync(() => {
        const first = lastPosition + 1
        lastPosition += count
        drawnThrough = lastPosition
        return first
      }),
    head: Effect.sync(headNow),
    bounds: Effect.sync(() => ({ head: headNow(), floor })),
    prune: (retention) =>
      withLog(Effect.map(Clock.currentTimeMillis, (now) => {
        const cut = rows.findLast((row) => row.recordedAt < now - Duration.toMillis(retention))
        if (cut === undefined) return 0
        const before = rows.length
        rows = rows.filter((row) => row.position > cut.position)
        floor = Math.max(floor, cut.position)
        return before - rows.length
      })),
    onAppend: (run) =>
      Effect.acquireRelease(
        Effect.sync(() => void listeners.add(run)),
        () => Effect.sync(() => void listeners.delete(run))
      )
  })
})

/**
 * The change log (sports_changes, sports_change_floor): the only code that
 * reads or writes it. What it knows of each provider's events and markets is
 * StreamRecords'; the rules of what changed are SportsChanges' (src/domain);
 * ChangeRecorder composes them, under withLog.
 */
export class SportsChangeLog extends Context.Service<SportsChangeLog, {
  /**
   * Runs `work` in a transaction (a savepoint of the caller's, when there is one) holding the log's lock to its
   * commit: positions are drawn in commit order, so a reader never passes a position that commits later.
   */
  withLog<A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** Appends changes, in order, and announces them at commit. Under withLog. */
  append(provider: string, changes: ReadonlyArray<ChangeRecord>): Effect.Effect<void>
  /** Changes of `provider` after a position (up to `through`, when given), in order, with the floor. */
  read(provider: string, options: {
    readonly after: number
    readonly through: number | null
    readonly filter: StreamFilter | null
    readonly limit: number
  }): Effect.Effect<LogPage>
  /**
   * Draws `count` (at least 1) positions in a row for records kept elsewhere (the catalog's, sql/0044), in commit
   * order like the log's own, and returns the first. No change is logged at them; the head counts them. Under withLog.
   */
  draw(count: number): Effect.Effect<number>
  /** The highest position committed or drawn (the floor once everything is pruned; 0 for a log never written). */
  readonly head: Effect.Effect<number>
  /** The head and the floor, in one snapshot. */
  readonly bounds: Effect.Effect<LogBounds>
  /** Removes changes older than `retention`, raising the floor. */
  prune(retention: Duration.Duration): Effect.Effect<number>
  /** Runs `run` after each burst of appends (any instance), for as long as the scope lives. */
  onAppend(run: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope>
}>()("partner-api/sports/stream/SportsChangeLog") {
  static readonly layerSql: Layer.Layer<SportsChangeLog, never, SqlClient.SqlClient | PgClient.PgClient> = Layer.effect(
    SportsChangeLog,
    Effect.suspend(() => makeSql)
  )

  /** The same log over memory, for tests without PostgreSQL (see makeMemory). */
  static readonly layerMemory: Layer.Layer<SportsChangeLog> = Layer.effect(
    SportsChangeLog,
    Effect.suspend(() => makeMemory)
  )
}
