-- The catalog's ids are its sports provider's (BetsAPI event 123 is not API-Football fixture 123), so its rows now
-- say whose they are: a deployment switched from one provider to another never mixes the two id spaces. The catalog
-- holds one provider's world at a time (a publish by another provider removes the old world in its own transaction),
-- so the keys stay as they were and reads need no provider filter. Sports and countries are the service's own
-- numbering and ISO codes, shared by every provider: they carry none.

-- Which provider's world the catalog holds: one row, read by every publish (a glance, never a scan of the events)
-- to tell whether the old world must leave first.
CREATE TABLE sports_catalog_world (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  provider  text NOT NULL
);

-- The rows already there are the provider's whose changes the log (0019, 0023) recorded last; positions are drawn
-- in commit order, so the highest is the newest. The sandbox's test world (the catalog test tokens read, in each
-- instance's memory) writes to the same log on every deployment, so a row of another provider wins over a newer
-- `sandbox` one: only a deployment that streams nothing but the sandbox holds the sandbox's world. An empty log
-- says nothing: `unknown`, which the first publish replaces (its provider's world is imported whole). The database
-- setting `partner_api.sports_provider`, when an operator set it before upgrading (docs/operators.md), wins over both.
INSERT INTO sports_catalog_world (provider)
VALUES (COALESCE(
  nullif(current_setting('partner_api.sports_provider', true), ''),
  (SELECT provider FROM sports_changes WHERE provider <> 'sandbox' ORDER BY position DESC LIMIT 1),
  (SELECT provider FROM sports_changes ORDER BY position DESC LIMIT 1),
  'unknown'
));

-- Each row carries its provider. Added with that provider as a constant default, the column costs no rewrite of the
-- tables (PostgreSQL keeps the value in the catalog for the rows already there); the default is then dropped, so
-- every write names its provider.
DECLARE
  held text := (SELECT provider FROM sports_catalog_world);
  catalog_table text;
BEGIN
  FOREACH catalog_table IN ARRAY ARRAY['sports_leagues', 'sports_teams', 'sports_events', 'sports_team_leagues'] LOOP
    EXECUTE format('ALTER TABLE %I ADD COLUMN provider text NOT NULL DEFAULT %L', catalog_table, held);
    EXECUTE format('ALTER TABLE %I ALTER COLUMN provider DROP DEFAULT', catalog_table);
  END LOOP;
END;
