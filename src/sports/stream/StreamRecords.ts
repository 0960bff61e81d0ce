import { Context, Effect, Layer, Schema } from "effect"
import * as Arr from "effect/Array"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { eventStatuses, StatusReason } from "../../domain/Sports.ts"
import type { EventRecord, MarketRecord } from "../../domain/SportsChanges.ts"
import { eventFacts } from "../../domain/SportsChangeRules.ts"
import { suspensionReasons } from "../../domain/SportsChanges.ts"
import { rowsOf } from "../../platform/SqlRows.ts"

/** Rows go to PostgreSQL as JSON documents of this many. */
export const chunkSize = 5_000
export const chunks = <A>(items: ReadonlyArray<A>) => Arr.chunksOf(items, chunkSize)

const EventRow = Schema.Struct({
  event_id: Schema.String,
  sport_id: Schema.Int,
  league_id: Schema.String,
  league_name: Schema.String,
  home_name: Schema.String,
  away_name: Schema.String,
  starts_at: Schema.Date,
  status: Schema.Literals(eventStatuses),
  reason: Schema.NullOr(StatusReason),
  active: Schema.Boolean,
  score: Schema.NullOr(Schema.String),
  minute: Schema.NullOr(Schema.Int),
  final_at: Schema.NullOr(Schema.Date),
  answered_at: Schema.Date
})

const MarketRow = Schema.Struct({
  event_id: Schema.String,
  in_play: Schema.Boolean,
  market_key: Schema.String,
  name: Schema.String,
  odds: Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.Finite })),
  suspended: Schema.Boolean,
  reason: Schema.NullOr(Schema.Literals(suspensionReasons)),
  quoted_at: Schema.NullOr(Schema.Date),
  answered_at: Schema.Date
})

const StaleRow = Schema.Struct({
  ...MarketRow.fields,
  provider: Schema.String,
  sport_id: Schema.Int,
  league_id: Schema.String
})

const eventOf = (row: typeof EventRow.Type): EventRecord => ({
  eventId: row.event_id,
  sportId: row.sport_id,
  leagueId: row.league_id,
  leagueName: row.league_name,
  homeName: row.home_name,
  awayName: row.away_name,
  startsAt: row.starts_at.getTime(),
  status: row.status,
  reason: row.reason,
  active: row.active,
  score: row.score,
  minute: row.minute,
  finalAt: row.final_at?.getTime() ?? null,
  answeredAt: row.answered_at.getTime()
})

const marketOf = (row: typeof MarketRow.Type): MarketRecord => ({
  eventId: row.event_id,
  inPlay: row.in_play,
  key: row.market_key,
  name: row.name,
  odds: row.odds,
  suspended: row.suspended,
  reason: row.reason,
  quotedAt: row.quoted_at?.getTime() ?? null,
  answeredAt: row.answered_at.getTime()
})

const iso = (millis: number) => new Date(millis).toISOString()

/** What the log keeps of an event's facts: a digest, compared in PostgreSQL. */
export const fingerprintOf = (event: EventRecord) => createHash("sha1").update(eventFacts(event)).digest("base64")

/** The columns of an event's record, as the statements below read them (from `s`). */
const eventColumns =
  `s.event_id, s.sport_id, s.league_id, s.league_name, s.home_name, s.away_name, s.starts_at, s.status, s.reason,
  s.active, s.score, s.minute, s.final_at, s.answered_at`

/** A statement's rows decoded by `Result`; database failures are defects here: callers cannot act on them. */
const eventRows = rowsOf(EventRow)
/** An observed event whose facts moved, and whether the log holds it (a refresh's new events come back as this only). */
const movedRows = rowsOf(Schema.Struct({ observed: Schema.String, held: Schema.Boolean }))
const marketRows = rowsOf(MarketRow)
const staleRows = rowsOf(StaleRow)
const knownRows = rowsOf(Schema.Struct({ known: Schema.Boolean }))
const placeRows = rowsOf(Schema.Struct({ event_id: Schema.String, sport_id: Schema.Int, league_id: Schema.String }))

