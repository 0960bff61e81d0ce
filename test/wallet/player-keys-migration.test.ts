/**
 * The wallet rows' one foreign key to their player (sql/0047): a round, a transaction or a callback names its player
 * with the player's partner and environment, so a row naming another partner or environment than its player's is
 * refused by PostgreSQL (the environment as before, the partner now too), and a ledger written before the migration
 * keeps every row.
 */
import { NodeServices } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import * as Database from "../../src/platform/Database.ts"
import { scopedDatabase } from "../support/TestDatabase.ts"

const onDatabase = (url: string) => Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 }))

const migrateUpTo = (last: number) =>
  Effect.flatMap(Effect.orDie(Database.migrationSettings), (settings) =>
    PgMigrator.run({
      loader: Effect.map(
        Database.sqlFileLoader(Database.migrationsDirectory, settings),
        (all) => all.filter(([id]) => id <= last)
      )
    })).pipe(Effect.provide(NodeServices.layer))

/** Two partners, a live player of the first; what the rows below name. */
const partnersAndPlayer = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [first] = yield* sql<{ id: number }>`
    INSERT INTO partners (name, slug) VALUES ('Keys One', 'keys-one') RETURNING id::int`
  const [second] = yield* sql<{ id: number }>`
    INSERT INTO partners (name, slug) VALUES ('Keys Two', 'keys-two') RETURNING id::int`
  const [player] = yield* sql<{ id: number }>`
    INSERT INTO partner_players (partner_id, environment, external_player_id, currency, balance)
    VALUES (${first.id}, 'live', 'ana', 'BRL', 1000) RETURNING id::int`
  return { partnerId: first.id, otherPartnerId: second.id, playerId: player.id }
})

/** A round, its pending bet and the bet's callback, naming `partnerId` and `environment` for the player. */
const ledgerRows = (row: { partnerId: number; playerId: number; environment: string; key: string }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [round] = yield* sql<{ id: number }>`
      INSERT INTO wallet_rounds (partner_id, environment, player_id, aggregator, round_id, status, pending_bets)
      VALUES (${row.partnerId}, ${row.environment}, ${row.playerId}, 'sandbox', ${row.key}, 'open', 1)
      RETURNING id::int`
    const [transaction] = yield* sql<{ id: number }>`
      INSERT INTO wallet_transactions (kind, txn_id, partner_id, environment, aggregator, player_id, currency, round_ref,
                                       round_id, bet, win, amount, status)
      VALUES ('bet', ${row.key}, ${row.partnerId}, ${row.environment}, 'sandbox', ${row.playerId}, 'BRL', ${round.id},
              ${row.key}, 100, 0, 0, 'pending')
      RETURNING id::int`
    yield* sql`
      INSERT INTO partner_callbacks (event_id, partner_id, environment, player_id, kind, txn_id, transaction_ref, body,
                                     status)
      VALUES (${`evt_${row.key}`}, ${row.partnerId}, ${row.environment}, ${row.playerId}, 'bet', ${row.key},
              ${transaction.id}, '{}', 'delivered')`
  })

/** The constraint a write broke, when PostgreSQL refused it for a foreign key (23503). */
const refusedBy = <A, R>(write: Effect.Effect<A, SqlError.SqlError, R>) =>
  write.pipe(
    Effect.flip,
    Effect.map((error) => {
      const cause = error.reason.cause as { readonly code?: string; readonly constraint?: string }
      assert.strictEqual(cause.code, "23503", String(error))
      return cause.constraint
    })
  )

