-- The sandbox closes the wallet loop on the embedded default: its
-- aggregator calls the wallet endpoint with credentials of its own, and a
-- demo partner wallet answers the callbacks (the demo partner's
-- callback_url), so a spin on the sandbox game page moves money end to end.

-- Secrets the service generates for itself, shared by every instance on the database.
CREATE TABLE service_secrets (
  name  text PRIMARY KEY,
  value text NOT NULL
);
INSERT INTO service_secrets (name, value)
VALUES ('sandbox_agent_secret', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));

ALTER TABLE sandbox_casino_sessions ADD COLUMN spins integer NOT NULL DEFAULT 0;

-- The demo partner's own books: its players' balances, and the callbacks it
-- answered (by event id, so a repeated event gets the same answer).
CREATE TABLE sandbox_partner_wallets (
  partner_id         bigint NOT NULL REFERENCES partners (id),
  external_player_id text NOT NULL,
  balance            numeric(20, 2) NOT NULL CHECK (balance >= 0),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partner_id, external_player_id)
);
CREATE TABLE sandbox_partner_events (
  event_id    text PRIMARY KEY,
  partner_id  bigint NOT NULL REFERENCES partners (id),
  received_at timestamptz NOT NULL DEFAULT now(),
  headers     jsonb NOT NULL,
  body        text NOT NULL,
  answer      jsonb NOT NULL
);
