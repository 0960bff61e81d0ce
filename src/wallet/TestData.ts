import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** How many rows clearing a partner's test data deleted, table by table. */
export interface ClearedTestData {
  readonly players: number
  readonly rounds: number
  readonly transactions: number
  readonly callbacks: number
  /** Daily statements of the test environment (days without activity then read as empty statements). */
  readonly statements: number
}

/**
 * A partner's test environment emptied: its test players and their rounds,
 * transactions and callbacks, and its test statements, in one transaction. Every statement names
 * `environment = 'test'`, and a wallet row can only name a player of its own
 * environment (the composite foreign keys of sql/0014), so no live row is
 * ever touched. Test sessions still open at the sandbox lose their player:
 * their next wallet call is refused (INVALID_USER), as for an unknown user.
 */
export class TestData extends Context.Service<TestData, {
  clear(partnerId: number): Effect.Effect<ClearedTestData>
}>()("partner-api/wallet/TestData") {
  static readonly layerSql = Layer.effect(
    TestData,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const count = (rows: ReadonlyArray<unknown>) => rows.length

      const clear = Effect.fn("TestData.clear")(
        function*(partnerId: number) {
          // Children first: callbacks name transactions, transactions name rounds, all of them name players.
          const statements = yield* sql`
          DELETE FROM wallet_statements WHERE partner_id = ${partnerId} AND environment = 'test' RETURNING day`
          // Today's statement so far goes with the transactions it counted (counted apart: it is no daily statement).
          yield* sql`DELETE FROM wallet_statement_partials WHERE partner_id = ${partnerId}`
          const callbacks = yield* sql`
          DELETE FROM partner_callbacks WHERE partner_id = ${partnerId} AND environment = 'test' RETURNING id`
          const transactions = yield* sql`
          DELETE FROM wallet_transactions WHERE partner_id = ${partnerId} AND environment = 'test' RETURNING id`
          const rounds = yield* sql`
          DELETE FROM wallet_rounds WHERE partner_id = ${partnerId} AND environment = 'test' RETURNING id`
          const players = yield* sql`
          DELETE FROM partner_players WHERE partner_id = ${partnerId} AND environment = 'test' RETURNING id`
          return {
            players: count(players),
            rounds: count(rounds),
            transactions: count(transactions),
            callbacks: count(callbacks),
            statements: count(statements)
          }
        },
        (effect) => sql.withTransaction(effect),
        Effect.orDie
      )

      return TestData.of({ clear })
    })
  )
}
