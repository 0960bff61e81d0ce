-- A wallet row's round, transaction or callback names its player, that player's partner and environment in one
-- foreign key, where each named them in three (the player, the partner, the player with its environment), and a
-- transaction its round in one where it named it in two (issue 38). Every key each checked is still checked, and
-- one more: a row's partner is now its player's own, where it only had to be some partner.
--
-- Why fewer: PostgreSQL checks a foreign key by locking the row it names (FOR KEY SHARE). Every wallet row of a
-- partner named the same `partners` row, so every bet, settle and callback of every player locked that one row:
-- under load PostgreSQL shares the lock among the transactions holding it at once (a multixact) and writes each
-- new holder to the WAL. The player's own row is the only parent a wallet row now locks besides its round or
-- transaction (a player's calls come one at a time), and a bet checks 5 keys where it checked 13.
--
-- Validating the new keys reads the three tables once, inside the migration's transaction (writes to them wait).
ALTER TABLE partner_players
  ADD CONSTRAINT partner_players_id_partner_environment_key UNIQUE (id, partner_id, environment);

ALTER TABLE wallet_rounds
  DROP CONSTRAINT wallet_rounds_player_id_fkey,
  DROP CONSTRAINT wallet_rounds_partner_id_fkey,
  DROP CONSTRAINT wallet_rounds_player_environment_fkey,
  ADD CONSTRAINT wallet_rounds_player_fkey
    FOREIGN KEY (player_id, partner_id, environment) REFERENCES partner_players (id, partner_id, environment);

-- The round's key with its aggregator (wallet_transactions_round_aggregator_fkey) holds the round's own.
ALTER TABLE wallet_transactions
  DROP CONSTRAINT wallet_transactions_player_id_fkey,
  DROP CONSTRAINT wallet_transactions_partner_id_fkey,
  DROP CONSTRAINT wallet_transactions_player_environment_fkey,
  DROP CONSTRAINT wallet_transactions_round_ref_fkey,
  ADD CONSTRAINT wallet_transactions_player_fkey
    FOREIGN KEY (player_id, partner_id, environment) REFERENCES partner_players (id, partner_id, environment);

ALTER TABLE partner_callbacks
  DROP CONSTRAINT partner_callbacks_player_id_fkey,
  DROP CONSTRAINT partner_callbacks_partner_id_fkey,
  DROP CONSTRAINT partner_callbacks_player_environment_fkey,
  ADD CONSTRAINT partner_callbacks_player_fkey
    FOREIGN KEY (player_id, partner_id, environment) REFERENCES partner_players (id, partner_id, environment);
