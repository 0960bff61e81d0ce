-- A partner's currencies (issue 33). Both are settings an operator chooses, read with the partner on every token
-- look-up (cached), so a launch costs no query of its own for them. The codes are checked against the currencies the
-- deployment enables when they are set, not here: CRYPTO_CURRENCIES may change between releases, and a code it no
-- longer enables is refused at a launch with a message that says so rather than by the database.

-- The currency a launch is in when the partner names none. NULL: the deployment's DEFAULT_CURRENCY, so a partner
-- that never chose follows the deployment's setting rather than a copy of it taken today.
ALTER TABLE partners
  ADD COLUMN default_currency text
  CHECK (default_currency IS NULL OR default_currency ~ '^[A-Za-z][A-Za-z0-9]{1,9}$');

-- The currencies the partner's launches may be in. NULL: every currency the deployment enables (no restriction,
-- which is every partner's until an operator sets one); otherwise 1 to 64 codes. An empty list would
-- refuse every launch, which is deactivating the partner: that is its status's job, so it is not a value here.
ALTER TABLE partners
  ADD COLUMN currencies text[]
  CHECK (
    currencies IS NULL OR (
      cardinality(currencies) BETWEEN 1 AND 64
      AND array_ndims(currencies) = 1
      AND array_position(currencies, NULL) IS NULL
      AND array_to_string(currencies, ',') ~ '^[A-Za-z][A-Za-z0-9]{1,9}(,[A-Za-z][A-Za-z0-9]{1,9})*$'
    )
  );

-- A partner's default is one of its currencies: a launch naming none would otherwise be refused for the partner's
-- own setting. (The service refuses such a change with a message; this keeps a hand-written UPDATE from it too.)
ALTER TABLE partners
  ADD CONSTRAINT partners_default_currency_allowed
  CHECK (default_currency IS NULL OR currencies IS NULL OR default_currency = ANY (currencies));
