-- Results with a life cycle (issue 39): the change log's event records speak the life cycle's statuses
-- (scheduled, live, final, postponed, cancelled, abandoned, suspended) with the provider's reason, and the
-- service keeps its own record of each final result, so when it first saw an event final and when a result was
-- corrected after that are the same on every instance and survive a restart.

-- The records the log holds, in the new words (an event removed or ended keeps its record three days). The
-- catalog's sports_events keeps its own words: its feeds' indexes are written in them (SportsCatalogPublish.ts).
UPDATE sports_stream_events SET status = CASE status
  WHEN 'prematch' THEN 'scheduled'
  WHEN 'ended' THEN 'final'
  WHEN 'interrupted' THEN 'suspended'
  ELSE status
END
WHERE status IN ('prematch', 'ended', 'interrupted');
ALTER TABLE sports_stream_events
  ADD CHECK (status IN ('scheduled', 'live', 'final', 'postponed', 'cancelled', 'abandoned', 'suspended')),
  -- Why the event has its status, where the provider says so: {"code": "PST", "text": "Match Postponed"}.
  ADD COLUMN reason jsonb,
  -- When the service first saw the event final (none while it is not).
  ADD COLUMN final_at timestamptz;
UPDATE sports_stream_events SET final_at = answered_at WHERE status = 'final';

-- Each final result the service saw, by provider: the first time it saw the event final, and the last correction
-- (when, and the result it replaced). Written under the change log's lock (ChangeRecorder), read by the result
-- endpoint; kept 30 days after its last change.
CREATE TABLE sports_results (
  provider            text NOT NULL,
  event_id            text NOT NULL,
  home_score          integer NOT NULL,
  away_score          integer NOT NULL,
  winner              text NOT NULL CHECK (winner IN ('home', 'away', 'draw')),
  final_at            timestamptz NOT NULL,
  corrected_at        timestamptz,
  previous_home_score integer,
  previous_away_score integer,
  previous_winner     text CHECK (previous_winner IN ('home', 'away', 'draw')),
  -- When the provider gave the answer the result came from: an older answer (a cache's) never undoes it.
  answered_at         timestamptz NOT NULL,
  PRIMARY KEY (provider, event_id),
  CHECK (
    (corrected_at IS NULL) = (previous_home_score IS NULL) AND (corrected_at IS NULL) = (previous_away_score IS NULL)
      AND (corrected_at IS NULL) = (previous_winner IS NULL)
  )
);
CREATE INDEX sports_results_by_change ON sports_results ((coalesce(corrected_at, final_at)));
COMMENT ON TABLE sports_results IS
  'ResultRecords: the service''s record of each final result (first seen final, last correction); written with the change log.';
