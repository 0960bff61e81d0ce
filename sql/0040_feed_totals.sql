-- The feeds' totals that repeat (issue 38): how many open events (prematch, live) each status holds per each
-- grouping of the filters partners combine most (src/domain/SportsFeedTotals.ts names the groupings kept), written
-- by each publish in its own transaction, so a feed page's exact `meta.total` for those filters is a sum of a few
-- rows here instead of a count over the open-events index (tens of thousands of entries for a sport at 1M events).
-- A column is null where the grouping does not name its filter (a `country` row of events without a country too:
-- a country filter never selects those, as in the feeds). Any other filter is counted, as before.
CREATE TABLE sports_feed_totals (
  status       text NOT NULL,
  grouped_by   text NOT NULL,
  sport_id     integer,
  country_code text,
  league_id    text,
  has_odds     boolean,
  day          date,
  total        integer NOT NULL
);
CREATE INDEX sports_feed_totals_lookup ON sports_feed_totals (status, grouped_by, sport_id, league_id, country_code);

-- Whether the summary holds what the events hold. A publish keeps it so; any other write to the events (a test's
-- rows, an operator's fix, a benchmark's load) marks it stale, and the feeds count until the next publish (or
-- sports_feed_totals_keep(true)) writes it again: the total stays exact whoever wrote the events.
CREATE TABLE sports_feed_totals_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  fresh     boolean NOT NULL
);
INSERT INTO sports_feed_totals_state (fresh) VALUES (false);

-- One statement-level trigger per kind of write (no row triggers: a refresh of 100,000 events pays one update of
-- one row per statement at most, and a publish, which keeps the summary itself, says so with a transaction-local
-- setting and pays nothing).
CREATE FUNCTION sports_feed_totals_stale() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('partner_api.catalog_publish', true) IS DISTINCT FROM 'on' THEN
    UPDATE sports_feed_totals_state SET fresh = false WHERE fresh;
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER sports_feed_totals_stale AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sports_events
  FOR EACH STATEMENT EXECUTE FUNCTION sports_feed_totals_stale();

-- Writes the summary again from the open events (an index-only scan of sports_events_open) when `changed` or when
-- it is stale; a publish calls it last, in its transaction, with whether it wrote any event. Readers see the old
-- rows until the commit.
CREATE FUNCTION sports_feed_totals_keep(changed boolean) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT changed AND (SELECT fresh FROM sports_feed_totals_state) THEN
    RETURN;
  END IF;
  DELETE FROM sports_feed_totals;
  INSERT INTO sports_feed_totals (status, grouped_by, sport_id, country_code, league_id, has_odds, day, total)
  SELECT status,
         concat_ws('+',
           CASE WHEN GROUPING(sport_id) = 0 THEN 'sport' END,
           CASE WHEN GROUPING(country_code) = 0 THEN 'country' END,
           CASE WHEN GROUPING(league_id) = 0 THEN 'league' END,
           CASE WHEN GROUPING(has_odds) = 0 THEN 'odds' END,
           CASE WHEN GROUPING(day) = 0 THEN 'day' END),
         sport_id, country_code, league_id, has_odds, day, count(*)::int
  FROM (SELECT status, sport_id, country_code, league_id, has_odds, (starts_at AT TIME ZONE 'UTC')::date AS day
        FROM sports_events WHERE active AND status IN ('prematch', 'live')) e
  GROUP BY GROUPING SETS (
    (status), (status, sport_id), (status, country_code), (status, league_id), (status, has_odds), (status, day),
    (status, sport_id, country_code), (status, sport_id, has_odds), (status, sport_id, day),
    (status, country_code, has_odds), (status, league_id, has_odds), (status, has_odds, day),
    (status, sport_id, has_odds, day)
  );
  UPDATE sports_feed_totals_state SET fresh = true WHERE NOT fresh;
END
$fn$;

PERFORM sports_feed_totals_keep(true);
