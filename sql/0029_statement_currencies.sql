-- A statement's totals are per currency, never added across currencies: one row of wallet_statement_totals per
-- statement and currency that had a transaction that day (a day without activity has none), in that currency's
-- minor units (numeric(40, 0), as the ledger since sql/0027). wallet_statements keeps the document, its digest and
-- the day's count of transactions; its money columns move here.
--
-- Statements written before were all in the deployment's DEFAULT_CURRENCY (the loader sets the two settings read
-- here, platform/Database.ts): their totals take that currency, in its minor unit (the columns held currency units
-- with two decimals unless sql/0027 already converted them; their scale says which). Their documents never change:
-- the service reads such a document's amounts in the currency recorded here. A default currency that cannot hold an
-- existing total exactly stops the upgrade with nothing changed.

CREATE TABLE wallet_statement_totals (
  partner_id   bigint NOT NULL,
  environment  text NOT NULL,
  day          date NOT NULL,
  currency     text NOT NULL CHECK (currency ~ '^[A-Za-z][A-Za-z0-9]{1,9}$'),
  bets         numeric(40, 0) NOT NULL,
  wins         numeric(40, 0) NOT NULL,
  refunds      numeric(40, 0) NOT NULL,
  rollbacks    numeric(40, 0) NOT NULL,
  net          numeric(40, 0) NOT NULL,
  transactions integer NOT NULL CHECK (transactions > 0),
  PRIMARY KEY (partner_id, environment, day, currency),
  -- Clearing a test environment deletes its statements, and their totals with them.
  FOREIGN KEY (partner_id, environment, day) REFERENCES wallet_statements ON DELETE CASCADE
);

IF (SELECT numeric_scale FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'wallet_statements' AND column_name = 'bets') = 0 THEN
  -- Already minor units (sql/0027 converted them).
  INSERT INTO wallet_statement_totals
    (partner_id, environment, day, currency, bets, wins, refunds, rollbacks, net, transactions)
  SELECT partner_id, environment, day, current_setting('partner_api.default_currency'), bets, wins, refunds,
         rollbacks, net, transactions
  FROM wallet_statements WHERE transactions > 0;
ELSE
  IF EXISTS (
    SELECT 1 FROM wallet_statements
    WHERE (abs(bets) + abs(wins) + abs(refunds) + abs(rollbacks) + abs(net))
      * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int) % 1 <> 0
  ) THEN
    RAISE EXCEPTION 'DEFAULT_CURRENCY % cannot hold the statements'' totals already written exactly; set the currency they were in',
      current_setting('partner_api.default_currency');
  END IF;
  INSERT INTO wallet_statement_totals
    (partner_id, environment, day, currency, bets, wins, refunds, rollbacks, net, transactions)
  SELECT partner_id, environment, day, current_setting('partner_api.default_currency'),
         bets * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
         wins * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
         refunds * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
         rollbacks * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
         net * power(10::numeric, current_setting('partner_api.default_currency_exponent')::int),
         transactions
  FROM wallet_statements WHERE transactions > 0;
END IF;

ALTER TABLE wallet_statements
  DROP COLUMN bets,
  DROP COLUMN wins,
  DROP COLUMN refunds,
  DROP COLUMN rollbacks,
  DROP COLUMN net;
