-- Several aggregators at once (issue 35): a studio two of them offer is served by one. Studios are matched by name
-- with case, spaces and punctuation ignored (src/domain/Studios.ts); the operator adds what the names alone miss
-- (aliases) and may choose which aggregator serves a shared studio (default: the first in CASINO_GATEWAY).
-- Keys are studio keys: the name lower-cased, letters and digits only ("PG Soft" is 'pgsoft').

-- Which aggregator serves a studio, when the operator chose; no row: the first in CASINO_GATEWAY that offers it.
CREATE TABLE casino_studio_servers (
  studio     text PRIMARY KEY CHECK (studio <> ''),
  aggregator text NOT NULL CHECK (aggregator IN ('playfiver', 'sandbox', 'hub88')),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A provider name's key taken as another studio's ('pgsoftgames' is 'pgsoft').
CREATE TABLE casino_studio_aliases (
  alias      text PRIMARY KEY CHECK (alias <> ''),
  studio     text NOT NULL CHECK (studio <> '' AND studio <> alias),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- When each aggregator's catalogue was last synced (what the console and /status show).
CREATE TABLE casino_aggregator_syncs (
  aggregator text PRIMARY KEY CHECK (aggregator IN ('playfiver', 'sandbox', 'hub88')),
  synced_at  timestamptz NOT NULL
);
