-- Wallet certification, second step. A run proves only the wallet it ran against: `partner_wallet` says whether that
-- was the partner's own test callback URL (not the sandbox partner wallet or another address of the service's own),
-- and only such runs count for the live token's gate. `not_run`: the service could not send the run's callbacks,
-- which says nothing of the wallet. An interrupted run is recovered on a later start (its test player's balance put
-- back where the run found it): `recovery_started_at` claims it, `recovered_at` records that it was done.

ALTER TABLE wallet_certifications
  ADD COLUMN partner_wallet boolean NOT NULL DEFAULT false,
  ADD COLUMN recovery_started_at timestamptz,
  ADD COLUMN recovered_at timestamptz,
  DROP CONSTRAINT wallet_certifications_status_check,
  ADD CONSTRAINT wallet_certifications_status_check
    CHECK (status IN ('running', 'passed', 'failed', 'interrupted', 'not_run'));

-- Earlier runs: one sent to the URL that is still the partner's own test callback URL was its own wallet's.
UPDATE wallet_certifications c SET partner_wallet = true
FROM partner_environments e
WHERE e.partner_id = c.partner_id AND e.environment = 'test' AND e.callback_url = c.callback_url;

-- Runs interrupted before recovery existed are history: the test player's balance has moved on since.
UPDATE wallet_certifications SET recovered_at = finished_at WHERE status = 'interrupted';

-- The gate reads a partner's latest verdict on its own wallet.
CREATE INDEX wallet_certifications_verdicts ON wallet_certifications (partner_id, id DESC)
  WHERE partner_wallet AND status IN ('passed', 'failed');
-- Recovery looks for runs that ended before their last case (interrupted, or stopped by the service's own error)
-- and are not yet recovered: few, and gone once done.
CREATE INDEX wallet_certifications_to_recover ON wallet_certifications (id)
  WHERE recovered_at IS NULL AND status IN ('running', 'interrupted', 'not_run');
