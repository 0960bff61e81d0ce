-- An aggregator's wallet call naming a known player with an amount finer than that player's currency allows
-- (`slot.bet` 0.001 in BRL, 10.5 in JPY) is refused (400 INVALID_REQUEST) and nothing moves; it is recorded here so
-- that an operator sees it as a stuck item (kind `amount`) until the aggregator resends it readable (a wallet
-- transaction of the same aggregator, environment and txn id exists) or 7 days have passed. One row per
-- (aggregator, environment, txn_id): a repeat of the call adds nothing. `amount` is the text as sent (a plain
-- decimal: at most 13 whole digits and 18 places). Clearing a partner's test data deletes its test players, and
-- their rows here with them.
CREATE TABLE wallet_unreadable_calls (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  aggregator  text NOT NULL CHECK (aggregator IN ('playfiver', 'sandbox')),
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  partner_id  bigint NOT NULL REFERENCES partners (id),
  player_id   bigint NOT NULL,
  txn_id      text NOT NULL CHECK (length(txn_id) BETWEEN 1 AND 200),
  round_id    text NOT NULL CHECK (length(round_id) BETWEEN 1 AND 200),
  field       text NOT NULL CHECK (field ~ '^[a-z_.]{1,40}$'),
  amount      text NOT NULL CHECK (length(amount) BETWEEN 1 AND 40),
  currency    text NOT NULL CHECK (currency ~ '^[A-Za-z][A-Za-z0-9]{1,9}$'),
  received_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (aggregator, environment, txn_id),
  FOREIGN KEY (player_id, environment) REFERENCES partner_players (id, environment) ON DELETE CASCADE
);
-- The stuck check reads the last 7 days' rows.
CREATE INDEX wallet_unreadable_calls_received ON wallet_unreadable_calls (received_at);

ALTER TABLE stuck_alerts DROP CONSTRAINT stuck_alerts_kind_check;
ALTER TABLE stuck_alerts ADD CONSTRAINT stuck_alerts_kind_check
  CHECK (kind IN ('round', 'bet', 'notification', 'amount'));
