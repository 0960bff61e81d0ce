import { type Duration, Effect, Option, Schedule } from "effect"
import { SqlClient, SqlError, type Statement } from "effect/sql"
import type { Aggregator } from "../domain/Aggregator.ts"
import type { NewCallback } from "../domain/Callbacks.ts"
import type { Round, WalletTransaction } from "../domain/Wallet.ts"
import {
  DebitRolledBack,
  type NewTransaction,
  type OpenedBet,
  type Outcome,
  type PlayerAsDecided,
  RoundChanged,
  type RoundWrite,
  storedAnswer,
  TransactionExists
} from "../domain/WalletWrites.ts"
import { mirrorWriting, playerReading, playerStateOf } from "./LedgerMirror.ts"
import { type PlayerIdentity, playerOf } from "../domain/Partner.ts"
import { interval } from "../platform/SqlCodecs.ts"
import { queuesScheduling } from "./outbox/OutboxRepo.ts"
import { makeReads } from "./WalletRepoReads.ts"
import {
  decodeCount,
  decodeOpened,
  decodeRounds,
  decodeTransactions,
  roundColumns,
  storedAnswerColumn,
  transactionColumns
} from "./WalletRows.ts"

const violates = (constraint: string) => (error: unknown): boolean =>
  SqlError.isSqlError(error) && error.reason._tag === "UniqueViolation" && error.reason.constraint === constraint
/**
 * The id is taken: of this kind, or (Hub88's ids are one space for every kind, domain/Aggregator.ts idsAcrossKinds)
 * of another kind of an aggregator whose ids are; either way the call is answered from what holds it.
 */
const isKeyTaken = (error: unknown) =>
  violates("wallet_transactions_environment_aggregator_kind_txn_id")(error) ||
  violates("wallet_transactions_hub88_txn_id")(error)
/** A debit and its tombstone (a rollback that came first) hold one key: whichever is written second is refused. */
const isDebitKeyTaken = violates("wallet_transactions_debit_or_tombstone")
/** A debit is undone once. */
const isUndoneAlready = violates("wallet_transactions_one_rollback_per_debit")

/** Two writers meeting on one round and one player in opposite order: PostgreSQL stops one, which tries again. */
/** A deadlock or a serialization failure: PostgreSQL rolled the transaction back, and running it again is safe. */
const isDeadlock = (error: unknown): error is SqlError.SqlError =>
  SqlError.isSqlError(error) &&
  (error.reason._tag === "DeadlockError" || error.reason._tag === "SerializationError")

const retryDeadlocks = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.retry({
      while: isDeadlock,
      schedule: Schedule.exponential("10 millis"),
      times: 5
    })
  )

