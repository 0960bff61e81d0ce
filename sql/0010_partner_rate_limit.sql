-- A partner's own limit on the partner API, in requests a minute. NULL: the service's
-- PARTNER_RATE_LIMIT applies. Read with the partner on every token look-up (cached), so
-- the limit costs no query of its own.
ALTER TABLE partners
  ADD COLUMN rate_limit_per_minute integer
  CHECK (rate_limit_per_minute IS NULL OR rate_limit_per_minute BETWEEN 1 AND 1000000000);
