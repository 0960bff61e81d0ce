-- The seamless wallet: the casino aggregator's wallet calls, relayed to
-- each partner's callback_url. The partner keeps its players' money; this
-- ledger records every transaction once and what the aggregator was told.

-- Every callback to a partner is signed with its webhook secret (HMAC-SHA256).
-- It is kept as is, since each callback needs it; it is shown once, by the CLI.
ALTER TABLE partners ADD COLUMN webhook_secret text NOT NULL
  DEFAULT 'whsec_' || replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');

-- One row per aggregator transaction id, whatever happened to it: a repeated
-- id gets `answer` again and moves nothing.
CREATE TABLE wallet_transactions (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  txn_id        text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('bet', 'refund')),
  partner_id    bigint NOT NULL REFERENCES partners (id),
  player_id     bigint NOT NULL REFERENCES partner_players (id),
  round_id      text,
  game_code     text,
  provider_code text,
  bet           numeric(20, 2) NOT NULL DEFAULT 0 CHECK (bet >= 0),
  win           numeric(20, 2) NOT NULL DEFAULT 0 CHECK (win >= 0),
  -- The change to the player's balance: win - bet for a bet, the round's reversal for a refund; 0 when refused.
  amount        numeric(20, 2) NOT NULL,
  balance_after numeric(20, 2) NOT NULL,
  outcome       text NOT NULL CHECK (outcome IN ('applied', 'refused', 'already_refunded')),
  refusal       text CHECK ((outcome = 'refused') = (refusal IS NOT NULL)),
  -- Exactly what the aggregator was answered.
  answer        jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX wallet_transactions_txn_id ON wallet_transactions (txn_id);
CREATE INDEX wallet_transactions_by_round ON wallet_transactions (player_id, round_id) WHERE kind = 'bet';
-- A round is refunded at most once.
CREATE UNIQUE INDEX wallet_transactions_one_refund_per_round ON wallet_transactions (player_id, round_id)
  WHERE kind = 'refund' AND outcome = 'applied';
CREATE INDEX wallet_transactions_by_player ON wallet_transactions (player_id, id);

-- Every callback sent to a partner: a bet (answered at once, kept for the
-- record) or a notification (win, refund, rollback) delivered at least once,
-- in order per player, by the job queue. Bodies are kept byte for byte:
-- a retry sends the same body (and event id) with a fresh signature.
CREATE TABLE partner_callbacks (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id     text NOT NULL UNIQUE,
  partner_id   bigint NOT NULL REFERENCES partners (id),
  player_id    bigint NOT NULL REFERENCES partner_players (id),
  kind         text NOT NULL CHECK (kind IN ('bet', 'win', 'refund', 'rollback')),
  txn_id       text NOT NULL,
  body         text NOT NULL,
  status       text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
-- A player's undelivered notifications, oldest first: the head of their line.
CREATE INDEX partner_callbacks_undelivered ON partner_callbacks (player_id, id)
  WHERE status <> 'delivered' AND kind <> 'bet';
CREATE INDEX partner_callbacks_by_partner ON partner_callbacks (partner_id, id);
CREATE INDEX partner_callbacks_by_txn ON partner_callbacks (txn_id);
