-- Statistics samples (StatSamplesRepo): a provider that answers an event's statistics as running totals
-- (API-Football) is sampled each time a live fixture is read, so the stats trend can show how they moved, after
-- the match too. One row per minute of an event's match: a later sample of the minute replaces it, an older one
-- arriving late does not (sampled_at). `stats` is an object of at most 32 names to integers ≥ 0 (the rules'
-- bounds, src/domain/StatSamples.ts). Samples are kept 30 days, pruned daily by sampled_at.
CREATE TABLE sports_stat_samples (
  provider   text NOT NULL CHECK (char_length(provider) BETWEEN 1 AND 32),
  event_id   text NOT NULL CHECK (char_length(event_id) BETWEEN 1 AND 64),
  minute     integer NOT NULL CHECK (minute BETWEEN 0 AND 200),
  stats      jsonb NOT NULL CHECK (jsonb_typeof(stats) = 'object'),
  sampled_at timestamptz NOT NULL,
  PRIMARY KEY (provider, event_id, minute)
);
CREATE INDEX sports_stat_samples_by_time ON sports_stat_samples (sampled_at);
