-- Closing lines (ClosingLinesRepo): the last pre-match odds of each market of an event, kept once when the event goes
-- live, readable at GET /sports/events/{eventId}/odds/closing and sent on the change stream as a `closing` change.

-- The stream's new kind of change: an event's closing line.
ALTER TABLE sports_changes DROP CONSTRAINT sports_changes_kind_check;
ALTER TABLE sports_changes ADD CONSTRAINT sports_changes_kind_check
  CHECK (kind IN ('event', 'score', 'odds', 'result', 'closing'));

-- One line per event of a provider, written once (the first writer keeps it; every later one, on any instance, finds it
-- there). `source` is where it came from: `kick_off`, the pre-match markets the change log held when it saw the event
-- go live; `provider`, the provider's pre-match odds asked afterwards (an event already live when first seen, or one
-- whose pre-match odds nobody read). `closed_at` is the kick-off as the service knows it; `quoted_at` the newest
-- provider time among the prices. `markets` is an array of {key, name, odds: [{label, value}]}. Kept 30 days after
-- `closed_at`, pruned daily.
CREATE TABLE sports_closing_lines (
  provider  text NOT NULL CHECK (char_length(provider) BETWEEN 1 AND 32),
  event_id  text NOT NULL,
  sport_id  integer NOT NULL,
  league_id text NOT NULL,
  source    text NOT NULL CHECK (source IN ('kick_off', 'provider')),
  closed_at timestamptz NOT NULL,
  quoted_at timestamptz NOT NULL,
  markets   jsonb NOT NULL CHECK (jsonb_typeof(markets) = 'array'),
  kept_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);
CREATE INDEX sports_closing_lines_by_close ON sports_closing_lines (closed_at);

-- Lines to ask the provider for: written with the change that saw the event go live, claimed by one instance at a
-- time (`due_at` moved past the ask while it runs, so a crashed instance's ask is taken again), retried with a
-- backoff after a failure, removed once a line is kept or the provider says it has none.
CREATE TABLE sports_closing_asks (
  provider  text NOT NULL,
  event_id  text NOT NULL,
  sport_id  integer NOT NULL,
  league_id text NOT NULL,
  closed_at timestamptz NOT NULL,
  attempts  integer NOT NULL DEFAULT 0,
  due_at    timestamptz NOT NULL,
  PRIMARY KEY (provider, event_id)
);
CREATE INDEX sports_closing_asks_due ON sports_closing_asks (provider, due_at);
