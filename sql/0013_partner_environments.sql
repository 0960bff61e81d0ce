-- A partner's two environments, live and test: each with its own token, callback URL and webhook secret.
-- `live` reaches the real upstreams and the partner's real wallet; `test` only the sandboxes.

CREATE TABLE partner_environments (
  partner_id                    bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  environment                   text NOT NULL CHECK (environment IN ('live', 'test')),
  callback_url                  text CHECK (callback_url IS NULL OR callback_url ~ '^https?://'),
  -- Kept as is, since each callback needs it; shown once (creation, rotation).
  webhook_secret                text NOT NULL
    DEFAULT 'whsec_' || replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''),
  previous_webhook_secret       text,
  previous_webhook_secret_until timestamptz,
  CHECK ((previous_webhook_secret IS NULL) = (previous_webhook_secret_until IS NULL)),
  PRIMARY KEY (partner_id, environment)
);

-- Only the SHA-256 of a token is stored; the token itself is shown once. One token per environment: a
-- rotation replaces it. An environment may have none yet (a partner created before environments has
-- no test token until one is issued).
CREATE TABLE partner_tokens (
  partner_id  bigint NOT NULL,
  environment text NOT NULL,
  token_hash  bytea NOT NULL CHECK (length(token_hash) = 32),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partner_id, environment),
  FOREIGN KEY (partner_id, environment) REFERENCES partner_environments (partner_id, environment) ON DELETE CASCADE
);
CREATE UNIQUE INDEX partner_tokens_token_hash_key ON partner_tokens (token_hash);

-- Today's settings are the live environment's: tokens issued before stay live and keep working, callbacks
-- keep their URL and secrets (a rotation's overlap included).
INSERT INTO partner_environments
  (partner_id, environment, callback_url, webhook_secret, previous_webhook_secret, previous_webhook_secret_until)
SELECT id, 'live', callback_url, webhook_secret, previous_webhook_secret, previous_webhook_secret_until FROM partners;
INSERT INTO partner_tokens (partner_id, environment, token_hash, created_at)
SELECT id, 'live', token_hash, created_at FROM partners;

-- Every partner gets a test environment with a new secret of its own, no callback URL (the sandbox's
-- partner wallet answers) and no token: tokens are shown once, so it is issued by a rotation.
INSERT INTO partner_environments (partner_id, environment) SELECT id, 'test' FROM partners;

ALTER TABLE partners
  DROP COLUMN token_hash,
  DROP COLUMN callback_url,
  DROP COLUMN webhook_secret,
  DROP COLUMN previous_webhook_secret,
  DROP COLUMN previous_webhook_secret_until;
