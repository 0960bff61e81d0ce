-- The local sports catalog, refreshed from the sports provider and read by
-- the catalog lists, the dynamic filters and the feeds. Ids are the
-- provider's. A record the provider stops listing (within what a refresh
-- covered) is kept, marked inactive.

CREATE TABLE sports_sports (
  id         integer PRIMARY KEY,
  name       text NOT NULL,
  active     boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sports_countries (
  code       text PRIMARY KEY,
  name       text NOT NULL,
  active     boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sports_leagues (
  id           text PRIMARY KEY,
  sport_id     integer NOT NULL,
  country_code text,
  name         text NOT NULL,
  active       boolean NOT NULL DEFAULT true,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  search_text  text GENERATED ALWAYS AS (lower(name)) STORED
);
CREATE INDEX sports_leagues_listing ON sports_leagues (sport_id, country_code, name);
CREATE INDEX sports_leagues_name ON sports_leagues (name, id);
CREATE INDEX sports_leagues_search ON sports_leagues USING gin (search_text gin_trgm_ops);

CREATE TABLE sports_teams (
  id           text PRIMARY KEY,
  sport_id     integer NOT NULL,
  country_code text,
  name         text NOT NULL,
  active       boolean NOT NULL DEFAULT true,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  search_text  text GENERATED ALWAYS AS (lower(name)) STORED
);
CREATE INDEX sports_teams_listing ON sports_teams (sport_id, country_code, name);
CREATE INDEX sports_teams_name ON sports_teams (name, id);
CREATE INDEX sports_teams_search ON sports_teams USING gin (search_text gin_trgm_ops);

-- Events carry their league's and teams' names, so feeds filter and sort
-- on one table at any size.
CREATE TABLE sports_events (
  id           text PRIMARY KEY,
  sport_id     integer NOT NULL,
  country_code text,
  league_id    text NOT NULL,
  league_name  text NOT NULL,
  home_team_id text NOT NULL,
  home_name    text NOT NULL,
  away_team_id text NOT NULL,
  away_name    text NOT NULL,
  starts_at    timestamptz NOT NULL,
  status       text NOT NULL CHECK (status IN ('prematch', 'live', 'ended', 'postponed', 'cancelled', 'interrupted')),
  score        text,
  minute       integer,
  has_odds     boolean NOT NULL DEFAULT false,
  active       boolean NOT NULL DEFAULT true,
  last_update  timestamptz NOT NULL DEFAULT now(),
  search_text  text GENERATED ALWAYS AS (lower(league_name || ' ' || home_name || ' ' || away_name)) STORED
);
-- The feeds read open events only (prematch and in play), so their indexes
-- cover open events only: the history of ended games grows beside them
-- without slowing the feeds or the writes. Each one carries the columns the
-- filters test, so a total, a dynamic filter or the choice of a page in any
-- sort order is an index-only scan; only the page's own rows are then read.
CREATE INDEX sports_events_open ON sports_events (status, starts_at, id)
  INCLUDE (sport_id, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');
-- By sport, with the search text: a sport's totals and any search stay index-only
-- (a search across sports reads all of this index, still without the table).
CREATE INDEX sports_events_open_by_sport ON sports_events (status, sport_id, starts_at, id)
  INCLUDE (search_text, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_country ON sports_events (status, country_code, starts_at)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_league_name ON sports_events (status, league_name, starts_at, id)
  INCLUDE (sport_id, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_home_name ON sports_events (status, home_name, starts_at, id)
  INCLUDE (sport_id, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_away_name ON sports_events (status, away_name, starts_at, id)
  INCLUDE (sport_id, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_update ON sports_events (status, last_update, starts_at, id)
  INCLUDE (sport_id, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');
-- A league's or a team's fixtures.
CREATE INDEX sports_events_open_by_league ON sports_events (status, league_id, starts_at)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_home ON sports_events (status, home_team_id, starts_at)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_away ON sports_events (status, away_team_id, starts_at)
  WHERE active AND status IN ('prematch', 'live');

-- Which teams have played in which leagues (any event, history included),
-- for the leagues of a team and the teams of a league.
CREATE TABLE sports_team_leagues (
  team_id   text NOT NULL,
  league_id text NOT NULL,
  PRIMARY KEY (team_id, league_id)
);
CREATE INDEX sports_team_leagues_by_league ON sports_team_leagues (league_id, team_id);

-- Index-only scans need the visibility map current; refreshes rewrite open
-- events often, so vacuum after 2% of the table changed rather than 20%.
ALTER TABLE sports_events SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02,
                               autovacuum_analyze_scale_factor = 0.02);
