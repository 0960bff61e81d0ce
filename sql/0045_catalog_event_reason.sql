-- The catalog's feeds answer each event's status in the life cycle's words (issue 39): the catalog keeps its own
-- words (its feeds' indexes are written in them), one for each of the life cycle's, so it gains `abandoned` (until
-- now told as `cancelled`: events recorded so far keep that word until the provider lists them again), and the
-- provider's reason where it gives one ({"code": "PST", "text": "Match Postponed"}), read with the row (no join).
ALTER TABLE sports_events
  DROP CONSTRAINT sports_events_status_check,
  ADD CONSTRAINT sports_events_status_check
    CHECK (status IN ('prematch', 'live', 'ended', 'postponed', 'cancelled', 'abandoned', 'interrupted')),
  ADD COLUMN reason jsonb;
