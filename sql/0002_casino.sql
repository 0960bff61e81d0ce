-- The local casino catalog, synced from the casino aggregator.
-- A row is enabled when the aggregator lists it as active (upstream_enabled,
-- present_upstream) and the operator has not switched it off (operator_enabled):
-- a sync never overrides the operator, and a game that disappears upstream is
-- kept, marked absent.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE casino_providers (
  id               integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  slug             text NOT NULL UNIQUE,
  upstream_code    text NOT NULL UNIQUE,
  name             text NOT NULL,
  image_url        text,
  upstream_enabled boolean NOT NULL DEFAULT true,
  present_upstream boolean NOT NULL DEFAULT true,
  operator_enabled boolean NOT NULL DEFAULT true,
  synced_at        timestamptz NOT NULL DEFAULT now(),
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE casino_games (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  provider_id      integer NOT NULL REFERENCES casino_providers (id),
  game_code        text NOT NULL,
  name             text NOT NULL,
  image_url        text,
  original         boolean NOT NULL DEFAULT true,
  upstream_enabled boolean NOT NULL DEFAULT true,
  present_upstream boolean NOT NULL DEFAULT true,
  operator_enabled boolean NOT NULL DEFAULT true,
  synced_at        timestamptz NOT NULL DEFAULT now(),
  created_at       timestamptz NOT NULL DEFAULT now(),
  -- What `search` matches: code and name, lowercased once at write time.
  search_text      text GENERATED ALWAYS AS (lower(game_code || ' ' || name)) STORED,
  UNIQUE (provider_id, game_code)
);

CREATE INDEX casino_games_listing ON casino_games (provider_id, name, game_code);
CREATE INDEX casino_games_search ON casino_games USING gin (search_text gin_trgm_ops);

-- A partner's players. internal_user_id is the user code sent to the aggregator.
CREATE SEQUENCE partner_players_internal_user_id_seq START 100001;

CREATE TABLE partner_players (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partner_id         bigint NOT NULL REFERENCES partners (id),
  external_player_id text NOT NULL,
  internal_user_id   bigint NOT NULL UNIQUE DEFAULT nextval('partner_players_internal_user_id_seq'),
  name               text,
  email              text,
  balance            numeric(20, 2) NOT NULL CHECK (balance >= 0),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (partner_id, external_player_id)
);
ALTER SEQUENCE partner_players_internal_user_id_seq OWNED BY partner_players.internal_user_id;

-- Launch sessions of the sandbox aggregator (the embedded demo casino).
CREATE TABLE sandbox_casino_sessions (
  id          text PRIMARY KEY,
  user_code   bigint NOT NULL,
  game_code   text NOT NULL,
  provider    text NOT NULL,
  player_name text,
  balance     numeric(20, 2) NOT NULL,
  lang        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_casino_sessions_created ON sandbox_casino_sessions (created_at);

-- What partners see: a row is enabled only when its provider is too.
CREATE VIEW casino_providers_status AS
SELECT p.*, (p.operator_enabled AND p.upstream_enabled AND p.present_upstream) AS enabled
FROM casino_providers p;

CREATE VIEW casino_games_status AS
SELECT g.*,
       p.slug AS provider_slug,
       p.upstream_code AS provider_upstream_code,
       (g.operator_enabled AND g.upstream_enabled AND g.present_upstream AND p.enabled) AS enabled
FROM casino_games g
JOIN casino_providers_status p ON p.id = g.provider_id;
