-- The wallet's tables keep only the indexes a query or a constraint needs (issue 38): every row a WinBet writes
-- pays for each of them, twice for a bet (written pending, then settled). Each kept one says which query reads it.

-- Nothing reads a transaction by the debit it names: a credit or a rollback finds its debit by the debit's own key
-- (wallet_transactions_environment_aggregator_kind_txn_id, kind 'bet'); wallet_transactions_one_rollback_per_debit
-- and wallet_transactions_debit_or_tombstone are the rules on it.
DROP INDEX IF EXISTS wallet_transactions_by_debit;

COMMENT ON INDEX wallet_transactions_environment_aggregator_kind_txn_id IS
  'A transaction id is used once per environment, aggregator and kind; WalletRepo.findTransaction and existingTxnIds (a repeat, a credit''s or rollback''s debit).';
COMMENT ON INDEX wallet_transactions_hub88_txn_id IS
  'Hub88''s ids are one space for every kind (0035): the insert''s uniqueness.';
COMMENT ON INDEX wallet_transactions_one_rollback_per_debit IS
  'A debit is undone once (0025): the insert''s uniqueness.';
COMMENT ON INDEX wallet_transactions_debit_or_tombstone IS
  'A debit and its tombstone hold one key (0025): the insert''s uniqueness.';
COMMENT ON INDEX wallet_transactions_by_round IS
  'WalletRepo.pendingBetsOf, transactionsOfRounds and openRounds (a round''s transactions); the rounds foreign key.';
COMMENT ON INDEX wallet_transactions_pending IS
  'WalletRepo.pendingBets, stalePendingBets and pendingBetween (recovery, the stuck check, the statements).';
COMMENT ON INDEX wallet_transactions_by_partner IS
  'WalletRepo.transactions (a partner''s books, newest first) and createdBetween (the daily statements).';
COMMENT ON INDEX wallet_transactions_by_player IS
  'WalletRepo.transactions with a player (the books'' external_player_id); the players foreign key.';
COMMENT ON INDEX wallet_transactions_by_partner_currency IS
  'WalletRepo.transactions with a currency (the books'' ?currency=), newest first.';

COMMENT ON INDEX wallet_rounds_player_aggregator_round_key IS
  'WalletRepo.openBet and recordDecided (the round''s upsert) and withRoundLocked (the round''s lock).';
COMMENT ON INDEX wallet_rounds_id_aggregator_key IS
  'The target of wallet_transactions_round_aggregator_fkey (a transaction is of its round''s aggregator).';
COMMENT ON INDEX wallet_rounds_by_partner IS 'WalletRepo.rounds (a partner''s round by its id).';
COMMENT ON INDEX wallet_rounds_open IS 'WalletRepo.openRounds (the stuck-round check).';

COMMENT ON INDEX partner_callbacks_undelivered IS
  'OutboxRepo.queueOf and owedTo (a player''s delivery queue) and WalletRepo.openBet (whether the player has one).';
COMMENT ON INDEX partner_callbacks_by_partner IS 'OutboxRepo.list with a partner (the console''s and the partner''s callbacks).';
COMMENT ON INDEX partner_callbacks_by_transaction IS 'OutboxRepo.ofTransactions and rolledBack (a transaction''s callbacks).';
COMMENT ON INDEX partner_callbacks_environment_event_id IS 'An event id is written once per environment: the insert''s uniqueness.';
COMMENT ON INDEX partner_callbacks_by_player IS 'OutboxRepo.countOf (a shadow player''s callbacks counted around a balance asked).';
COMMENT ON INDEX partner_callbacks_exhausted IS 'OutboxRepo.exhausted (notifications out of attempts: the stuck check, the console).';