const makeSql = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    Effect.orDie(Effect.provideService(effect, SqlClient.SqlClient, sql))

  const eventRecords = (provider: string, observed: ReadonlyArray<EventRecord>, openOfSports: ReadonlyArray<number>) =>
    Effect.gen(function*() {
      const seen = JSON.stringify(observed.map((event) => ({ id: event.eventId, h: fingerprintOf(event) })))
      // Only the observed events whose facts moved (or that the log does not hold yet) are read back, by id...
      const moved = yield* movedRows(sql`
        WITH seen AS MATERIALIZED (SELECT * FROM json_to_recordset(${seen}::json) AS o(id text, h text))
        SELECT seen.id AS observed, s.event_id IS NOT NULL AS held
        FROM seen LEFT JOIN sports_stream_events s ON s.provider = ${provider} AND s.event_id = seen.id
        WHERE s.fingerprint IS DISTINCT FROM seen.h
      `)
      // ...with what the log holds of those it holds: a refresh of 100,000 new events reads back 100,000 ids alone.
      const heldIds = moved.filter((row) => row.held).map((row) => row.observed)
      const held = heldIds.length === 0 ? [] : yield* eventRows(sql`
        SELECT ${sql.literal(eventColumns)} FROM sports_stream_events s
        WHERE s.provider = ${provider} AND s.event_id IN (SELECT json_array_elements_text(${
        JSON.stringify(heldIds)
      }::json))
      `)
      // ...and the open events of the refresh's sports it no longer lists.
      // NOT IN over a subquery is a hashed subplan: one pass over the listed ids, whatever their number.
      const unlisted = openOfSports.length === 0 ? [] : yield* eventRows(sql`
        SELECT ${sql.literal(eventColumns)} FROM sports_stream_events s
        WHERE s.provider = ${provider} AND s.active AND s.status IN ('scheduled', 'live')
          AND s.sport_id IN (SELECT json_array_elements_text(${JSON.stringify(openOfSports)}::json)::integer)
          AND s.event_id NOT IN (SELECT o.id FROM json_to_recordset(${seen}::json) AS o(id text))
      `)
      const previous = new Map<string, EventRecord>()
      for (const row of held) previous.set(row.event_id, eventOf(row))
      for (const row of unlisted) previous.set(row.event_id, eventOf(row))
      return { moved: new Set(moved.map((row) => row.observed)), previous }
    })

  const saveEvents = (provider: string, records: ReadonlyArray<EventRecord>) =>
    run(Effect.forEach(chunks(records), (chunk) => {
      const rows = chunk.map((record) => ({
        event_id: record.eventId,
        sport_id: record.sportId,
        league_id: record.leagueId,
        league_name: record.leagueName,
        home_name: record.homeName,
        away_name: record.awayName,
        starts_at: iso(record.startsAt),
        status: record.status,
        reason: record.reason,
        active: record.active,
        score: record.score,
        minute: record.minute,
        final_at: record.finalAt === null ? null : iso(record.finalAt),
        answered_at: iso(record.answeredAt),
        fingerprint: fingerprintOf(record)
      }))
      return sql`
        INSERT INTO sports_stream_events (provider, event_id, sport_id, league_id, league_name, home_name, away_name, starts_at,
                                          status, reason, active, score, minute, final_at, answered_at, fingerprint)
        SELECT ${provider}, e.event_id, e.sport_id, e.league_id, e.league_name, e.home_name, e.away_name, e.starts_at, e.status,
               e.reason, e.active, e.score, e.minute, e.final_at, e.answered_at, e.fingerprint
        FROM json_to_recordset(${JSON.stringify(rows)}::json) AS e(
          event_id text, sport_id integer, league_id text, league_name text, home_name text, away_name text,
          starts_at timestamptz, status text, reason jsonb, active boolean, score text, minute integer,
          final_at timestamptz, answered_at timestamptz, fingerprint text)
        ON CONFLICT (provider, event_id) DO UPDATE SET
          sport_id = EXCLUDED.sport_id, league_id = EXCLUDED.league_id, league_name = EXCLUDED.league_name,
          home_name = EXCLUDED.home_name, away_name = EXCLUDED.away_name, starts_at = EXCLUDED.starts_at,
          status = EXCLUDED.status, reason = EXCLUDED.reason, active = EXCLUDED.active, score = EXCLUDED.score,
          minute = EXCLUDED.minute, final_at = EXCLUDED.final_at, answered_at = EXCLUDED.answered_at,
          fingerprint = EXCLUDED.fingerprint
      `
    }, { discard: true }))

  const places = (provider: string, eventIds: ReadonlyArray<string>) =>
    Effect.map(
      placeRows(sql`
        SELECT event_id, sport_id, league_id FROM sports_stream_events
        WHERE provider = ${provider} AND event_id IN (SELECT json_array_elements_text(${
        JSON.stringify(eventIds)
      }::json))
      `),
      (rows) => new Map(rows.map((row) => [row.event_id, { sportId: row.sport_id, leagueId: row.league_id }]))
    )

  const marketRecords = (provider: string, eventIds: ReadonlyArray<string>) =>
    Effect.map(
      marketRows(sql`
        SELECT event_id, in_play, market_key, name, odds, suspended, reason, quoted_at, answered_at
        FROM sports_stream_markets
        WHERE provider = ${provider} AND event_id IN (SELECT json_array_elements_text(${
        JSON.stringify(eventIds)
      }::json))
      `),
      (rows) => rows.map(marketOf)
    )

  const saveMarkets = (provider: string, records: ReadonlyArray<MarketRecord>) =>
    run(Effect.forEach(chunks(records), (chunk) => {
      const rows = chunk.map((market) => ({
        event_id: market.eventId,
        in_play: market.inPlay,
        market_key: market.key,
        name: market.name,
        odds: market.odds,
        suspended: market.suspended,
        reason: market.reason,
        quoted_at: market.quotedAt === null ? null : iso(market.quotedAt),
        answered_at: iso(market.answeredAt)
      }))
      return sql`
        INSERT INTO sports_stream_markets (provider, event_id, in_play, market_key, name, odds, suspended, reason, quoted_at, answered_at)
        SELECT ${provider}, m.event_id, m.in_play, m.market_key, m.name, m.odds, m.suspended, m.reason, m.quoted_at, m.answered_at
        FROM json_to_recordset(${JSON.stringify(rows)}::json) AS m(
          event_id text, in_play boolean, market_key text, name text, odds jsonb, suspended boolean, reason text,
          quoted_at timestamptz, answered_at timestamptz)
        ON CONFLICT (provider, event_id, in_play, market_key) DO UPDATE SET
          name = EXCLUDED.name, odds = EXCLUDED.odds, suspended = EXCLUDED.suspended, reason = EXCLUDED.reason,
          quoted_at = EXCLUDED.quoted_at, answered_at = EXCLUDED.answered_at
      `
    }, { discard: true }))

  const staleMarkets = (answeredBefore: number) =>
    Effect.map(
      staleRows(sql`
        SELECT m.provider, m.event_id, m.in_play, m.market_key, m.name, m.odds, m.suspended, m.reason, m.quoted_at, m.answered_at,
               e.sport_id, e.league_id
        FROM sports_stream_markets m JOIN sports_stream_events e USING (provider, event_id)
        WHERE NOT m.suspended AND m.answered_at < ${new Date(answeredBefore)}
        ORDER BY m.provider, m.event_id, m.in_play, m.market_key
        LIMIT ${chunkSize}
      `),
      (rows) =>
        rows.map((row) => ({
          provider: row.provider,
          market: marketOf(row),
          sportId: row.sport_id,
          leagueId: row.league_id
        }))
    )

  return StreamRecords.of({
    providerKnown: (provider) =>
      Effect.map(
        knownRows(sql`SELECT EXISTS (SELECT 1 FROM sports_stream_events WHERE provider = ${provider}) AS known`),
        (rows) => rows[0].known
      ),
    eventRecords: Effect.fn("StreamRecords.eventRecords")(eventRecords),
    saveEvents: Effect.fn("StreamRecords.saveEvents")(saveEvents),
    places: Effect.fn("StreamRecords.places")(places),
    marketRecords: Effect.fn("StreamRecords.marketRecords")(marketRecords),
    saveMarkets: Effect.fn("StreamRecords.saveMarkets")(saveMarkets),
    staleMarkets: Effect.fn("StreamRecords.staleMarkets")(staleMarkets),
    prune: Effect.gen(function*() {
      // A market unseen for a day (long suspended), an event ended or removed three days ago (the catalog lists
      // ended events for two).
      yield* sql`DELETE FROM sports_stream_markets WHERE answered_at < now() - interval '1 day'`
      yield* sql`
        DELETE FROM sports_stream_events
        WHERE (NOT active OR status NOT IN ('scheduled', 'live')) AND answered_at < now() - interval '3 days'
      `
    }).pipe(Effect.orDie, Effect.withSpan("StreamRecords.prune"))
  })
})

