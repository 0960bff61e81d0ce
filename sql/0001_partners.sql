-- Partners: the operators that call the gateway with a token.
-- Only the SHA-256 of a token is stored; the token itself is shown once.
CREATE TABLE partners (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name               text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  slug               text NOT NULL CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND length(slug) <= 100),
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  commission_percent numeric(5, 2) NOT NULL DEFAULT 0 CHECK (commission_percent BETWEEN 0 AND 100),
  callback_url       text CHECK (callback_url IS NULL OR callback_url ~ '^https?://'),
  token_hash         bytea NOT NULL CHECK (length(token_hash) = 32),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX partners_slug_key ON partners (slug);
CREATE UNIQUE INDEX partners_token_hash_key ON partners (token_hash);
