-- A partner's two environments never mix in the wallet: every player, round,
-- transaction and callback says whether it is `live` or `test`. Rows written
-- before environments are live. The wallet's rows name their player together
-- with its environment (a composite foreign key), so a row can never claim
-- another environment than its player's.

ALTER TABLE partner_players
  ADD COLUMN environment text NOT NULL DEFAULT 'live' CHECK (environment IN ('live', 'test')),
  -- A shadow player (player_mode 'shadow') has no balance mirror: NULL, as its name and e-mail.
  ALTER COLUMN balance DROP NOT NULL;
-- The same external id in live and test is two players.
ALTER TABLE partner_players DROP CONSTRAINT partner_players_partner_id_external_player_id_key;
ALTER TABLE partner_players
  ADD CONSTRAINT partner_players_partner_environment_external_key UNIQUE (partner_id, environment, external_player_id),
  ADD CONSTRAINT partner_players_id_environment_key UNIQUE (id, environment);

ALTER TABLE wallet_rounds
  ADD COLUMN environment text NOT NULL DEFAULT 'live' CHECK (environment IN ('live', 'test')),
  ADD CONSTRAINT wallet_rounds_player_environment_fkey
    FOREIGN KEY (player_id, environment) REFERENCES partner_players (id, environment);

ALTER TABLE wallet_transactions
  ADD COLUMN environment text NOT NULL DEFAULT 'live' CHECK (environment IN ('live', 'test')),
  ADD CONSTRAINT wallet_transactions_player_environment_fkey
    FOREIGN KEY (player_id, environment) REFERENCES partner_players (id, environment);
-- The aggregators of the two environments number their transactions apart: an id is unique within one.
DROP INDEX wallet_transactions_kind_txn_id;
CREATE UNIQUE INDEX wallet_transactions_environment_kind_txn_id ON wallet_transactions (environment, kind, txn_id);

ALTER TABLE partner_callbacks
  ADD COLUMN environment text NOT NULL DEFAULT 'live' CHECK (environment IN ('live', 'test')),
  ADD CONSTRAINT partner_callbacks_player_environment_fkey
    FOREIGN KEY (player_id, environment) REFERENCES partner_players (id, environment);
-- Event ids derive from transaction ids, which are unique per environment.
ALTER TABLE partner_callbacks DROP CONSTRAINT partner_callbacks_event_id_key;
CREATE UNIQUE INDEX partner_callbacks_environment_event_id ON partner_callbacks (environment, event_id);

-- What the service keeps of a partner's players: `persisted` (name, e-mail and the balance mirror) or
-- `shadow` (nothing but the partner, the environment and the partner's external id behind a user code).
ALTER TABLE partners
  ADD COLUMN player_mode text NOT NULL DEFAULT 'persisted' CHECK (player_mode IN ('persisted', 'shadow'));
