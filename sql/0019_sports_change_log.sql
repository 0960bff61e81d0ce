-- The live sports change stream (GET /sports/stream): every change the catalog's refreshes and the odds
-- reads see, written once, in the transaction that saw it, to one log ordered by one sequence. A position
-- is an event's id on the stream; every instance serves the same log, so a client resumes on any of them.

-- The log. `world` is the sports world a change belongs to (the provider's name: `betsapi`, `sandbox`), so a
-- test token (always the sandbox world) and a live token never see each other's changes. `data` is the
-- stream's own JSON for the change, written once, so serving it to thousands of streams is a copy.
-- Every writer takes the log's advisory lock before it draws a position and holds it to its commit: the
-- order of positions is the order of commits, and a reader that has seen a position has seen every lower
-- one that will ever commit (CACHE 1 keeps every session drawing from the one sequence in that order).
CREATE TABLE sports_changes (
  position    bigint GENERATED ALWAYS AS IDENTITY (CACHE 1) PRIMARY KEY,
  world       text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('event', 'score', 'odds', 'result')),
  event_id    text NOT NULL,
  sport_id    integer NOT NULL,
  league_id   text NOT NULL,
  data        json NOT NULL,
  -- Drawn under the lock, so it grows with the position: the retention prunes by it.
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX sports_changes_by_world ON sports_changes (world, position);
CREATE INDEX sports_changes_by_time ON sports_changes (recorded_at);

-- The highest position pruned (STREAM_RETENTION): a client resuming below it missed changes and is reset.
CREATE TABLE sports_change_floor (
  singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  pruned_through bigint NOT NULL DEFAULT 0
);
INSERT INTO sports_change_floor DEFAULT VALUES;

-- What the log last said of each event of a world, to tell what a refresh changes (whatever keeps the
-- catalog: PostgreSQL for the live world, each instance's memory for a test world beside BetsAPI).
-- `answered_at` is when the provider gave that answer: an older answer (a cache's) never undoes it.
CREATE TABLE sports_stream_events (
  world       text NOT NULL,
  event_id    text NOT NULL,
  sport_id    integer NOT NULL,
  league_id   text NOT NULL,
  league_name text NOT NULL,
  home_name   text NOT NULL,
  away_name   text NOT NULL,
  starts_at   timestamptz NOT NULL,
  status      text NOT NULL,
  active      boolean NOT NULL,
  score       text,
  minute      integer,
  answered_at timestamptz NOT NULL,
  -- A digest of the facts above (SportsChanges.eventFacts): a refresh of 100,000 events sends 100,000
  -- digests and reads back only the events whose facts moved.
  fingerprint text NOT NULL,
  PRIMARY KEY (world, event_id)
);

-- Each market's last prices, pre-match and in play apart. `answered_at` moves with every answer that
-- carries the market, changed or not: a market no answer has carried for STREAM_STALE_AFTER is suspended.
CREATE TABLE sports_stream_markets (
  world       text NOT NULL,
  event_id    text NOT NULL,
  in_play     boolean NOT NULL,
  market_key  text NOT NULL,
  name        text NOT NULL,
  odds        jsonb NOT NULL,
  suspended   boolean NOT NULL,
  reason      text CHECK (reason IN ('stale', 'withdrawn')),
  quoted_at   timestamptz,
  answered_at timestamptz NOT NULL,
  PRIMARY KEY (world, event_id, in_play, market_key)
);
CREATE INDEX sports_stream_markets_open ON sports_stream_markets (answered_at) WHERE NOT suspended;

-- Open streams, fleet-wide, for STREAM_MAX_CONNECTIONS_PER_PARTNER: one row per stream, renewed by the
-- instance serving it; a crashed instance's rows expire on their own.
CREATE TABLE sports_stream_connections (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  partner_id  bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  instance    text NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX sports_stream_connections_by_partner ON sports_stream_connections (partner_id, environment);
CREATE INDEX sports_stream_connections_by_instance ON sports_stream_connections (instance);
