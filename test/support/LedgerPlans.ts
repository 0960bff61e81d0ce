/**
 * What PostgreSQL plans for the wallet repository's statements over a ledger of 20,000 Hub88 transactions: the
 * statement a repository call sends, caught as it goes, then explained for its values and in the plan a prepared
 * statement keeps for any (the driver's are prepared).
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient, Statement } from "effect/sql"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { scopedDatabase } from "./TestDatabase.ts"

export interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Shared Hit Blocks"?: number
  readonly "Shared Read Blocks"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

export const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** The plan of an `EXPLAIN (FORMAT JSON)` answer. */
const planOf = (answer: unknown): PlanNode => {
  const [document] = (typeof answer === "string" ? JSON.parse(answer) : answer) as ReadonlyArray<
    { readonly Plan: PlanNode }
  >
  return document.Plan
}

/**
 * A partner, 1,000 players and 20,000 settled Hub88 bets, each on its own round. `statistics`: as PostgreSQL's
 * statistics stand once the rows are in (`fresh`), or as they stood before (`of an empty ledger`: a new ledger, or one
 * that grew faster than autovacuum's analyses).
 */
const ledgerOf20000 = (statistics: "fresh" | "of an empty ledger") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO partners (name, slug) VALUES ('Ledger Plans', 'ledger-plans')`
    if (statistics === "of an empty ledger") yield* sql`ANALYZE`
    yield* sql`
      INSERT INTO partner_players (partner_id, environment, external_player_id, currency, balance)
      SELECT (SELECT id FROM partners WHERE slug = 'ledger-plans'), 'live', 'player-' || n, 'BRL', 0
      FROM generate_series(1, 1000) AS n`
    yield* sql`
      INSERT INTO wallet_rounds (partner_id, environment, player_id, aggregator, round_id, status)
      SELECT player.partner_id, 'live', player.id, 'hub88', 'round-' || n, 'settled'
      FROM generate_series(1, 20000) AS n
      JOIN partner_players AS player ON player.external_player_id = 'player-' || (1 + n % 1000)`
    yield* sql`
      INSERT INTO wallet_transactions (kind, txn_id, partner_id, environment, aggregator, player_id, currency, round_ref,
                                       round_id, amount, status, balance_after, answer, settled_at)
      SELECT 'bet', 'txn-' || substr(round.round_id, 7), round.partner_id, 'live', 'hub88', round.player_id, 'BRL',
             round.id, round.round_id, 0, 'applied', 0, '{"msg": "", "balance": "0"}', now()
      FROM wallet_rounds AS round`
    if (statistics === "fresh") yield* sql`ANALYZE`
  })

/**
 * The wallet repository on a database of its own holding the ledger above, and `plans`: the one statement `call` sends,
 * explained (with `analyze`, run too, its buffers counted) for its values, and in the plan a prepared statement keeps.
 */
export const ledgerPlans = (statistics: "fresh" | "of an empty ledger") =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase()
    const context = yield* Layer.build(
      WalletRepo.layerSql.pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
    )
    const sql = Context.get(context, SqlClient.SqlClient)
    const repo = Context.get(context, WalletRepo)
    yield* ledgerOf20000(statistics).pipe(Effect.provideService(SqlClient.SqlClient, sql))
    // Prepared inside PL/pgSQL, whose EXECUTE leaves the statement's parameters to it (a PREPARE sent by the driver
    // would have them taken for its own), then explained for the values, its plan kept for any (generic).
    yield* sql.unsafe(`
      CREATE FUNCTION pg_temp.kept_plan(statement text, arguments text[], options text) RETURNS json
      LANGUAGE plpgsql AS $fn$
      DECLARE plan json; list text;
      BEGIN
        SET LOCAL plan_cache_mode = force_generic_plan;
        EXECUTE 'PREPARE kept AS ' || statement;
        SELECT string_agg(format('%L::%s', arguments[i], parameter_types[i]), ', ' ORDER BY i) INTO list
        FROM pg_prepared_statements, generate_subscripts(parameter_types, 1) AS i WHERE name = 'kept';
        EXECUTE format('EXPLAIN (%s, FORMAT JSON) EXECUTE kept(%s)', options, list) INTO plan;
        DEALLOCATE kept;
        RETURN plan;
      END
      $fn$`)

    const plans = <A>(
      call: (repo: WalletRepo["Service"]) => Effect.Effect<A>,
      options: { readonly analyze: boolean }
    ) =>
      Effect.gen(function*() {
        const captured: Array<readonly [string, ReadonlyArray<unknown>]> = []
        const answer = yield* call(repo).pipe(
          Effect.provideService(Statement.CurrentTransformer, (statement) =>
            Effect.sync(() => {
              captured.push(statement.compile())
              return statement
            }))
        )
        if (captured.length !== 1) return yield* Effect.die(`The call sent ${captured.length} statements, not one`)
        const [text, params] = captured[0]
        const explain = options.analyze ? "ANALYZE, BUFFERS" : "COSTS"
        const [planned] = yield* sql.unsafe<{ "QUERY PLAN": unknown }>(
          `EXPLAIN (${explain}, FORMAT JSON) ${text}`,
          params
        )
        // Each value in PostgreSQL's text form (arrays here are of plain words, so an array is its words in braces).
        const texts = params.map((value) => Array.isArray(value) ? `{${value.join(",")}}` : String(value))
        const [kept] = yield* sql<{ readonly plan: unknown }>`
          SELECT pg_temp.kept_plan(${text}, ${texts}::text[], ${explain}) AS plan
        `
        return {
          answer,
          forTheValues: planOf(planned["QUERY PLAN"]),
          keptForAny: planOf(kept.plan)
        }
      }).pipe(Effect.orDie)

    /** A row's id of the ledger (its players are numbered by the database). */
    const playerOf = (txnId: string) =>
      Effect.map(
        sql<{ readonly id: number }>`SELECT player_id::int AS id FROM wallet_transactions WHERE txn_id = ${txnId}`,
        (rows) => rows[0].id
      ).pipe(Effect.orDie)

    return { plans, playerOf }
  })
