-- Wallet certification: runs of cases the service sends to a partner's test wallet (its test callback URL, or the
-- sandbox partner wallet), each case with the exact requests and answers, and the partner setting that requires a
-- passed run before a live token is issued. None of it is the ledger: no wallet or callback row is written by a run.

CREATE TABLE wallet_certifications (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- What partners and operators call the run (`cert_` and 16 hex digits, random): its callbacks' event ids carry it,
  -- so they never meet another run's, on this deployment or another one calling the same test wallet.
  public_id          text NOT NULL UNIQUE CHECK (public_id ~ '^cert_[0-9a-f]{16}$'),
  partner_id         bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  external_player_id text NOT NULL CHECK (length(external_player_id) BETWEEN 1 AND 255),
  callback_url       text NOT NULL,
  started_by         text NOT NULL,
  started_via        text NOT NULL CHECK (started_via IN ('api', 'console', 'cli')),
  status             text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'passed', 'failed', 'interrupted')),
  summary            text,
  timeout_ms         integer NOT NULL CHECK (timeout_ms > 0),
  started_at         timestamptz NOT NULL DEFAULT now(),
  -- Touched by every case that finishes: a run whose instance died stops being touched, and is then interrupted.
  updated_at         timestamptz NOT NULL DEFAULT now(),
  finished_at        timestamptz,
  CHECK ((status = 'running') = (finished_at IS NULL))
);
-- One run at a time per partner: two runs would move the same test player's money under each other.
CREATE UNIQUE INDEX wallet_certifications_one_running ON wallet_certifications (partner_id) WHERE status = 'running';
CREATE INDEX wallet_certifications_by_partner ON wallet_certifications (partner_id, id DESC);

-- Each case as it finished, in the run's order, with every request it sent and what came back (jsonb, as the
-- report shows them).
CREATE TABLE wallet_certification_cases (
  certification_id bigint NOT NULL REFERENCES wallet_certifications (id) ON DELETE CASCADE,
  position         smallint NOT NULL CHECK (position >= 0),
  case_key         text NOT NULL,
  status           text NOT NULL CHECK (status IN ('passed', 'failed', 'skipped')),
  reason           text,
  balance_before   numeric(20, 2),
  expected_balance numeric(20, 2),
  balance_after    numeric(20, 2),
  timing           jsonb,
  exchanges        jsonb NOT NULL,
  finished_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'passed') = (reason IS NULL)),
  PRIMARY KEY (certification_id, position),
  UNIQUE (certification_id, case_key)
);

-- Partners whose live token is issued only after a passed run (README, "Wallet certification"). A row is the
-- setting on; no row, off. Read when an operator issues a live token, never by the token look-up.
CREATE TABLE wallet_certification_requirements (
  partner_id     bigint PRIMARY KEY REFERENCES partners (id) ON DELETE CASCADE,
  required_since timestamptz NOT NULL DEFAULT now()
);
