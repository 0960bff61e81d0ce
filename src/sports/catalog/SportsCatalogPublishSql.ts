import { Effect } from "effect"
import * as Arr from "effect/Array"
import { SqlClient, type SqlError } from "effect/sql"
import type { PublishReport, Snapshot } from "../../domain/SportsCatalog.ts"
import { publishReportOf, type RecordRow, snapshotRecords } from "../../domain/SportsCatalogPublish.ts"
import { positionsFor, positionsFrom, type Written } from "../../domain/SportsCatalogSync.ts"
import * as ChangeFeed from "../../platform/ChangeFeed.ts"
import type { CatalogChanges } from "./CatalogChanges.ts"

/** NOTIFY channel: the sports catalog changed (a refresh), from any instance. */
export const sportsCatalogChangedChannel = "partner_api_sports_catalog_changed"

/**
 * Rows go to PostgreSQL as JSON documents of this many, typed by json_to_recordset's column list (`json`,
 * not `jsonb`: read once, it need not be built into a binary document first).
 */
const chunkSize = 10_000

const chunks = <A>(items: ReadonlyArray<A>) => Arr.chunksOf(items, chunkSize)

const recordRow = (row: RecordRow) => ({
  id: row.id,
  name: row.name,
  sport_id: row.sportId,
  country_code: row.countryCode
})

/**
 * Removes the world of the provider the catalog held (`from`; null: none recorded) and records that it now holds
 * `to`'s, in the publish's transaction: the old world leaves whole as the new one arrives whole, and a publish that
 * fails leaves the old world as it was. Since only one provider's rows exist at each commit, the catalog's reads need
 * no provider filter. Each table goes in one statement (the rows of the old world are all its rows); readers see the
 * old world until the commit. Returns how many rows left.
 */
const removeWorld = Effect.fnUntraced(function*(from: string | null, to: string) {
  const sql = yield* SqlClient.SqlClient
  let removed = 0
  for (const table of ["sports_team_leagues", "sports_events", "sports_teams", "sports_leagues"]) {
    const [gone] = yield* sql<{ readonly n: number }>`
      WITH gone AS (DELETE FROM ${sql(table)} WHERE provider <> ${to} RETURNING 1) SELECT count(*)::int AS n FROM gone
    `
    removed += gone?.n ?? 0
  }
  // Their positions go with them (a since from before this world began is answered as lost, sql/0044).
  yield* sql`DELETE FROM sports_catalog_positions WHERE record IN ('league', 'team', 'prematch', 'live')`
  yield* sql`
    INSERT INTO sports_catalog_world (provider) VALUES (${to})
    ON CONFLICT (singleton) DO UPDATE SET provider = EXCLUDED.provider
  `
  yield* Effect.logInfo("A publish by another provider replaces the sports catalog's world (in its transaction)").pipe(
    Effect.annotateLogs({ from: from ?? "none", to, rows_removed: removed })
  )
  return removed
})

/** What a publish did: its report, the records it wrote (new, changed or gone inactive), and the rows of another world it removed. */
export interface Published {
  readonly report: PublishReport
  readonly touched: Written
  readonly removed: number
}

/**
 * Publishes a snapshot's records (domain/SportsCatalogPublish), to be run
 * in one transaction (SportsCatalogRepo.layerSql does), in bulk: nothing of it is
 * seen until all of it is written, a failure leaves the previous catalog as
 * it was, and concurrent refreshes (any instance) take turns on an advisory
 * lock. Unchanged rows are not rewritten. Part of SportsCatalogRepo.layerSql:
 * nothing else imports it.
 */