const dieOnSqlError = <A, E, R>(
  effect: Effect.Effect<A, E | SqlError.SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R> =>
  Effect.catchIf(effect, SqlError.isSqlError, Effect.die) as Effect.Effect<A, Exclude<E, SqlError.SqlError>, R>

/**
 * WalletRepo over PostgreSQL (its `layerSql`; its reads in WalletRepoReads.ts): each step of the state machine is one statement, or one transaction
 * holding the round's row lock. The ledger's atomic write is this repository's: the round, the transaction, the
 * callbacks (partner_callbacks rows and their players' delivery queues, partner_callback_queues, which the outbox then delivers) and the
 * player's mirror (LedgerMirror.ts) in one statement.
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(transactionColumns)
  const rounds = sql.literal(roundColumns)
  const reads = makeReads(sql)

  const selectTransactions = (statement: Statement.Statement<unknown>) =>
    statement.pipe(Effect.flatMap(decodeTransactions))
  const selectRounds = (statement: Statement.Statement<unknown>) =>
    statement.pipe(Effect.flatMap(decodeRounds), Effect.orDie)

  /**
   * One statement: the player read (its mirror as the bet is written), the round opened, the bet written
   * pending, and whether the player has undelivered notifications (partner_callbacks_undelivered), so that a player
   * with none is not looked up again before the partner is asked. Nothing is written when the round was refunded or
   * the player is gone.
   */
  const openBet = (bet: NewTransaction, player: PlayerIdentity) =>
    sql`
      WITH ${playerReading(sql, bet.playerId)},
      round AS (
        INSERT INTO wallet_rounds (partner_id, environment, player_id, aggregator, round_id, status, pending_bets)
        SELECT ${bet.partnerId}, ${bet.environment}, ${bet.playerId}, ${bet.aggregator}, ${bet.roundId}, 'open', 1 FROM player
        ON CONFLICT (player_id, aggregator, round_id) DO UPDATE
          SET status = 'open', pending_bets = wallet_rounds.pending_bets + 1, updated_at = now(),
              version = wallet_rounds.version + 1
          WHERE wallet_rounds.status <> 'refunded'
        RETURNING id
      ),
      opened AS (
        INSERT INTO wallet_transactions (kind, txn_id, fingerprint, partner_id, environment, aggregator, player_id, currency,
                                         round_ref, round_id, game_code, provider_code, bet, win, amount, status)
        SELECT 'bet', ${bet.txnId}, ${bet.fingerprint}, ${bet.partnerId}, ${bet.environment}, ${bet.aggregator}, ${bet.playerId},
               ${bet.currency}, round.id, ${bet.roundId},
               ${bet.gameCode}, ${bet.providerCode}, ${String(bet.bet)}, ${String(bet.win)}, 0, 'pending'
        FROM round
        RETURNING ${columns}
      )
      SELECT opened.*, player.*,
             EXISTS (SELECT 1 FROM partner_callbacks
                     WHERE player_id = ${bet.playerId} AND status <> 'delivered' AND kind <> 'bet') AS player_queued
      FROM opened, player
    `.pipe(
      Effect.flatMap((rows) => rows.length === 0 ? Effect.succeed(undefined) : decodeOpened(rows[0])),
      Effect.map((opened): OpenedBet =>
        opened === undefined
          ? { _tag: "NotOpened" }
          : {
            _tag: "Opened",
            transaction: opened.transaction,
            player: playerOf(player, playerStateOf(opened.state)),
            queued: opened.queued
          }
      ),
      retryDeadlocks,
      Effect.catchIf(isKeyTaken, () => Effect.fail(new TransactionExists({ kind: "bet", txnId: bet.txnId }))),
      Effect.catchIf(isDebitKeyTaken, () => Effect.fail(new DebitRolledBack({ txnId: bet.txnId }))),
      Effect.catchTag(["SqlError", "SchemaError"], Effect.die)
    )

  /**
   * The decision's callbacks, as common table expressions of its statement: each recorded for the transaction
   * `transactionRef` names, and each player's delivery queue made due, only if the CTE named `guard` produced a row.
   */
  const callbacksWriting = (
    callbacks: ReadonlyArray<NewCallback>,
    options: { readonly guard: string; readonly transactionRef: Statement.Fragment }
  ) => {
    const rows = callbacks.map((callback) => {
      const status = callback.asked === undefined
        ? "pending"
        : callback.asked.error === null
        ? "delivered"
        : "failed"
      return {
        event_id: callback.eventId,
        partner_id: callback.partnerId,
        environment: callback.environment,
        player_id: callback.playerId,
        kind: callback.kind,
        txn_id: callback.txnId,
        body: callback.body,
        status,
        attempts: callback.asked === undefined ? 0 : 1,
        last_error: callback.asked?.error ?? null
      }
    })
    // Each player with a notification to deliver has their delivery queue made due (and the workers told, at commit).
    const queues = [...new Set(rows.filter((row) => row.status === "pending").map((row) => row.player_id))]
    // The delivery queues are written first, and the insert refers to them: the caller's statement need not know
    // this one's parts.
    return sql`
        scheduled_queues AS (${
      queuesScheduling(
        sql,
        sql`SELECT queue.player_id::bigint FROM jsonb_array_elements_text(${
          JSON.stringify(queues)
        }::jsonb) AS queue(player_id)
            WHERE EXISTS (SELECT 1 FROM ${sql(options.guard)})`,
        "preserve"
      )
    }),
        written_callbacks AS (
          INSERT INTO partner_callbacks (event_id, partner_id, environment, player_id, kind, txn_id, transaction_ref, body,
                                         status, attempts, last_error, delivered_at)
          SELECT c.event_id, c.partner_id, c.environment, c.player_id, c.kind, c.txn_id, ${options.transactionRef}, c.body, c.status,
                 c.attempts, c.last_error, CASE WHEN c.status = 'delivered' THEN now() END
          FROM jsonb_to_recordset(${
      JSON.stringify(rows)
    }::jsonb) AS c(event_id text, partner_id bigint, environment text, player_id bigint,
            kind text, txn_id text, body text, status text, attempts integer, last_error text)
          WHERE EXISTS (SELECT 1 FROM ${sql(options.guard)}) AND (SELECT count(*) FROM scheduled_queues) >= 0
          RETURNING id
        )
      `
  }

  const outcomeColumns = (outcome: Outcome) => ({
    status: outcome.status,
    refusal: outcome.refusal,
    note: outcome.note,
    amount: String(outcome.amount),
    balanceAfter: outcome.balanceAfter === null ? null : String(outcome.balanceAfter),
    answer: storedAnswerColumn(storedAnswer(outcome))
  })

  const settleBet = (
    bet: WalletTransaction,
    outcome: Outcome,
    callbacks: ReadonlyArray<NewCallback>,
    options: { readonly olderThan?: Duration.Duration | undefined } = {}
  ) => {
    const o = outcomeColumns(outcome)
    const applied = outcome.status === "applied"
    const stale = options.olderThan === undefined
      ? sql`true`
      : sql`created_at <= now() - ${interval(options.olderThan)}::interval`
    return sql`
      WITH settled AS (
        UPDATE wallet_transactions
        SET status = ${o.status}, refusal = ${o.refusal}, note = ${o.note}, amount = ${o.amount},
            balance_after = ${o.balanceAfter}, answer = ${o.answer}::jsonb, settled_at = now()
        WHERE id = ${bet.ref} AND status = 'pending' AND ${stale}
        RETURNING id, round_ref
      ),
      round AS (
        UPDATE wallet_rounds
        SET pending_bets = pending_bets - 1,
            status = CASE WHEN status = 'refunded' THEN 'refunded' WHEN pending_bets > 1 THEN 'open' ELSE 'settled' END,
            bet_total = bet_total + ${applied ? String(bet.bet) : "0"},
            win_total = win_total + ${applied ? String(bet.win) : "0"},
            updated_at = now(), version = version + 1
        WHERE id = (SELECT round_ref FROM settled)
        RETURNING id
      ),
      ${mirrorWriting(sql, { playerId: bet.playerId, balance: outcome.mirror, callbacks }, "round")},
      ${callbacksWriting(callbacks, { guard: "round", transactionRef: sql`${bet.ref}::bigint` })}
      SELECT count(*)::int AS n FROM round
    `.pipe(
      Effect.flatMap(decodeCount),
      Effect.map(([row]) => row.n === 1),
      retryDeadlocks,
      Effect.orDie
    )
  }

  const lockRound = (playerId: number, aggregator: Aggregator, roundId: string) =>
    selectRounds(
      sql`SELECT ${rounds} FROM wallet_rounds
          WHERE player_id = ${playerId} AND aggregator = ${aggregator} AND round_id = ${roundId} FOR UPDATE`
    )
      .pipe(Effect.map((found) => Option.fromNullishOr(found[0])))

  /**
   * The decision's guard, as common table expressions: `held_round`, the round at the version it was decided on, and
   * `held_player`, the player as it was decided on (PlayerAsDecided), each locked (round first, as every write of the
   * ledger takes them) and compared as locked. A row locked after waiting is read at its latest version, so a change
   * committed meanwhile is seen; the rest of the statement writes only when `held_player` has its row. A round to be
   * created has no row to hold: its insert meets the round's key instead.
   */
  const guardHolding = (round: RoundWrite, player: PlayerAsDecided) =>
    sql`held_round AS MATERIALIZED (
        SELECT id FROM wallet_rounds
        WHERE ${round._tag === "Update" ? sql`id = ${round.roundRef} AND version = ${round.version}` : sql`false`}
        FOR NO KEY UPDATE
      ),
      held_player AS MATERIALIZED (
        SELECT id FROM partner_players
        WHERE id = ${player.playerId}
          AND ${player.mirror === null ? sql`balance IS NULL` : sql`balance = ${String(player.mirror)}::numeric`}
          AND ${player.callbacksWritten === undefined ? sql`true` : sql`callbacks_written = ${player.callbacksWritten}`}
          AND (${round._tag === "Create"} OR EXISTS (SELECT 1 FROM held_round))
        FOR NO KEY UPDATE
      )`

  const roundWriting = (transaction: NewTransaction, round: RoundWrite) =>
    round._tag === "Create"
      ? sql`round AS (
          INSERT INTO wallet_rounds (partner_id, environment, player_id, aggregator, round_id, status, refunded_early, bet_total,
                                     win_total)
          SELECT ${transaction.partnerId}, ${transaction.environment}, ${transaction.playerId}, ${transaction.aggregator},
                 ${transaction.roundId}, ${round.status}, ${round.refundedEarly}, ${String(round.addBet)},
                 ${String(round.addWin)}
          FROM held_player
          ON CONFLICT (player_id, aggregator, round_id) DO NOTHING
          RETURNING id
        )`
      : sql`round AS (
          UPDATE wallet_rounds
          SET status = CASE WHEN ${round.refund} OR status = 'refunded' THEN 'refunded'
                            WHEN pending_bets > 0 THEN 'open' ELSE 'settled' END,
              bet_total = bet_total + ${String(round.addBet)}, win_total = win_total + ${String(round.addWin)},
              updated_at = now(), version = version + 1
          WHERE id = ${round.roundRef} AND EXISTS (SELECT 1 FROM held_player) AND NOT (${round.refund} AND pending_bets > 0)
          RETURNING id
        )`

  const recordDecided = (
    transaction: NewTransaction,
    outcome: Outcome,
    round: RoundWrite,
    callbacks: ReadonlyArray<NewCallback>,
    player: PlayerAsDecided
  ) => {
    const o = outcomeColumns(outcome)
    return selectTransactions(sql`
      WITH ${guardHolding(round, player)},
      ${roundWriting(transaction, round)},
      recorded AS (
        INSERT INTO wallet_transactions (kind, txn_id, fingerprint, partner_id, environment, aggregator, player_id, currency,
                                         round_ref, round_id, debit_txn_id, game_code, provider_code, bet, win, status,
                                         refusal, note, amount, balance_after, answer, settled_at)
        SELECT ${transaction.kind}, ${transaction.txnId}, ${transaction.fingerprint}, ${transaction.partnerId},
               ${transaction.environment}, ${transaction.aggregator}, ${transaction.playerId}, ${transaction.currency},
               round.id, ${transaction.roundId},
               ${transaction.debitTxnId}, ${transaction.gameCode}, ${transaction.providerCode},
               ${String(transaction.bet)}, ${String(transaction.win)}, ${o.status}, ${o.refusal}, ${o.note},
               ${o.amount}, ${o.balanceAfter}, ${o.answer}::jsonb, now()
        FROM round
        RETURNING ${columns}
      ),
      ${mirrorWriting(sql, { playerId: transaction.playerId, balance: outcome.mirror, callbacks }, "recorded")},
      ${callbacksWriting(callbacks, { guard: "recorded", transactionRef: sql`(SELECT id FROM recorded)` })}
      SELECT * FROM recorded
    `).pipe(
      // Nothing written: the round or the player changed since the decision read them (or the round to create exists).
      Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(new RoundChanged()) : Effect.succeed(rows[0])),
      // A deadlock rolled the statement (or withRoundLocked's transaction) back: nothing was written, decide again.
      Effect.catchIf((error): boolean => isDeadlock(error), () => Effect.fail(new RoundChanged())),
      Effect.catchIf(
        isKeyTaken,
        () => Effect.fail(new TransactionExists({ kind: transaction.kind, txnId: transaction.txnId }))
      ),
      Effect.catchIf(
        isDebitKeyTaken,
        (): Effect.Effect<never, DebitRolledBack | RoundChanged> =>
          transaction.kind === "bet"
            ? Effect.fail(new DebitRolledBack({ txnId: transaction.txnId }))
            : Effect.fail(new RoundChanged())
      ),
      Effect.catchIf(isUndoneAlready, () => Effect.fail(new RoundChanged())),
      Effect.catchTag(["SqlError", "SchemaError"], Effect.die)
    )
  }

  return {
    openBet,
    settleBet,
    withRoundLocked: <A, E, R>(
      playerId: number,
      aggregator: Aggregator,
      roundId: string,
      work: (round: Option.Option<Round>) => Effect.Effect<A, E, R>
    ) =>
      dieOnSqlError(
        retryDeadlocks(sql.withTransaction(
          Effect.flatMap(lockRound(playerId, aggregator, roundId), work).pipe(
            // A deadlock met by a step that cannot fail (the mirror's lock, a statement that dies on SQL errors) is
            // the transaction's to retry, not a defect: it rolls back, and the whole decision runs again.
            Effect.catchDefect((defect) => isDeadlock(defect) ? Effect.fail(defect) : Effect.die(defect))
          )
        ))
      ),
    recordDecided,
    ...reads
  }
})
