-- The ledger takes one union of wallet events: besides PlayFiver's bet-and-win (`bet`) and refund of a round
-- (`refund`), a credit (`credit`: a win paying a debit, or a free win on its round) and a rollback of one debit
-- (`rollback`). Both name the debit they concern by its transaction id (`debit_txn_id`, of the same aggregator and
-- environment). Rows written before keep their kinds and mean what they meant.
ALTER TABLE wallet_transactions ADD COLUMN debit_txn_id text;

ALTER TABLE wallet_transactions
  DROP CONSTRAINT wallet_transactions_kind_check,
  ADD CONSTRAINT wallet_transactions_kind_check CHECK (kind IN ('bet', 'refund', 'credit', 'rollback')),
  ADD CONSTRAINT wallet_transactions_debit_txn_id_check CHECK (
    debit_txn_id IS NULL OR kind IN ('credit', 'rollback')
  ),
  DROP CONSTRAINT wallet_transactions_note_check,
  ADD CONSTRAINT wallet_transactions_note_check CHECK (
    note IN ('early_refund', 'already_refunded', 'recovered', 'early_rollback', 'already_rolled_back', 'debit_refused')
  ),
  -- DEBIT_NOT_FOUND is answered, never kept; DEBIT_ROLLED_BACK is a debit that came after its rollback.
  DROP CONSTRAINT wallet_transactions_refusal_check,
  ADD CONSTRAINT wallet_transactions_refusal_check CHECK (
    refusal IN ('INSUFFICIENT_USER_FUNDS', 'INVALID_USER', 'ROUND_REFUNDED', 'ROUND_NOT_FOUND', 'DEBIT_ROLLED_BACK')
  );

-- A debit is undone once: of the applied rollbacks naming one debit, only the first (which gave its stake back, or
-- found it refused, or came before it) is not `already_rolled_back`; a second is refused by the database itself.
CREATE UNIQUE INDEX wallet_transactions_one_rollback_per_debit
  ON wallet_transactions (environment, aggregator, debit_txn_id)
  WHERE kind = 'rollback' AND status = 'applied' AND note IS DISTINCT FROM 'already_rolled_back';

-- A rollback that came before its debit is the debit's tombstone: it holds the debit's id, so the debit arriving
-- later cannot be written pending or applied (only refused), and a tombstone cannot be written beside a debit that
-- is there. Refused bets are outside it: nothing of theirs is to be undone.
CREATE UNIQUE INDEX wallet_transactions_debit_or_tombstone
  ON wallet_transactions (environment, aggregator, (CASE WHEN kind = 'bet' THEN txn_id ELSE debit_txn_id END))
  WHERE (kind = 'bet' AND status <> 'refused') OR (kind = 'rollback' AND note = 'early_rollback');

-- What a credit or a rollback looks up: the debit it names.
CREATE INDEX wallet_transactions_by_debit ON wallet_transactions (environment, aggregator, debit_txn_id)
  WHERE debit_txn_id IS NOT NULL;
