-- The partner integration kit's operations: daily statements, stuck items and their operator alerts, and each
-- partner's RTP policy.

-- What a launch does with the partner's `user_rtp`: `pass` it on, `clamp` it into [min, max], or ignore it for a
-- `fixed` value (regulated markets forbid per-player RTP). Percentages are whole numbers from 0 to 100.
ALTER TABLE partners ADD COLUMN rtp_policy jsonb NOT NULL DEFAULT '{"mode": "pass"}' CHECK (
  CASE rtp_policy ->> 'mode'
    WHEN 'pass' THEN rtp_policy = '{"mode": "pass"}'::jsonb
    WHEN 'clamp' THEN jsonb_typeof(rtp_policy -> 'min') = 'number' AND jsonb_typeof(rtp_policy -> 'max') = 'number'
      AND (rtp_policy ->> 'min')::numeric BETWEEN 0 AND 100 AND (rtp_policy ->> 'max')::numeric BETWEEN 0 AND 100
      AND (rtp_policy ->> 'min')::numeric = trunc((rtp_policy ->> 'min')::numeric)
      AND (rtp_policy ->> 'max')::numeric = trunc((rtp_policy ->> 'max')::numeric)
      AND (rtp_policy ->> 'min')::numeric <= (rtp_policy ->> 'max')::numeric
    WHEN 'fixed' THEN jsonb_typeof(rtp_policy -> 'value') = 'number'
      AND (rtp_policy ->> 'value')::numeric BETWEEN 0 AND 100
      AND (rtp_policy ->> 'value')::numeric = trunc((rtp_policy ->> 'value')::numeric)
    ELSE false
  END
);

-- The UTC days whose statements are all written: every environment of every partner that existed before the day
-- ended has its statement. Until then the fleet's close comes back to the day (a partner environment with a bet of
-- that day still pending waits for it; the others are written at once).
CREATE TABLE wallet_statement_days (
  day       date PRIMARY KEY,
  closed_at timestamptz NOT NULL DEFAULT now()
);

-- A partner's statement of one environment and day, written once after the day ended: its totals (money in
-- numeric(20, 2), as the ledger) and the statement itself, byte for byte as computed (JSON lines: a summary line,
-- then one line per transaction; a day without activity has the summary alone), with its SHA-256. The document
-- is what the partner API serves and signs; it never changes.
CREATE TABLE wallet_statements (
  partner_id       bigint NOT NULL REFERENCES partners (id),
  environment      text NOT NULL CHECK (environment IN ('live', 'test')),
  day              date NOT NULL,
  bets             numeric(20, 2) NOT NULL,
  wins             numeric(20, 2) NOT NULL,
  refunds          numeric(20, 2) NOT NULL,
  rollbacks        numeric(20, 2) NOT NULL,
  net              numeric(20, 2) NOT NULL,
  transactions     integer NOT NULL CHECK (transactions >= 0),
  document         text NOT NULL,
  document_sha256  bytea NOT NULL CHECK (length(document_sha256) = 32),
  computed_at      timestamptz NOT NULL,
  PRIMARY KEY (partner_id, environment, day)
);
CREATE INDEX wallet_statements_by_day ON wallet_statements (day DESC, partner_id);

-- Rounds open now, for the stuck-round check (a round is open only while a bet of it waits for its partner).
CREATE INDEX wallet_rounds_open ON wallet_rounds (id) WHERE status = 'open';

-- Notifications that ran out of attempts, for the stuck check and the console.
CREATE INDEX partner_callbacks_exhausted ON partner_callbacks (id) WHERE status = 'failed' AND kind <> 'bet';

-- Every stuck item the fleet noticed (a round open too long, a bet pending past its time-out, a notification
-- that ran out of attempts): one row per item, whoever noticed it first (the unique key), so its operator alert is
-- sent once. `alert_status`: `off` (no OPERATOR_ALERT_URL when it was noticed), `pending` (to send, or sending:
-- `alert_next_at` is then its lease), `sent`, or `failed` (the attempts ran out). `item_ref` names the row of
-- the item's own table; no foreign key, since clearing test data deletes those rows and their history stays.
CREATE TABLE stuck_alerts (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind              text NOT NULL CHECK (kind IN ('round', 'bet', 'notification')),
  item_ref          bigint NOT NULL,
  partner_id        bigint NOT NULL REFERENCES partners (id),
  environment       text NOT NULL CHECK (environment IN ('live', 'test')),
  subject           text NOT NULL,
  external_player_id text,
  since             timestamptz NOT NULL,
  detail            text NOT NULL,
  first_seen_at     timestamptz NOT NULL DEFAULT now(),
  last_seen_at      timestamptz NOT NULL DEFAULT now(),
  resolved_at       timestamptz,
  alert_status      text NOT NULL CHECK (alert_status IN ('off', 'pending', 'sent', 'failed')),
  alert_attempts    integer NOT NULL DEFAULT 0,
  alert_last_error  text,
  alert_next_at     timestamptz,
  alerted_at        timestamptz,
  UNIQUE (kind, item_ref),
  CHECK ((alert_status = 'pending') = (alert_next_at IS NOT NULL)),
  CHECK ((alert_status = 'sent') = (alerted_at IS NOT NULL))
);
CREATE INDEX stuck_alerts_unresolved ON stuck_alerts (kind, item_ref) WHERE resolved_at IS NULL;
CREATE INDEX stuck_alerts_to_send ON stuck_alerts (alert_next_at) WHERE alert_status = 'pending';
