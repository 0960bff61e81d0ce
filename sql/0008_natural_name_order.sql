-- Names sort as people read them: without regard to case, numbers by their
-- value ("Team 2" before "Team 10"), so "A. de Minaur" comes before
-- "A. Sabalenka" (byte order put every capital letter first). The collation
-- is deterministic: names that differ only in case still have one fixed
-- order (byte order breaks the tie), and equality, LIKE and unique keys keep
-- their meaning. Queries sort with `COLLATE natural_ci`; each index a sort
-- by name walks is rebuilt with it, so those sorts stay index-backed.
CREATE COLLATION natural_ci (provider = icu, locale = 'und-u-ks-level2-kn-true');

DROP INDEX sports_leagues_listing;
DROP INDEX sports_leagues_name;
CREATE INDEX sports_leagues_listing ON sports_leagues (sport_id, country_code, name COLLATE natural_ci);
CREATE INDEX sports_leagues_name ON sports_leagues (name COLLATE natural_ci, id);

DROP INDEX sports_teams_listing;
DROP INDEX sports_teams_name;
CREATE INDEX sports_teams_listing ON sports_teams (sport_id, country_code, name COLLATE natural_ci);
CREATE INDEX sports_teams_name ON sports_teams (name COLLATE natural_ci, id);

DROP INDEX sports_events_open_by_league_name;
DROP INDEX sports_events_open_by_home_name;
DROP INDEX sports_events_open_by_away_name;
CREATE INDEX sports_events_open_by_league_name ON sports_events (status, league_name COLLATE natural_ci, starts_at, id)
  INCLUDE (sport_id, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_home_name ON sports_events (status, home_name COLLATE natural_ci, starts_at, id)
  INCLUDE (sport_id, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');
CREATE INDEX sports_events_open_by_away_name ON sports_events (status, away_name COLLATE natural_ci, starts_at, id)
  INCLUDE (sport_id, country_code, league_id, home_team_id, away_team_id, has_odds)
  WHERE active AND status IN ('prematch', 'live');

DROP INDEX casino_games_listing;
CREATE INDEX casino_games_listing ON casino_games (provider_id, name COLLATE natural_ci, game_code);
