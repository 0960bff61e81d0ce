-- Sync since a position (issue 39, `?since=` on the catalog's lists and feeds): every record of the catalog carries
-- the position of the change log (0019) at which a publish last changed it, so a partner that read a list as of one
-- position reads what changed after it. Positions are the stream's own: drawn from the log's sequence under the log's
-- lock, held to the publish's commit, so they commit in order (a reader that has seen position n has seen every
-- record stamped at or below it). Each record changed gets a position of its own, so a partner can page through
-- what changed by positions alone (the last one it was given). A position drawn for a record is one the log holds
-- no change at: the log's head counts it (drawn_through), so the stream and a since read agree on where the log is.

-- One row per record of the catalog: `record` says which list holds `id` (a sport's integer id as text). An event is
-- a record of each feed it is or was open in (`prematch`, `live`), with a position of its own there: a change of an
-- event in play is no change of the pre-match feed, so a pre-match sync does not hear of its every minute, while one
-- that leaves a feed is a change of it (its last there), so a sync that held it hears it left.
CREATE TABLE sports_catalog_positions (
  record   text NOT NULL CHECK (record IN ('sport', 'country', 'league', 'team', 'prematch', 'live')),
  id       text NOT NULL,
  position bigint NOT NULL,
  -- A feed's event: whether it was open in the feed as of `position` (a later change is the feed's only if it is open
  -- in it then, or was).
  listed   boolean,
  PRIMARY KEY (record, id)
);
CREATE INDEX sports_catalog_positions_by_position ON sports_catalog_positions (record, position);
COMMENT ON TABLE sports_catalog_positions IS
  'SportsCatalogRepo: the change log position at which each catalog record last changed (written by each publish).';

-- Positions drawn for records rather than for changes: the head is the highest of the last change, the floor and this.
ALTER TABLE sports_change_floor ADD COLUMN drawn_through bigint NOT NULL DEFAULT 0;

-- Where the catalog's world began (the first position of the publish that replaced another provider's world): a since
-- read from before it cannot say which records left with the old world, and is answered as a lost position.
ALTER TABLE sports_catalog_world ADD COLUMN since_floor bigint NOT NULL DEFAULT 0;

-- The records already there get positions of their own, drawn now, under the log's lock (a writer of an instance not
-- yet upgraded takes turns with this), after every position already given: a partner holding any position of the
-- log is sent them once.
DECLARE
  sequence_name text := pg_get_serial_sequence('sports_changes', 'position');
  records bigint;
  first bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('partner-api:sports-changes'));
  CREATE TEMPORARY TABLE catalog_records ON COMMIT DROP AS
    SELECT 1 AS kind, 'sport' AS record, id::text AS id, NULL::boolean AS listed FROM sports_sports
    UNION ALL SELECT 2, 'country', code, NULL FROM sports_countries
    UNION ALL SELECT 3, 'league', id, NULL FROM sports_leagues
    UNION ALL SELECT 4, 'team', id, NULL FROM sports_teams
    UNION ALL SELECT 5, status, id, true FROM sports_events WHERE active AND status IN ('prematch', 'live');
  records := (SELECT count(*) FROM catalog_records);
  IF records > 0 THEN
    first := nextval(sequence_name);
    PERFORM setval(sequence_name, first + records - 1);
    INSERT INTO sports_catalog_positions (record, id, position, listed)
    SELECT record, id, first + row_number() OVER (ORDER BY kind, id COLLATE "C") - 1, listed FROM catalog_records;
    UPDATE sports_change_floor SET drawn_through = first + records - 1;
  END IF;
END;
