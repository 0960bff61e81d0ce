-- Every amount has a currency, and is kept as a whole number of that currency's minor unit (numeric(40, 0): an
-- 18-decimal crypto amount fits). A player holds one balance per currency: each (partner, environment, player,
-- currency) is a row of partner_players of its own, with its own user code, so its mirror, rounds and transactions
-- never touch another currency's. Rows written before this migration were in the deployment's DEFAULT_CURRENCY with
-- two decimals: they take that currency, and their amounts its minor unit. The loader sets the two settings read
-- here (platform/Database.ts); a default currency that cannot hold an existing amount exactly (JPY under amounts
-- with cents) stops the upgrade with nothing changed.

-- Every amount about to be converted, each on its own (a sum of two fractions may be whole).
IF EXISTS (
  WITH amounts (value) AS (
    SELECT balance FROM partner_players
    UNION ALL SELECT unnest(ARRAY[amount, bet, win, balance_after, (answer ->> 'balance')::numeric]) FROM wallet_transactions
    UNION ALL SELECT unnest(ARRAY[bet_total, win_total]) FROM wallet_rounds
    UNION ALL SELECT balance FROM sandbox_casino_sessions
    UNION ALL SELECT balance FROM sandbox_partner_wallets
    UNION ALL SELECT unnest(ARRAY[balance_before, expected_balance, balance_after]) FROM wallet_certification_cases
  )
  SELECT 1 FROM amounts
  WHERE value * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int) % 1 <> 0
) THEN
  RAISE EXCEPTION 'DEFAULT_CURRENCY % cannot hold the amounts already recorded exactly; set the currency they were in',
    current_setting('partner_api.default_currency');
END IF;

ALTER TABLE partner_players
  ADD COLUMN currency text NOT NULL DEFAULT current_setting('partner_api.default_currency')
    CHECK (currency ~ '^[A-Za-z][A-Za-z0-9]{1,9}$'),
  ALTER COLUMN balance TYPE numeric(40, 0)
    USING balance * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int);
ALTER TABLE partner_players ALTER COLUMN currency DROP DEFAULT;
ALTER TABLE partner_players DROP CONSTRAINT partner_players_partner_environment_external_key;
ALTER TABLE partner_players ADD CONSTRAINT partner_players_partner_environment_external_currency_key
  UNIQUE (partner_id, environment, external_player_id, currency);

-- The shadow players' trigger (0015) names balance_after: it is set aside while the column changes type, and the
-- answers below are rewritten without it (they only change units), then it is put back as it was.
DROP TRIGGER wallet_transactions_forget_shadow_balances ON wallet_transactions;
ALTER TABLE wallet_transactions
  ADD COLUMN currency text NOT NULL DEFAULT current_setting('partner_api.default_currency'),
  ALTER COLUMN bet TYPE numeric(40, 0)
    USING bet * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
  ALTER COLUMN win TYPE numeric(40, 0)
    USING win * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
  ALTER COLUMN amount TYPE numeric(40, 0)
    USING amount * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
  ALTER COLUMN balance_after TYPE numeric(40, 0)
    USING balance_after * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int);
ALTER TABLE wallet_transactions ALTER COLUMN currency DROP DEFAULT;
-- The balance an answer kept, in the same minor units, as a JSON string (a number would not hold 18 decimals).
UPDATE wallet_transactions
SET answer = jsonb_set(
  answer,
  '{balance}',
  to_jsonb(((answer ->> 'balance')::numeric
    * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int))::numeric(40, 0)::text)
)
WHERE answer ? 'balance';
CREATE TRIGGER wallet_transactions_forget_shadow_balances
  BEFORE INSERT OR UPDATE OF balance_after, answer ON wallet_transactions
  FOR EACH ROW EXECUTE FUNCTION forget_shadow_balances();
-- A partner's transactions in one currency, newest first: the books' `?currency=` filter.
CREATE INDEX wallet_transactions_by_partner_currency ON wallet_transactions (partner_id, currency, created_at, id);

ALTER TABLE wallet_rounds
  ALTER COLUMN bet_total TYPE numeric(40, 0)
    USING bet_total * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
  ALTER COLUMN win_total TYPE numeric(40, 0)
    USING win_total * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int);

-- The sandbox aggregator's sessions play in one currency; its partner wallet keeps a balance per currency.
ALTER TABLE sandbox_casino_sessions
  ADD COLUMN currency text NOT NULL DEFAULT current_setting('partner_api.default_currency'),
  ALTER COLUMN balance TYPE numeric(40, 0)
    USING balance * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int);
ALTER TABLE sandbox_casino_sessions ALTER COLUMN currency DROP DEFAULT;

ALTER TABLE sandbox_partner_wallets
  ADD COLUMN currency text NOT NULL DEFAULT current_setting('partner_api.default_currency'),
  ALTER COLUMN balance TYPE numeric(40, 0)
    USING balance * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int);
ALTER TABLE sandbox_partner_wallets ALTER COLUMN currency DROP DEFAULT;
ALTER TABLE sandbox_partner_wallets DROP CONSTRAINT sandbox_partner_wallets_pkey;
ALTER TABLE sandbox_partner_wallets ADD PRIMARY KEY (partner_id, external_player_id, currency);

ALTER TABLE wallet_certifications ADD COLUMN currency text NOT NULL DEFAULT current_setting('partner_api.default_currency');
ALTER TABLE wallet_certifications ALTER COLUMN currency DROP DEFAULT;
ALTER TABLE wallet_certification_cases
  ALTER COLUMN balance_before TYPE numeric(40, 0)
    USING balance_before * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
  ALTER COLUMN expected_balance TYPE numeric(40, 0)
    USING expected_balance * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
  ALTER COLUMN balance_after TYPE numeric(40, 0)
    USING balance_after * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int);
