/**
 * The ledger's rows (wallet_transactions, wallet_rounds) at the SQL edge: the columns WalletRepoSql selects, and the
 * codecs decoding them, once, into the domain's own shapes (Round, WalletTransaction).
 */
import { Effect, Schema, Struct } from "effect"
import { Environment } from "../domain/Environment.ts"
import { Round, StoredOutcomeAsAnswer, WalletTransaction } from "../domain/Wallet.ts"
import { PlayerStateColumns } from "./LedgerMirror.ts"
import { CentsFromNumeric, IdFromBigInt } from "../platform/SqlCodecs.ts"

// Rows are decoded once, into the domain's own shapes: the columns' names and SQL types at this edge only.
export const TransactionRow = WalletTransaction.mapFields(Struct.assign({
  ref: IdFromBigInt,
  partnerId: IdFromBigInt,
  playerId: IdFromBigInt,
  roundRef: IdFromBigInt,
  bet: CentsFromNumeric,
  win: CentsFromNumeric,
  amount: CentsFromNumeric,
  balanceAfter: Schema.NullOr(CentsFromNumeric),
  // Kept as every release has kept it (rows written before the ledger spoke events read the same).
  answer: Schema.NullOr(StoredOutcomeAsAnswer)
})).pipe(Schema.encodeKeys({
  ref: "id",
  txnId: "txn_id",
  partnerId: "partner_id",
  playerId: "player_id",
  roundRef: "round_ref",
  roundId: "round_id",
  debitTxnId: "debit_txn_id",
  gameCode: "game_code",
  providerCode: "provider_code",
  balanceAfter: "balance_after",
  createdAt: "created_at",
  settledAt: "settled_at",
  ageMillis: "age_millis"
}))
export const decodeTransactions = Schema.decodeUnknownEffect(Schema.Array(TransactionRow))
/** An opened bet's row: the transaction's columns and the player's (playerReading). */
const decodeTransaction = Schema.decodeUnknownEffect(TransactionRow)
const decodePlayerState = Schema.decodeUnknownEffect(PlayerStateColumns)
export const decodeOpened = (row: unknown) =>
  Effect.all({ transaction: decodeTransaction(row), state: decodePlayerState(row) })

export const RoundRow = Round.mapFields(Struct.assign({
  ref: IdFromBigInt,
  partnerId: IdFromBigInt,
  playerId: IdFromBigInt,
  betTotal: CentsFromNumeric,
  winTotal: CentsFromNumeric
})).pipe(Schema.encodeKeys({
  ref: "id",
  partnerId: "partner_id",
  playerId: "player_id",
  roundId: "round_id",
  pendingBets: "pending_bets",
  betTotal: "bet_total",
  winTotal: "win_total",
  refundedEarly: "refunded_early",
  createdAt: "created_at",
  updatedAt: "updated_at"
}))
export const decodeRounds = Schema.decodeUnknownEffect(Schema.Array(RoundRow))
export const decodePendingPairs = Schema.decodeUnknownEffect(Schema.Array(
  Schema.Struct({ partnerId: IdFromBigInt, environment: Environment }).pipe(
    Schema.encodeKeys({ partnerId: "partner_id" })
  )
))
export const decodeOpenSince = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ open_since: Schema.Date })))
export const decodeFirstCreated = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ first: Schema.NullOr(Schema.Date) }))
)
/** A count, as `count(*)::int AS n` gives it. */
export const decodeCount = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ n: Schema.Int })))

/** A kept outcome as its column holds it (JSON text). */
export const storedAnswerColumn = (outcome: typeof StoredOutcomeAsAnswer.Type) =>
  JSON.stringify(Schema.encodeSync(StoredOutcomeAsAnswer)(outcome))

export const transactionColumns =
  `id, kind, txn_id, fingerprint, partner_id, environment, aggregator, player_id, round_ref, round_id, debit_txn_id, game_code, provider_code,
  bet, win, status, refusal, note, amount, balance_after, answer, created_at, settled_at,
  (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_millis`
export const roundColumns =
  "id, partner_id, environment, player_id, aggregator, round_id, status, pending_bets, bet_total, win_total, refunded_early, created_at, updated_at"
