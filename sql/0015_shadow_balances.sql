-- A partner in shadow mode keeps no balance of its players here: a settled transaction of a shadow player
-- has no balance_after and its kept answer no `balance` (a replay asks the partner again), and its win and
-- refund notifications state none. The rule that a settled transaction has a balance becomes: it has one
-- exactly when its kept answer has one (every row written before this holds both).
DECLARE
  needs_balance text;
BEGIN
  SELECT conname INTO needs_balance FROM pg_constraint
  WHERE conrelid = 'wallet_transactions'::regclass AND contype = 'c'
    AND pg_get_constraintdef(oid) LIKE '%balance_after IS NOT NULL%';
  EXECUTE format('ALTER TABLE wallet_transactions DROP CONSTRAINT %I', needs_balance);
END;

ALTER TABLE wallet_transactions ADD CONSTRAINT wallet_transactions_balance_kept
  CHECK (status = 'pending' OR ((balance_after IS NULL) = ((answer -> 'balance') IS NULL)));

-- The service writes a shadow player's rows without balances. A decision taken while the partner was still
-- `persisted` can land just after a switch to shadow (the bet waited for the partner meanwhile), after the
-- switch forgot what was kept: written into the rows of a partner now in shadow mode, a balance is dropped
-- here, whatever the statement carried. Rows of persisted partners pass unchanged.
CREATE FUNCTION forget_shadow_balances() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF EXISTS (SELECT 1 FROM partners WHERE id = NEW.partner_id AND player_mode = 'shadow') THEN
    IF TG_TABLE_NAME = 'wallet_transactions' THEN
      NEW.balance_after := NULL;
      NEW.answer := NEW.answer - 'balance';
    ELSIF NEW.body::jsonb -> 'balance' IS NOT NULL THEN
      NEW.body := (NEW.body::jsonb - 'balance')::text;
    END IF;
  END IF;
  RETURN NEW;
END
$fn$;

CREATE TRIGGER wallet_transactions_forget_shadow_balances
  BEFORE INSERT OR UPDATE OF balance_after, answer ON wallet_transactions
  FOR EACH ROW EXECUTE FUNCTION forget_shadow_balances();
CREATE TRIGGER partner_callbacks_forget_shadow_balances
  BEFORE INSERT ON partner_callbacks
  FOR EACH ROW WHEN (NEW.kind IN ('win', 'refund'))
  EXECUTE FUNCTION forget_shadow_balances();
