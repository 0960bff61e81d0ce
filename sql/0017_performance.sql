-- Two indexes for the feeds, from EXPLAIN (ANALYZE, BUFFERS) over a catalog of 1,000,000 events (the
-- benchmark's, README "Performance"). Both are partial, over open events only, like the feeds' others.
--
-- A feed's total by sport (or of every open event) counted 39,000 soccer events through the covering
-- sports_events_open_by_sport, whose rows carry search_text and five more columns: 12 to 23 ms. Keyed by
-- status and sport alone, equal keys are stored once (B-tree deduplication): the same count reads a few
-- hundred small pages, 4 to 7 ms.
CREATE INDEX sports_events_open_count ON sports_events (status, sport_id)
  WHERE active AND status IN ('prematch', 'live');

-- A country's events in league order (a country's fixtures listed by league) walked the league-name index
-- and filtered out the other countries' 49,000 rows: about 35 ms for a page. In this order the page is read
-- directly: under 1 ms.
CREATE INDEX sports_events_open_by_country_league_name
  ON sports_events (status, country_code, league_name COLLATE natural_ci, starts_at, id)
  WHERE active AND status IN ('prematch', 'live');