const publishSnapshot = Effect.fnUntraced(function*(snapshot: Snapshot): Effect.fn.Return<
  Published,
  SqlError.SqlError,
  SqlClient.SqlClient
> {
  const sql = yield* SqlClient.SqlClient
  const { provider, scope } = snapshot
  yield* sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:sports-catalog'))`
  // This publish keeps the feeds' totals itself (below), so its writes to the events do not mark them stale (sql/0040).
  yield* sql`SELECT set_config('partner_api.catalog_publish', 'on', true)`

  const records = snapshotRecords(snapshot)
  let changed = 0
  let deactivated = 0
  /** Events written or gone inactive: the feeds' totals are written again. */
  let eventsMoved = 0
  /** The ids of the records written, by kind, for their positions (a since read finds them by these). */
  const touched: Record<keyof Written, Set<string>> = {
    sport: new Set(),
    country: new Set(),
    league: new Set(),
    team: new Set(),
    event: new Set()
  }
  const writtenOf = (kind: keyof Written) => (rows: ReadonlyArray<{ readonly id: string | number }>) => {
    for (const row of rows) touched[kind].add(String(row.id))
    return rows.length
  }
  const sportsWritten = writtenOf("sport")
  const countriesWritten = writtenOf("country")
  const leaguesWritten = writtenOf("league")
  const teamsWritten = writtenOf("team")
  const eventsWritten = writtenOf("event")

  // Whose world the catalog holds: one row, read under the lock (a publish by another provider may just have
  // committed), so a publish by the same provider as the last costs one glance, never a scan.
  const [world] = yield* sql<{ readonly provider: string }>`SELECT provider FROM sports_catalog_world`
  const removed = world?.provider === provider ? 0 : yield* removeWorld(world?.provider ?? null, provider)

  changed += sportsWritten(
    yield* sql<{ readonly id: number }>`
      INSERT INTO sports_sports (id, name)
      SELECT s.id, s.name FROM json_to_recordset(${JSON.stringify(records.sports)}::json) AS s(id integer, name text)
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
      WHERE sports_sports.name IS DISTINCT FROM EXCLUDED.name
      RETURNING id
    `
  )
  changed += countriesWritten(
    yield* sql<{ readonly id: string }>`
      INSERT INTO sports_countries (code, name)
      SELECT c.code, c.name FROM json_to_recordset(${
      JSON.stringify(records.countries)
    }::json) AS c(code text, name text)
      ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
      WHERE sports_countries.name IS DISTINCT FROM EXCLUDED.name
      RETURNING code AS id
    `
  )

  changed += leaguesWritten(
    yield* sql<{ readonly id: string }>`
      INSERT INTO sports_leagues (id, sport_id, country_code, name, provider)
      SELECT l.id, l.sport_id, l.country_code, l.name, ${provider}
      FROM json_to_recordset(${JSON.stringify(records.leagues.map(recordRow))}::json)
        AS l(id text, sport_id integer, country_code text, name text)
      LEFT JOIN sports_leagues kept ON kept.id = l.id
      WHERE kept.id IS NULL
         OR (kept.sport_id, kept.country_code, kept.name, kept.active) IS DISTINCT FROM (l.sport_id, l.country_code, l.name, true)
      ON CONFLICT (id) DO UPDATE SET
        sport_id = EXCLUDED.sport_id, country_code = EXCLUDED.country_code, name = EXCLUDED.name,
        active = true, updated_at = now()
      WHERE (sports_leagues.sport_id, sports_leagues.country_code, sports_leagues.name, sports_leagues.active)
        IS DISTINCT FROM (EXCLUDED.sport_id, EXCLUDED.country_code, EXCLUDED.name, true)
      RETURNING id
    `
  )
  if (scope.leagues && !scope.liveOnly) {
    deactivated += leaguesWritten(
      yield* sql<{ readonly id: string }>`
        UPDATE sports_leagues SET active = false, updated_at = now()
        WHERE active AND sport_id IN (SELECT json_array_elements_text(${JSON.stringify(scope.sportIds)}::json)::integer)
          AND id NOT IN (SELECT json_array_elements_text(${
        JSON.stringify(records.leagues.map((league) => league.id))
      }::json))
        RETURNING id
      `
    )
  }

  if (scope.events) {
    for (const chunk of chunks(records.teams.map(recordRow))) {
      changed += teamsWritten(
        yield* sql<{ readonly id: string }>`
          INSERT INTO sports_teams (id, sport_id, country_code, name, provider)
          SELECT t.id, t.sport_id, t.country_code, t.name, ${provider}
          FROM json_to_recordset(${JSON.stringify(chunk)}::json)
            AS t(id text, sport_id integer, country_code text, name text)
          LEFT JOIN sports_teams kept ON kept.id = t.id
          WHERE kept.id IS NULL
             OR (kept.sport_id, kept.country_code, kept.name, kept.active) IS DISTINCT FROM (t.sport_id, t.country_code, t.name, true)
          ON CONFLICT (id) DO UPDATE SET
            sport_id = EXCLUDED.sport_id, country_code = EXCLUDED.country_code, name = EXCLUDED.name,
            active = true, updated_at = now()
          WHERE (sports_teams.sport_id, sports_teams.country_code, sports_teams.name, sports_teams.active)
            IS DISTINCT FROM (EXCLUDED.sport_id, EXCLUDED.country_code, EXCLUDED.name, true)
          RETURNING id
        `
      )
    }
    for (const chunk of chunks(records.memberships.map((m) => ({ team_id: m.teamId, league_id: m.leagueId })))) {
      yield* sql`
        INSERT INTO sports_team_leagues (team_id, league_id, provider)
        SELECT m.team_id, m.league_id, ${provider} FROM json_to_recordset(${
        JSON.stringify(chunk)
      }::json) AS m(team_id text, league_id text)
        ON CONFLICT DO NOTHING
      `
    }
    for (const chunk of chunks(records.events)) {
      const rows = chunk.map((event) => ({
        id: event.id,
        sport_id: event.sportId,
        country_code: event.countryCode,
        league_id: event.leagueId,
        league_name: event.leagueName,
        home_team_id: event.homeTeamId,
        home_name: event.homeName,
        away_team_id: event.awayTeamId,
        away_name: event.awayName,
        starts_at: event.startsAt.toISOString(),
        status: event.status,
        reason: event.reason,
        score: event.score,
        minute: event.minute,
        has_odds: event.hasOdds
      }))
      const written = eventsWritten(
        yield* sql<{ readonly id: string }>`
          INSERT INTO sports_events (id, sport_id, country_code, league_id, league_name, home_team_id, home_name,
                                     away_team_id, away_name, starts_at, status, reason, score, minute, has_odds,
                                     provider)
          SELECT e.id, e.sport_id, e.country_code, e.league_id, e.league_name, e.home_team_id, e.home_name,
                 e.away_team_id, e.away_name, e.starts_at, e.status, e.reason, e.score, e.minute, e.has_odds,
                 ${provider}
          FROM json_to_recordset(${JSON.stringify(rows)}::json) AS e(
            id text, sport_id integer, country_code text, league_id text, league_name text, home_team_id text,
            home_name text, away_team_id text, away_name text, starts_at timestamptz, status text, reason jsonb,
            score text, minute integer, has_odds boolean)
          LEFT JOIN sports_events kept ON kept.id = e.id
          WHERE kept.id IS NULL
             OR (kept.sport_id, kept.country_code, kept.league_id, kept.league_name, kept.home_team_id, kept.home_name,
                 kept.away_team_id, kept.away_name, kept.starts_at, kept.status, kept.reason, kept.score, kept.minute,
                 kept.has_odds, kept.active)
               IS DISTINCT FROM (e.sport_id, e.country_code, e.league_id, e.league_name, e.home_team_id, e.home_name,
                 e.away_team_id, e.away_name, e.starts_at, e.status, e.reason, e.score, e.minute, e.has_odds, true)
          ON CONFLICT (id) DO UPDATE SET
            sport_id = EXCLUDED.sport_id, country_code = EXCLUDED.country_code, league_id = EXCLUDED.league_id,
            league_name = EXCLUDED.league_name, home_team_id = EXCLUDED.home_team_id,
            home_name = EXCLUDED.home_name, away_team_id = EXCLUDED.away_team_id, away_name = EXCLUDED.away_name,
            starts_at = EXCLUDED.starts_at, status = EXCLUDED.status, reason = EXCLUDED.reason, score = EXCLUDED.score,
            minute = EXCLUDED.minute, has_odds = EXCLUDED.has_odds, active = true, last_update = now()
          WHERE (sports_events.sport_id, sports_events.country_code, sports_events.league_id,
                 sports_events.league_name, sports_events.home_team_id, sports_events.home_name,
                 sports_events.away_team_id, sports_events.away_name, sports_events.starts_at,
                 sports_events.status, sports_events.reason, sports_events.score, sports_events.minute,
                 sports_events.has_odds, sports_events.active)
            IS DISTINCT FROM (EXCLUDED.sport_id, EXCLUDED.country_code, EXCLUDED.league_id, EXCLUDED.league_name,
                 EXCLUDED.home_team_id, EXCLUDED.home_name, EXCLUDED.away_team_id, EXCLUDED.away_name,
                 EXCLUDED.starts_at, EXCLUDED.status, EXCLUDED.reason, EXCLUDED.score, EXCLUDED.minute,
                 EXCLUDED.has_odds, true)
          RETURNING id
        `
      )
      changed += written
      eventsMoved += written
    }
    if (!scope.liveOnly) {
      // Events the provider no longer lists before or during play (removed, cancelled) go inactive.
      const sportIds = JSON.stringify(scope.sportIds)
      const seen = JSON.stringify(snapshot.events.map((event) => event.id))
      const gone = eventsWritten(
        yield* sql<{ readonly id: string }>`
          UPDATE sports_events SET active = false, last_update = now()
          WHERE active AND status IN ('prematch', 'live')
            AND sport_id IN (SELECT json_array_elements_text(${sportIds}::json)::integer)
            AND id NOT IN (SELECT json_array_elements_text(${seen}::json))
          RETURNING id
        `
      )
      deactivated += gone
      eventsMoved += gone
      deactivated += teamsWritten(
        yield* sql<{ readonly id: string }>`
          UPDATE sports_teams SET active = false, updated_at = now()
          WHERE active AND sport_id IN (SELECT json_array_elements_text(${sportIds}::json)::integer)
            AND id NOT IN (SELECT json_array_elements_text(${
          JSON.stringify(records.teams.map((team) => team.id))
        }::json))
          RETURNING id
        `
      )
    }
  }

  // A sport or a country is active while one of its leagues is.
  sportsWritten(
    yield* sql<{ readonly id: number }>`
      UPDATE sports_sports s SET active = x.active, updated_at = now()
      FROM (SELECT s2.id, EXISTS (SELECT 1 FROM sports_leagues l WHERE l.sport_id = s2.id AND l.active) AS active
            FROM sports_sports s2) x
      WHERE x.id = s.id AND s.active IS DISTINCT FROM x.active
      RETURNING s.id
    `
  )
  countriesWritten(
    yield* sql<{ readonly id: string }>`
      UPDATE sports_countries c SET active = x.active, updated_at = now()
      FROM (SELECT c2.code, EXISTS (SELECT 1 FROM sports_leagues l WHERE l.country_code = c2.code AND l.active) AS active
            FROM sports_countries c2) x
      WHERE x.code = c.code AND c.active IS DISTINCT FROM x.active
      RETURNING c.code AS id
    `
  )

  // The feeds' totals, as the events now stand, in this transaction (sql/0040): again when an event was written or
  // left (another provider's world too), or when a write other than a publish left them stale.
  yield* sql`SELECT sports_feed_totals_keep(${eventsMoved + removed > 0})`

  // Delivered at commit: every instance forgets its cached reads once the new catalog is visible.
  if (changed + deactivated + removed > 0) yield* ChangeFeed.announce(sportsCatalogChangedChannel)

  return {
    report: publishReportOf(records, { changed, deactivated }),
    touched: {
      sport: [...touched.sport],
      country: [...touched.country],
      league: [...touched.league],
      team: [...touched.team],
      event: [...touched.event]
    },
    removed
  }
})

