import { Duration, Effect, Option, Schema } from "effect"
import { type SqlClient, SqlSchema, type Statement } from "effect/sql"
import { Aggregator } from "../domain/Aggregator.ts"
import { Environment } from "../domain/Environment.ts"
import type { PageRequest } from "../domain/Paging.ts"
import { TransactionKind, type WalletTransaction } from "../domain/Wallet.ts"
import type { DebitLedger, DebitLedgerQuery } from "../domain/WalletDebits.ts"
import type { OpenRound, RoundFilter, TransactionFilter } from "../domain/WalletQueries.ts"
import { IdFromBigInt, interval } from "../platform/SqlCodecs.ts"
import { PlayerStateColumns, playerStateOf } from "./LedgerMirror.ts"
import {
  decodeCount,
  decodeFirstCreated,
  decodeOpenSince,
  decodePendingPairs,
  decodeRounds,
  decodeTransactions,
  prefixedRoundColumns,
  roundColumns,
  roundOfPrefixed,
  RoundRow,
  transactionColumns,
  TransactionRow
} from "./WalletRows.ts"

/**
 * The ledger's reads (its `layerSql`, beside the writes of WalletRepoSql.ts): a transaction or a round by its keys,
 * pending bets, a partner's day, open rounds, and the books partners and operators page through. Each row decoded
 * once, by WalletRows.ts.
 */
