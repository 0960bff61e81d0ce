/**
 * Whether a transaction id is used, of any kind (Hub88 asks it before every bet, win and rollback; the stuck check of
 * every unreadable call): PostgreSQL answers it from the ids' key, never by reading the ledger. As a join it took the
 * keys for a hundred rows and hashed the whole ledger for them, each call dearer as the ledger grew. Checked on a ledger
 * of 20,000 transactions, in the plan PostgreSQL makes for the values given and in the one it keeps for any (a
 * prepared statement's, which the driver's are).
 */
import { PgClient } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient, Statement } from "effect/sql"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { scopedDatabase } from "../support/TestDatabase.ts"

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** Every node of an `EXPLAIN (FORMAT JSON)` answer that reads wallet_transactions. */
const ledgerReads = (rows: ReadonlyArray<{ readonly "QUERY PLAN": unknown }>) => {
  const plan = rows[0]["QUERY PLAN"]
  const [document] = (typeof plan === "string" ? JSON.parse(plan) : plan) as ReadonlyArray<{ readonly Plan: PlanNode }>
  return nodesOf(document.Plan).filter((node) => node["Relation Name"] === "wallet_transactions")
}

/** A partner, 100 players and 20,000 settled Hub88 bets, each on its own round, with fresh statistics. */
const ledgerOf20000 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO partners (name, slug) VALUES ('Id Looks', 'id-looks')`
  yield* sql`
    INSERT INTO partner_players (partner_id, environment, external_player_id, currency, balance)
    SELECT (SELECT id FROM partners WHERE slug = 'id-looks'), 'live', 'player-' || n, 'BRL', 0
    FROM generate_series(1, 100) AS n`
  yield* sql`
    INSERT INTO wallet_rounds (partner_id, environment, player_id, aggregator, round_id, status)
    SELECT player.partner_id, 'live', player.id, 'hub88', 'round-' || n, 'settled'
    FROM generate_series(1, 20000) AS n
    JOIN partner_players AS player ON player.external_player_id = 'player-' || (1 + n % 100)`
  yield* sql`
    INSERT INTO wallet_transactions (kind, txn_id, partner_id, environment, aggregator, player_id, currency, round_ref,
                                     round_id, amount, status, balance_after, answer, settled_at)
    SELECT 'bet', 'txn-' || substr(round.round_id, 7), round.partner_id, 'live', 'hub88', round.player_id, 'BRL',
           round.id, round.round_id, 0, 'applied', 0, '{"msg": "", "balance": "0"}', now()
    FROM wallet_rounds AS round`
  yield* sql`ANALYZE wallet_transactions`
})

it.effect("whether ids are used is read from the ids' key, not from the whole ledger", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase()
    const context = yield* Layer.build(
      WalletRepo.layerSql.pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
    )
    const sql = Context.get(context, SqlClient.SqlClient)
    const repo = Context.get(context, WalletRepo)
    yield* ledgerOf20000.pipe(Effect.provideService(SqlClient.SqlClient, sql))

    const captured: Array<readonly [string, ReadonlyArray<unknown>]> = []
    const used = yield* repo.existingTxnIds([
      { environment: "live", aggregator: "hub88", txnId: "txn-500" },
      { environment: "live", aggregator: "hub88", txnId: "txn-never" },
      { environment: "test", aggregator: "hub88", txnId: "txn-501" }
    ]).pipe(
      Effect.provideService(Statement.CurrentTransformer, (statement) =>
        Effect.sync(() => {
          captured.push(statement.compile())
          return statement
        }))
    )
    assert.deepStrictEqual(used, [{ environment: "live", aggregator: "hub88", txnId: "txn-500" }])
    assert.strictEqual(captured.length, 1)
    const [text, params] = captured[0]

    const planned = ledgerReads(yield* sql.unsafe<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, params))
    // The plan a prepared statement keeps for any values: prepared inside PL/pgSQL, whose EXECUTE leaves the statement's
    // parameters to it (a PREPARE sent by the driver would have them taken for its own), then explained for the values.
    yield* sql`SET plan_cache_mode = force_generic_plan`
    yield* sql.unsafe(`
      CREATE FUNCTION pg_temp.kept_plan(statement text, arguments text[]) RETURNS json LANGUAGE plpgsql AS $fn$
      DECLARE plan json; list text;
      BEGIN
        EXECUTE 'PREPARE id_look AS ' || statement;
        SELECT string_agg(format('%L::%s', arguments[i], parameter_types[i]), ', ' ORDER BY i) INTO list
        FROM pg_prepared_statements, generate_subscripts(parameter_types, 1) AS i WHERE name = 'id_look';
        EXECUTE format('EXPLAIN (FORMAT JSON) EXECUTE id_look(%s)', list) INTO plan;
        DEALLOCATE id_look;
        RETURN plan;
      END
      $fn$`)
    // Each value in PostgreSQL's text form (the kinds are plain words, so an array is its words in braces).
    const texts = params.map((value) => Array.isArray(value) ? `{${value.join(",")}}` : String(value))
    const kept = ledgerReads(
      yield* sql<{ "QUERY PLAN": unknown }>`SELECT pg_temp.kept_plan(${text}, ${texts}::text[]) AS "QUERY PLAN"`
    )
    for (const [plan, reads] of [["for the values given", planned], ["kept for any", kept]] as const) {
      assert.isAbove(reads.length, 0, plan)
      for (const read of reads) {
        assert.include(["Index Scan", "Index Only Scan"], read["Node Type"], `${plan}: ${JSON.stringify(read)}`)
        assert.strictEqual(read["Index Name"], "wallet_transactions_environment_aggregator_kind_txn_id", plan)
      }
    }
  }).pipe(Effect.scoped))
