-- Every row an aggregator's ids reach says which aggregator it came from (the name CASINO_GATEWAY gives it:
-- 'playfiver' or 'sandbox'), and every key over those ids is unique within one aggregator only: a second
-- aggregator's provider codes, round ids and transaction ids never meet the first's.
--
-- Rows written before this migration get the aggregator that wrote them. The test environment's wallet rows were
-- always the sandbox's. The live rows, and the catalog (which is the live aggregator's), were CASINO_GATEWAY's, a
-- setting the database does not hold: they are taken to be PlayFiver's (the only real aggregator, the one a live
-- ledger of real money holds), unless the database setting `partner_api.casino_gateway` names another
-- (a deployment that ran CASINO_GATEWAY=sandbox sets it to 'sandbox' before upgrading, see docs/operators.md).

CREATE TEMPORARY TABLE upgrade_live_aggregator ON COMMIT DROP AS
SELECT coalesce(nullif(current_setting('partner_api.casino_gateway', true), ''), 'playfiver') AS aggregator;

ALTER TABLE casino_providers ADD COLUMN aggregator text;
UPDATE casino_providers SET aggregator = (SELECT aggregator FROM upgrade_live_aggregator);
ALTER TABLE casino_providers
  ALTER COLUMN aggregator SET NOT NULL,
  ADD CONSTRAINT casino_providers_aggregator_check CHECK (aggregator IN ('playfiver', 'sandbox')),
  DROP CONSTRAINT casino_providers_slug_key,
  DROP CONSTRAINT casino_providers_upstream_code_key,
  ADD CONSTRAINT casino_providers_aggregator_slug_key UNIQUE (aggregator, slug),
  ADD CONSTRAINT casino_providers_aggregator_upstream_code_key UNIQUE (aggregator, upstream_code),
  -- What a game's own aggregator is checked against.
  ADD CONSTRAINT casino_providers_id_aggregator_key UNIQUE (id, aggregator);

-- A game is its provider's aggregator's: the composite key keeps the two equal.
ALTER TABLE casino_games ADD COLUMN aggregator text;
UPDATE casino_games g SET aggregator = p.aggregator FROM casino_providers p WHERE p.id = g.provider_id;
ALTER TABLE casino_games
  ALTER COLUMN aggregator SET NOT NULL,
  DROP CONSTRAINT casino_games_provider_id_game_code_key,
  ADD CONSTRAINT casino_games_aggregator_provider_id_game_code_key UNIQUE (aggregator, provider_id, game_code),
  ADD CONSTRAINT casino_games_provider_aggregator_fkey
    FOREIGN KEY (provider_id, aggregator) REFERENCES casino_providers (id, aggregator);

-- The views list their columns when created: made again, they carry the aggregator.
DROP VIEW casino_games_status;
DROP VIEW casino_providers_status;
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

-- The ledger: a round is a player's round of one aggregator; a transaction id is unique within one aggregator of
-- one environment.
ALTER TABLE wallet_rounds ADD COLUMN aggregator text;
UPDATE wallet_rounds
SET aggregator = CASE environment WHEN 'test' THEN 'sandbox' ELSE (SELECT aggregator FROM upgrade_live_aggregator) END;
ALTER TABLE wallet_rounds
  ALTER COLUMN aggregator SET NOT NULL,
  ADD CONSTRAINT wallet_rounds_aggregator_check CHECK (aggregator IN ('playfiver', 'sandbox')),
  DROP CONSTRAINT wallet_rounds_player_id_round_id_key,
  ADD CONSTRAINT wallet_rounds_player_aggregator_round_key UNIQUE (player_id, aggregator, round_id),
  -- What a transaction's own aggregator is checked against.
  ADD CONSTRAINT wallet_rounds_id_aggregator_key UNIQUE (id, aggregator);

-- A transaction is its round's aggregator's: the composite key keeps the two equal.
ALTER TABLE wallet_transactions ADD COLUMN aggregator text;
UPDATE wallet_transactions t SET aggregator = r.aggregator FROM wallet_rounds r WHERE r.id = t.round_ref;
ALTER TABLE wallet_transactions
  ALTER COLUMN aggregator SET NOT NULL,
  ADD CONSTRAINT wallet_transactions_round_aggregator_fkey
    FOREIGN KEY (round_ref, aggregator) REFERENCES wallet_rounds (id, aggregator);
DROP INDEX wallet_transactions_environment_kind_txn_id;
CREATE UNIQUE INDEX wallet_transactions_environment_aggregator_kind_txn_id
  ON wallet_transactions (environment, aggregator, kind, txn_id);

-- partner_callbacks keeps its key (environment, event_id): an aggregator added later has its name in its event
-- ids, so its callbacks never share one with another's; PlayFiver's and the sandbox's keep the ids partners
-- know (an environment reaches one of them; see docs/operators.md).
