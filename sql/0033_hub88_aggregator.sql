-- Hub88 joins PlayFiver and the sandbox as an aggregator (issue 35): its providers, games, rounds and unreadable
-- calls are keyed by `hub88` as theirs are by their names.

ALTER TABLE casino_providers
  DROP CONSTRAINT casino_providers_aggregator_check,
  ADD CONSTRAINT casino_providers_aggregator_check CHECK (aggregator IN ('playfiver', 'sandbox', 'hub88'));

ALTER TABLE wallet_rounds
  DROP CONSTRAINT wallet_rounds_aggregator_check,
  ADD CONSTRAINT wallet_rounds_aggregator_check CHECK (aggregator IN ('playfiver', 'sandbox', 'hub88'));

ALTER TABLE wallet_unreadable_calls
  DROP CONSTRAINT wallet_unreadable_calls_aggregator_check,
  ADD CONSTRAINT wallet_unreadable_calls_aggregator_check CHECK (aggregator IN ('playfiver', 'sandbox', 'hub88'));
