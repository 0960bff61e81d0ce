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
-- Feeds: one status at a time, by sport (or league, country, team), in kick-off order.
CREATE INDEX sports_events_by_sport ON sports_events (status, sport_id, starts_at, id) WHERE active;
CREATE INDEX sports_events_by_league ON sports_events (league_id, status, starts_at) WHERE active;
CREATE INDEX sports_events_by_country ON sports_events (country_code, status, starts_at) WHERE active;
CREATE INDEX sports_events_by_home ON sports_events (home_team_id, starts_at) WHERE active;
CREATE INDEX sports_events_by_away ON sports_events (away_team_id, starts_at) WHERE active;
CREATE INDEX sports_events_by_update ON sports_events (status, last_update) WHERE active;
CREATE INDEX sports_events_search ON sports_events USING gin (search_text gin_trgm_ops);