/**
 * Gives each record a publish wrote its position, drawn for it from `first` on (CatalogChanges.positions, in the
 * publish's transaction, holding the log's lock to its commit; domain/SportsCatalogSync.positionsFrom): an event one
 * in each feed it is open in now or was at its last position there. A publish that replaced another provider's
 * world marks where this one began.
 */
const stampPublished = Effect.fnUntraced(function*(published: Published, first: number) {
  const sql = yield* SqlClient.SqlClient
  const { events, records } = positionsFrom(published.touched, first)
  for (const chunk of chunks(records)) {
    yield* sql`
      INSERT INTO sports_catalog_positions (record, id, position)
      SELECT r.kind, r.id, r.position FROM json_to_recordset(${JSON.stringify(chunk)}::json)
        AS r(kind text, id text, position bigint)
      ON CONFLICT (record, id) DO UPDATE SET position = EXCLUDED.position
    `
  }
  // domain/SportsCatalogSync.feedsChanged, over the events as they now stand and their positions in each feed.
  for (const chunk of chunks(events)) {
    yield* sql`
      INSERT INTO sports_catalog_positions (record, id, position, listed)
      SELECT f.feed, r.id, CASE f.feed WHEN 'prematch' THEN r.prematch ELSE r.live END,
             COALESCE(e.active AND e.status = f.feed, false)
      FROM json_to_recordset(${JSON.stringify(chunk)}::json) AS r(id text, prematch bigint, live bigint)
      CROSS JOIN (VALUES ('prematch'), ('live')) AS f(feed)
      LEFT JOIN sports_events e ON e.id = r.id
      LEFT JOIN sports_catalog_positions was ON was.record = f.feed AND was.id = r.id
      WHERE (e.active AND e.status = f.feed) OR was.listed
      ON CONFLICT (record, id) DO UPDATE SET position = EXCLUDED.position, listed = EXCLUDED.listed
    `
  }
  if (published.removed > 0) yield* sql`UPDATE sports_catalog_world SET since_floor = ${first}`
})

/**
 * A publish whole, inside the caller's transaction: the catalog's own writes, then what changed for the live stream
 * (CatalogChanges), then the positions of the records written, drawn holding the log's lock to the commit.
 */
export const publishWithPositions = Effect.fnUntraced(
  function*(snapshot: Snapshot, changes: CatalogChanges["Service"]) {
    const published = yield* publishSnapshot(snapshot)
    yield* changes.published(snapshot)
    const count = positionsFor(published.touched)
    if (count > 0 || published.removed > 0) {
      const first = yield* changes.positions(Math.max(count, 1))
      if (first === undefined) return yield* Effect.die("The change log drew no positions for a publish")
      yield* stampPublished(published, first)
    }
    return published.report
  }
)
