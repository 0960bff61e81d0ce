/**
 * The ledger's rows (wallet_transactions, wallet_rounds) at the SQL edge: the columns WalletRepoSql selects, and the
 * codecs decoding them, once, into the domain's own shapes (Round, WalletTransaction).
 */
import { Effect, Schema, SchemaGetter, Struct } from "effect"
import { Environment } from "../domain/Environment.ts"
import { refusals } from "../domain/WalletEvents.ts"
import { Round, StoredOutcome, WalletTransaction } from "../domain/Wallet.ts"
import { PlayerStateColumns } from "./LedgerMirror.ts"
import { IdFromBigInt, MinorFromNumeric } from "../platform/SqlCodecs.ts"

/**
 * A kept outcome as wallet_transactions.answer holds it, in the form rows have had since the first release: `msg`
 * empty or the refusal, and the balance, now in minor units as a JSON string (sql/0027 moved the older rows' units
 * to it), so no JSON number ever rounds it.
 */
export const StoredOutcomeColumn = Schema.Struct({
  msg: Schema.Literals(["", ...refusals]),
  balance: Schema.optionalKey(Schema.String)
}).pipe(Schema.decodeTo(StoredOutcome, {
  decode: SchemaGetter.transform(({ balance, msg }) => ({
    refusal: msg === "" ? null : msg,
    ...(balance === undefined ? {} : { balance: BigInt(balance) })
  })),
  encode: SchemaGetter.transform(({ balance, refusal }) => ({
    msg: refusal ?? "" as const,
    ...(balance === undefined ? {} : { balance: balance.toString() })
  }))
}))

// Rows are decoded once, into the domain's own shapes: the columns' names and SQL types at this edge only.
export const TransactionRow = WalletTransaction.mapFields(Struct.assign({
  ref: IdFromBigInt,
  partnerId: IdFromBigInt,
  playerId: IdFromBigInt,
  roundRef: IdFromBigInt,
  bet: MinorFromNumeric,
  win: MinorFromNumeric,
  amount: MinorFromNumeric,
  balanceAfter: Schema.NullOr(MinorFromNumeric),
  answer: Schema.NullOr(StoredOutcomeColumn)
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
const decodeQueued = Schema.decodeUnknownEffect(Schema.Struct({ player_queued: Schema.Boolean }))
export const decodeOpened = (row: unknown) =>
  Effect.all({
    transaction: decodeTransaction(row),
    state: decodePlayerState(row),
    queued: Effect.map(decodeQueued(row), (columns) => columns.player_queued)
  })

export const RoundRow = Round.mapFields(Struct.assign({
  ref: IdFromBigInt,
  partnerId: IdFromBigInt,
  playerId: IdFromBigInt,
  betTotal: MinorFromNumeric,
  winTotal: MinorFromNumeric,
  version: IdFromBigInt
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
const encodeStoredAnswer = Schema.encodeSync(StoredOutcomeColumn)
export const storedAnswerColumn = (outcome: StoredOutcome) => JSON.stringify(encodeStoredAnswer(outcome))

export const transactionColumns =
  `id, kind, txn_id, fingerprint, partner_id, environment, aggregator, player_id, currency, round_ref, round_id, debit_txn_id, game_code, provider_code,
  bet, win, status, refusal, note, amount, balance_after, answer, created_at, settled_at,
  (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_millis`
export const roundColumns =
  "id, partner_id, environment, player_id, aggregator, round_id, status, pending_bets, bet_total, win_total, refunded_early, created_at, updated_at, version"

/**
 * A round's columns beside a transaction's in one row (the debit ledger's read): each prefixed `r_`, and read back
 * without it.
 */
export const prefixedRoundColumns = roundColumns.split(", ").map((column) => `${column} AS r_${column}`).join(", ")
export const roundOfPrefixed = (row: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(row).filter(([column]) => column.startsWith("r_")).map(([column, value]) => [column.slice(2), value])
  )