/**
 * What the change log knows of each provider's events and markets (sports_stream_events, sports_stream_markets),
 * to tell what a refresh or an odds answer changed: the only code that reads or writes them. Written under the
 * log's lock (SportsChangeLog.withLog), in the transaction that appends the changes.
 */
export class StreamRecords extends Context.Service<StreamRecords, {
  /** Whether the log has seen any event of `provider` (its first refresh sets the baseline). */
  providerKnown(provider: string): Effect.Effect<boolean>
  /**
   * Of the observed events, those whose facts moved from what the log holds (or that it does not hold), with
   * what it holds of them; and what it holds of the open events of `openOfSports` not observed.
   */
  eventRecords(
    provider: string,
    observed: ReadonlyArray<EventRecord>,
    openOfSports: ReadonlyArray<number>
  ): Effect.Effect<{
    readonly moved: ReadonlySet<string>
    readonly previous: ReadonlyMap<string, EventRecord>
  }>
  saveEvents(provider: string, records: ReadonlyArray<EventRecord>): Effect.Effect<void>
  /** Each known event's sport and league. */
  places(
    provider: string,
    eventIds: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyMap<string, { readonly sportId: number; readonly leagueId: string }>>
  /** Every market the log holds for these events, both phases. */
  marketRecords(provider: string, eventIds: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<MarketRecord>>
  saveMarkets(provider: string, records: ReadonlyArray<MarketRecord>): Effect.Effect<void>
  /** Open markets (of any provider) no answer has carried since `answeredBefore`, a batch at a time. */
  staleMarkets(answeredBefore: number): Effect.Effect<
    ReadonlyArray<{
      readonly provider: string
      readonly market: MarketRecord
      readonly sportId: number
      readonly leagueId: string
    }>
  >
  /** Forgets markets and events long gone. */
  readonly prune: Effect.Effect<void>
}>()("partner-api/sports/stream/StreamRecords") {
  static readonly layerSql: Layer.Layer<StreamRecords, never, SqlClient.SqlClient> = Layer.effect(
    StreamRecords,
    Effect.suspend(() => makeSql)
  )
}
