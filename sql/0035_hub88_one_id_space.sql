-- Hub88's transaction_uuid is one id space for every kind (../shared/spec/hub88.md, section 6): a bet, a win and a
-- rollback never share one, where PlayFiver's and the sandbox's ids are per kind (their key stays
-- wallet_transactions_environment_aggregator_kind_txn_id). The route's look before the ledger writes cannot stop two
-- calls at the same moment; this key does: whichever is written second is refused, and answered as a used id. Every
-- Hub88 call writes one row under its own transaction_uuid (a rollback before its bet keeps the bet's id in
-- debit_txn_id, not txn_id; a refused bet is its one row; a crashed bet is settled in place), so nothing legitimate
-- meets it.
CREATE UNIQUE INDEX wallet_transactions_hub88_txn_id
  ON wallet_transactions (environment, txn_id)
  WHERE aggregator = 'hub88';