export const makeReads = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(transactionColumns)
  const rounds = sql.literal(roundColumns)
  const selectTransactions = (statement: Statement.Statement<unknown>) =>
    statement.pipe(Effect.flatMap(decodeTransactions))
  const selectRounds = (statement: Statement.Statement<unknown>) =>
    statement.pipe(Effect.flatMap(decodeRounds), Effect.orDie)

  const transactionsWhere = (filter: TransactionFilter) => {
    const conditions = [sql`true`]
    if (filter.partnerId !== undefined) conditions.push(sql`partner_id = ${filter.partnerId}`)
    if (filter.environment !== undefined) conditions.push(sql`environment = ${filter.environment}`)
    if (filter.playerIds !== undefined) conditions.push(sql`player_id = ANY(${filter.playerIds})`)
    if (filter.currency !== undefined) conditions.push(sql`currency = ${filter.currency}`)
    if (filter.txnId !== undefined) conditions.push(sql`txn_id = ${filter.txnId}`)
    if (filter.kind !== undefined) conditions.push(sql`kind = ${filter.kind}`)
    if (filter.roundId !== undefined) conditions.push(sql`round_id = ${filter.roundId}`)
    if (filter.status !== undefined) conditions.push(sql`status = ${filter.status}`)
    if (filter.from !== undefined) conditions.push(sql`created_at >= ${filter.from}`)
    if (filter.to !== undefined) conditions.push(sql`created_at <= ${filter.to}`)
    return sql.and(conditions)
  }

  const findTransaction = SqlSchema.findOneOption({
    Request: Schema.Struct({
      environment: Environment,
      aggregator: Aggregator,
      kind: TransactionKind,
      txnId: Schema.String
    }),
    Result: TransactionRow,
    execute: ({ aggregator, environment, kind, txnId }) =>
      sql`SELECT ${columns} FROM wallet_transactions
          WHERE environment = ${environment} AND aggregator = ${aggregator} AND kind = ${kind} AND txn_id = ${txnId}`
  })
  const TxnKey = Schema.Struct({ environment: Environment, aggregator: Aggregator, txnId: Schema.String })
  const existingTxnIds = SqlSchema.findAll({
    Request: Schema.Array(TxnKey),
    Result: TxnKey.pipe(Schema.encodeKeys({ txnId: "txn_id" })),
    // One look per key, by the ids' whole key (environment, aggregator, kind, txn_id) with every kind named: as a join,
    // PostgreSQL took the keys for a hundred rows and read the whole ledger into a hash for them, more each call as
    // the ledger grew (a Hub88 bet's look at its id took 13 ms at 12,000 transactions).
    execute: (keys) =>
      sql`
        SELECT DISTINCT k.environment, k.aggregator, k."txnId" AS txn_id
        FROM jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) AS k(environment text, aggregator text, "txnId" text)
        CROSS JOIN LATERAL (
          SELECT 1 FROM wallet_transactions t
          WHERE t.environment = k.environment AND t.aggregator = k.aggregator
            AND t.kind = ANY(${TransactionKind.literals}::text[]) AND t.txn_id = k."txnId"
          LIMIT 1
        ) AS used
      `
  })
  const pendingBetsOf = SqlSchema.findAll({
    Request: Schema.Int,
    Result: TransactionRow,
    execute: (roundRef) =>
      sql`SELECT ${columns} FROM wallet_transactions WHERE round_ref = ${roundRef} AND status = 'pending' ORDER BY id`
  })
  const roundsByRef = SqlSchema.findAll({
    Request: Schema.Array(Schema.Int),
    Result: RoundRow,
    execute: (refs) => sql`SELECT ${rounds} FROM wallet_rounds WHERE id = ANY(${refs}::bigint[]) ORDER BY id`
  })
  const transactionsOfRounds = SqlSchema.findAll({
    Request: Schema.Array(Schema.Int),
    Result: TransactionRow,
    execute: (refs) =>
      sql`SELECT ${columns} FROM wallet_transactions WHERE round_ref = ANY(${refs}::bigint[]) ORDER BY id`
  })

  const decodeLedgerPlayer = Schema.decodeUnknownEffect(
    Schema.Struct({ ...PlayerStateColumns.fields, player_callbacks: IdFromBigInt })
  )
  const decodeLedgerRound = Schema.decodeUnknownEffect(RoundRow)
  const decodeLedgerTransaction = Schema.decodeUnknownEffect(TransactionRow)

  /**
   * One statement: the player's state, the event's own transaction and the debit it names (whoever's), the round it
   * is decided on (the debit's, when the debit is the player's; else the event's own) and that round's transactions.
   * No row when the player is gone. Each row is a transaction (or none) beside the round's columns and the player's
   * (a transaction found twice, as the event's and its round's, is read once, by its ref).
   * Each look is one arm naming its whole key: written as one OR, a ledger whose statistics were older than its rows
   * (a new or fast-growing one) had PostgreSQL walk every transaction of the environment (12,700 buffers a call on a
   * ledger of 20,000, test/wallet/debit-ledger-plan.test.ts).
   */
  const debitLedger = (query: DebitLedgerQuery) =>
    sql`
      WITH player AS (
        SELECT balance AS player_balance, name AS player_name, email AS player_email,
               callbacks_written AS player_callbacks
        FROM partner_players WHERE id = ${query.playerId}
      ),
      debit AS (
        SELECT round_ref FROM wallet_transactions
        WHERE environment = ${query.environment} AND aggregator = ${query.aggregator} AND kind = 'bet'
          AND txn_id = ${query.debitTxnId} AND player_id = ${query.playerId}
      ),
      round AS (
        SELECT ${sql.literal(prefixedRoundColumns)} FROM wallet_rounds WHERE id = (SELECT round_ref FROM debit)
        UNION ALL
        SELECT ${sql.literal(prefixedRoundColumns)} FROM wallet_rounds
        WHERE NOT EXISTS (SELECT 1 FROM debit) AND player_id = ${query.playerId}
          AND aggregator = ${query.aggregator} AND round_id = ${query.roundId}
      ),
      found AS (
        SELECT ${columns} FROM wallet_transactions
        WHERE environment = ${query.environment} AND aggregator = ${query.aggregator}
          AND kind = ${query.kind} AND txn_id = ${query.txnId}
        UNION ALL
        SELECT ${columns} FROM wallet_transactions
        WHERE environment = ${query.environment} AND aggregator = ${query.aggregator}
          AND kind = 'bet' AND txn_id = ${query.debitTxnId}
        UNION ALL
        SELECT ${columns} FROM wallet_transactions WHERE round_ref = (SELECT r_id FROM round)
      )
      SELECT found.*, round.*, player.* FROM player LEFT JOIN found ON true LEFT JOIN round ON true
    `.pipe(
      Effect.flatMap((rows: ReadonlyArray<Record<string, unknown>>) =>
        rows.length === 0 ? Effect.succeed(Option.none<DebitLedger>()) : Effect.gen(function*() {
          const player = yield* decodeLedgerPlayer(rows[0])
          const round = rows[0].r_id === null
            ? Option.none()
            : Option.some(yield* decodeLedgerRound(roundOfPrefixed(rows[0])))
          const byRef = new Map<number, WalletTransaction>()
          for (const row of rows) {
            if (row.id === null) continue
            const transaction = yield* decodeLedgerTransaction(row)
            byRef.set(transaction.ref, transaction)
          }
          const found = [...byRef.values()].sort((a, b) => a.ref - b.ref)
          const ofRound = Option.isSome(round) ? found.filter((t) => t.roundRef === round.value.ref) : []
          return Option.some<DebitLedger>({
            player: { ...playerStateOf(player), callbacksWritten: player.player_callbacks },
            seen: found.find((t) => t.kind === query.kind && t.txnId === query.txnId),
            debit: found.find((t) => t.kind === "bet" && t.txnId === query.debitTxnId),
            round,
            transactions: ofRound
          })
        })
      ),
      Effect.orDie
    )

  return {
    debitLedger,
    callbacksWritten: (playerId: number) =>
      sql`SELECT callbacks_written AS n FROM partner_players WHERE id = ${playerId}`.pipe(
        Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ n: IdFromBigInt })))),
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.orDie
      ),
    findTransaction: (environment: Environment, aggregator: Aggregator, kind: TransactionKind, txnId: string) =>
      Effect.orDie(findTransaction({ environment, aggregator, kind, txnId })),
    existingTxnIds: (
      keys: ReadonlyArray<
        { readonly environment: Environment; readonly aggregator: Aggregator; readonly txnId: string }
      >
    ) => keys.length === 0 ? Effect.succeed([]) : Effect.orDie(existingTxnIds(keys)),
    pendingBetsOf: (roundRef: number) => Effect.orDie(pendingBetsOf(roundRef)),
    stalePendingBets: (olderThan: Duration.Duration, limit: number) =>
      selectTransactions(sql`
        SELECT ${columns} FROM wallet_transactions
        WHERE status = 'pending' AND created_at <= now() - ${interval(olderThan)}::interval
        ORDER BY created_at LIMIT ${limit}
      `).pipe(Effect.orDie),
    createdBetween: (partnerId: number, environment: Environment, from: Date, to: Date) =>
      selectTransactions(sql`
        SELECT ${columns} FROM wallet_transactions
        WHERE partner_id = ${partnerId} AND environment = ${environment} AND created_at >= ${from} AND created_at < ${to}
        ORDER BY created_at, id
      `).pipe(Effect.orDie),
    pendingBetween: (from: Date, to: Date) =>
      sql`
        SELECT DISTINCT partner_id, environment FROM wallet_transactions
        WHERE status = 'pending' AND created_at >= ${from} AND created_at < ${to}
      `.pipe(Effect.flatMap(decodePendingPairs), Effect.orDie),
    firstCreatedAt: sql`SELECT min(created_at) AS first FROM wallet_transactions`.pipe(
      Effect.flatMap(decodeFirstCreated),
      Effect.map(([row]) => Option.fromNullishOr(row.first)),
      Effect.orDie
    ),
    openRounds: (olderThan: Duration.Duration, limit: number) =>
      sql`
        SELECT ${rounds}, open_since FROM (
          SELECT r.*, COALESCE(
            (SELECT min(t.created_at) FROM wallet_transactions t WHERE t.round_ref = r.id AND t.status = 'pending'),
            r.updated_at
          ) AS open_since
          FROM wallet_rounds r WHERE r.status = 'open'
        ) open_rounds
        WHERE open_since <= now() - ${interval(olderThan)}::interval
        ORDER BY open_since, id
        LIMIT ${limit}
      `.pipe(
        Effect.flatMap((rows) =>
          Effect.zipWith(decodeRounds(rows), decodeOpenSince(rows), (decoded, since) =>
            decoded.map((round, i): OpenRound => ({ round, openSince: since[i].open_since })))
        ),
        Effect.orDie
      ),
    pendingBets: (limit: number) =>
      selectTransactions(sql`
        SELECT ${columns} FROM wallet_transactions WHERE status = 'pending' ORDER BY created_at LIMIT ${limit}
      `).pipe(Effect.orDie),
    transactions: (filter: TransactionFilter, page: PageRequest) =>
      Effect.all({
        transactions: selectTransactions(sql`
          SELECT ${columns} FROM wallet_transactions WHERE ${transactionsWhere(filter)}
          ORDER BY created_at DESC, id DESC
          LIMIT ${page.perPage} OFFSET ${(page.page - 1) * page.perPage}
        `),
        total: sql`
          SELECT count(*)::int AS n FROM wallet_transactions WHERE ${transactionsWhere(filter)}
        `.pipe(Effect.flatMap(decodeCount), Effect.map(([row]) => row.n))
      }, { concurrency: 2 }).pipe(Effect.orDie),
    rounds: (filter: RoundFilter) => {
      const conditions = [sql`round_id = ${filter.roundId}`]
      if (filter.partnerId !== undefined) conditions.push(sql`partner_id = ${filter.partnerId}`)
      if (filter.environment !== undefined) conditions.push(sql`environment = ${filter.environment}`)
      if (filter.playerIds !== undefined) conditions.push(sql`player_id = ANY(${filter.playerIds})`)
      return selectRounds(sql`SELECT ${rounds} FROM wallet_rounds WHERE ${sql.and(conditions)} ORDER BY id`)
    },
    roundsByRef: (refs: ReadonlyArray<number>) =>
      refs.length === 0 ? Effect.succeed([]) : Effect.orDie(roundsByRef(refs)),
    transactionsOfRounds: (refs: ReadonlyArray<number>) =>
      refs.length === 0 ? Effect.succeed([]) : Effect.orDie(transactionsOfRounds(refs))
  }
}
