-- The wallet as a state machine. A bet is written `pending` before the
-- partner is asked (so a crash leaves a trace that recovery settles), then
-- `applied` or `refused`. Rounds are their own rows: `open` while a bet of
-- theirs waits for the partner, `settled`, then `refunded`; a refund that
-- comes first leaves the round `refunded` (refunded_early), and its late bet
-- is refused without asking the partner. A transaction is identified by its
-- kind and id, and remembers a fingerprint of what it carried, so a repeat
-- replays its answer and another payload under a used id is refused.

CREATE TABLE wallet_rounds (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partner_id     bigint NOT NULL REFERENCES partners (id),
  player_id      bigint NOT NULL REFERENCES partner_players (id),
  round_id       text NOT NULL,
  status         text NOT NULL CHECK (status IN ('open', 'settled', 'refunded')),
  -- Bets of the round waiting for the partner; the round is open exactly while there are some.
  pending_bets   integer NOT NULL DEFAULT 0 CHECK (pending_bets >= 0),
  -- Stakes and wins of the round's applied bets: what a refund gives back and takes back.
  bet_total      numeric(20, 2) NOT NULL DEFAULT 0 CHECK (bet_total >= 0),
  win_total      numeric(20, 2) NOT NULL DEFAULT 0 CHECK (win_total >= 0),
  refunded_early boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (player_id, round_id),
  CHECK ((status = 'open') = (pending_bets > 0)),
  CHECK (NOT refunded_early OR status = 'refunded')
);
CREATE INDEX wallet_rounds_by_partner ON wallet_rounds (partner_id, round_id);

-- A transaction id is no longer unique alone, and rounds have rows of their own now.
DROP INDEX wallet_transactions_txn_id;
DROP INDEX wallet_transactions_by_round;
DROP INDEX wallet_transactions_one_refund_per_round;

-- Transactions recorded before this migration: a bet without a round was its own round.
UPDATE wallet_transactions SET round_id = txn_id WHERE round_id IS NULL;

ALTER TABLE wallet_transactions
  DROP CONSTRAINT wallet_transactions_check,
  ADD COLUMN status      text,
  ADD COLUMN note        text CHECK (note IN ('early_refund', 'already_refunded', 'recovered')),
  ADD COLUMN fingerprint text,
  ADD COLUMN round_ref   bigint REFERENCES wallet_rounds (id),
  ADD COLUMN settled_at  timestamptz,
  ALTER COLUMN round_id SET NOT NULL,
  ALTER COLUMN balance_after DROP NOT NULL,
  ALTER COLUMN answer DROP NOT NULL;

UPDATE wallet_transactions
SET status = CASE outcome WHEN 'refused' THEN 'refused' ELSE 'applied' END,
    note = CASE outcome WHEN 'already_refunded' THEN 'already_refunded' END,
    settled_at = created_at;

INSERT INTO wallet_rounds (partner_id, player_id, round_id, status, bet_total, win_total, created_at, updated_at)
SELECT min(partner_id), player_id, round_id,
       CASE WHEN bool_or(kind = 'refund' AND status = 'applied' AND note IS NULL) THEN 'refunded' ELSE 'settled' END,
       coalesce(sum(bet) FILTER (WHERE kind = 'bet' AND status = 'applied'), 0),
       coalesce(sum(win) FILTER (WHERE kind = 'bet' AND status = 'applied'), 0),
       min(created_at), max(created_at)
FROM wallet_transactions
GROUP BY player_id, round_id;

UPDATE wallet_transactions t SET round_ref = r.id
FROM wallet_rounds r
WHERE r.player_id = t.player_id AND r.round_id = t.round_id;

ALTER TABLE wallet_transactions
  DROP COLUMN outcome,
  ALTER COLUMN status SET NOT NULL,
  ALTER COLUMN round_ref SET NOT NULL,
  ADD CHECK (status IN ('pending', 'applied', 'refused')),
  -- ROUND_NOT_FOUND stays readable on refunds recorded before early refunds became tombstones.
  ADD CHECK ((status = 'refused') = (refusal IS NOT NULL)),
  ADD CHECK (refusal IN ('INSUFFICIENT_USER_FUNDS', 'INVALID_USER', 'ROUND_REFUNDED', 'ROUND_NOT_FOUND')),
  ADD CHECK ((status = 'pending') = (answer IS NULL)),
  ADD CHECK ((status = 'pending') = (settled_at IS NULL)),
  ADD CHECK (status = 'pending' OR balance_after IS NOT NULL),
  ADD CHECK (status = 'applied' OR amount = 0);

-- A transaction is its kind and its id: a refund may carry its bet's id and still be a refund.
CREATE UNIQUE INDEX wallet_transactions_kind_txn_id ON wallet_transactions (kind, txn_id);
CREATE INDEX wallet_transactions_by_round ON wallet_transactions (round_ref, id);
CREATE INDEX wallet_transactions_pending ON wallet_transactions (created_at) WHERE status = 'pending';
CREATE INDEX wallet_transactions_by_partner ON wallet_transactions (partner_id, created_at, id);

-- Each callback belongs to the transaction that caused it (a bet's txn id and a refund's may be the same text).
ALTER TABLE partner_callbacks ADD COLUMN transaction_ref bigint REFERENCES wallet_transactions (id);
UPDATE partner_callbacks c SET transaction_ref = t.id
FROM wallet_transactions t
WHERE t.txn_id = c.txn_id AND t.kind = CASE c.kind WHEN 'refund' THEN 'refund' ELSE 'bet' END;
DROP INDEX partner_callbacks_by_txn;
CREATE INDEX partner_callbacks_by_transaction ON partner_callbacks (transaction_ref);

-- Webhook secret rotation with overlap: the previous secret keeps signing (beside the new one) until it expires.
ALTER TABLE partners
  ADD COLUMN previous_webhook_secret text,
  ADD COLUMN previous_webhook_secret_until timestamptz,
  ADD CHECK ((previous_webhook_secret IS NULL) = (previous_webhook_secret_until IS NULL));
