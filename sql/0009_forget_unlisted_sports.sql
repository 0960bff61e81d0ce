-- A refresh for a sport id the provider did not know left a row such as
-- "Sport 987654" that every partner saw. Refreshes no longer write those;
-- this removes the ones already written: sports with no league and no event.
DELETE FROM sports_sports s
WHERE NOT EXISTS (SELECT 1 FROM sports_leagues l WHERE l.sport_id = s.id)
  AND NOT EXISTS (SELECT 1 FROM sports_events e WHERE e.sport_id = s.id);