it.effect("a wallet row naming another partner or environment than its player's is refused, each table by its key", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase()
    yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { otherPartnerId, partnerId, playerId } = yield* partnersAndPlayer
      yield* ledgerRows({ partnerId, playerId, environment: "live", key: "kept" })

      // Another partner's round, or a round of the player's other environment.
      assert.strictEqual(
        yield* refusedBy(ledgerRows({ partnerId: otherPartnerId, playerId, environment: "live", key: "r1" })),
        "wallet_rounds_player_fkey"
      )
      assert.strictEqual(
        yield* refusedBy(ledgerRows({ partnerId, playerId, environment: "test", key: "r2" })),
        "wallet_rounds_player_fkey"
      )
      // A transaction and a callback naming another partner, on the player's own round and transaction.
      const [{ round, transaction }] = yield* sql<{ round: number; transaction: number }>`
        SELECT round_ref::int AS round, id::int AS transaction FROM wallet_transactions WHERE txn_id = 'kept'`
      assert.strictEqual(
        yield* refusedBy(sql`
          INSERT INTO wallet_transactions (kind, txn_id, partner_id, environment, aggregator, player_id, currency,
                                           round_ref, round_id, amount, status)
          VALUES ('bet', 't1', ${otherPartnerId}, 'live', 'sandbox', ${playerId}, 'BRL', ${round}, 'kept', 0, 'pending')`),
        "wallet_transactions_player_fkey"
      )
      assert.strictEqual(
        yield* refusedBy(sql`
          INSERT INTO partner_callbacks (event_id, partner_id, environment, player_id, kind, txn_id, transaction_ref,
                                         body, status)
          VALUES ('evt_c1', ${otherPartnerId}, 'live', ${playerId}, 'win', 'kept', ${transaction}, '{}', 'pending')`),
        "partner_callbacks_player_fkey"
      )
      // A transaction of another aggregator than its round's is still refused by the round's key.
      assert.strictEqual(
        yield* refusedBy(sql`
          INSERT INTO wallet_transactions (kind, txn_id, partner_id, environment, aggregator, player_id, currency,
                                           round_ref, round_id, amount, status)
          VALUES ('bet', 't2', ${partnerId}, 'live', 'playfiver', ${playerId}, 'BRL', ${round}, 'kept', 0, 'pending')`),
        "wallet_transactions_round_aggregator_fkey"
      )
      // A player with rows in the ledger cannot be deleted from under them.
      yield* refusedBy(sql`DELETE FROM partner_players WHERE id = ${playerId}`)
      const [{ rows }] = yield* sql<{ rows: number }>`
        SELECT ((SELECT count(*) FROM wallet_rounds) + (SELECT count(*) FROM wallet_transactions)
                + (SELECT count(*) FROM partner_callbacks))::int AS rows`
      assert.strictEqual(rows, 3, "only the player's own round, bet and callback were written")
    }).pipe(onDatabase(url))
  }))

it.effect("a ledger written before the migration keeps its rows, now under the one key", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateUpTo(46)
      const { partnerId, playerId } = yield* partnersAndPlayer
      yield* ledgerRows({ partnerId, playerId, environment: "live", key: "before" })
      yield* Database.migrate
      const keys = yield* sql<{ table: string; key: string }>`
        SELECT conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS key FROM pg_constraint
        WHERE contype = 'f' AND confrelid IN ('partners'::regclass, 'partner_players'::regclass)
          AND conrelid IN ('wallet_rounds'::regclass, 'wallet_transactions'::regclass, 'partner_callbacks'::regclass)
        ORDER BY 1`
      assert.deepStrictEqual(
        keys,
        ["partner_callbacks", "wallet_rounds", "wallet_transactions"].map((table) => ({
          table,
          key:
            "FOREIGN KEY (player_id, partner_id, environment) REFERENCES partner_players(id, partner_id, environment)"
        }))
      )
      const [{ rows }] = yield* sql<{ rows: number }>`
        SELECT ((SELECT count(*) FROM wallet_rounds WHERE round_id = 'before')
                + (SELECT count(*) FROM wallet_transactions WHERE txn_id = 'before')
                + (SELECT count(*) FROM partner_callbacks WHERE txn_id = 'before'))::int AS rows`
      assert.strictEqual(rows, 3)
    }).pipe(onDatabase(url))
  }))
