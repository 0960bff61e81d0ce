import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { Environment } from "../domain/Environment.ts"

/** One aggregator's state: whether it is configured, its last catalogue sync, the wallet calls it made. */
export interface AggregatorState {
  readonly name: string
  readonly configured: boolean
  readonly lastCatalogSync: Date | null
  /** The wallet movements recorded for it (each one a wallet call the ledger kept), and the latest one's time. */
  readonly walletCalls: number
  readonly lastWalletCall: Date | null
}

export interface WalletCallsSeen {
  readonly calls: number
  readonly last: Date | null
}

/**
 * What the wallet recorded of each aggregator's calls, read from its ledger (wallet_transactions.aggregator, which
 * the wallet writes): a read only, the wallet's tables stay the wallet's to write.
 */
export class WalletCallsByAggregator extends Context.Service<WalletCallsByAggregator, {
  /** In one environment; of one partner when `partnerId` is given (a partner's /status sees only its own). */
  seen(filter: {
    readonly environment: Environment
    readonly partnerId?: number | undefined
  }): Effect.Effect<ReadonlyMap<string, WalletCallsSeen>>
}>()("partner-api/casino/WalletCallsByAggregator") {
  static readonly layerSql = Layer.effect(
    WalletCallsByAggregator,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const counts = SqlSchema.findAll({
        Request: Schema.Struct({ environment: Schema.String, partnerId: Schema.NullOr(Schema.Number) }),
        Result: Schema.Struct({ aggregator: Schema.String, calls: Schema.Int, last: Schema.Date }),
        execute: ({ environment, partnerId }) =>
          sql`SELECT aggregator, count(*)::int AS calls, max(created_at) AS last FROM wallet_transactions
              WHERE environment = ${environment} ${partnerId === null ? sql`` : sql`AND partner_id = ${partnerId}`}
              GROUP BY aggregator`
      })
      return WalletCallsByAggregator.of({
        seen: (filter) =>
          Effect.map(
            Effect.orDie(counts({ environment: filter.environment, partnerId: filter.partnerId ?? null })),
            (rows) => new Map(rows.map((row) => [row.aggregator, { calls: row.calls, last: row.last }]))
          )
      })
    })
  )

  /** None seen, for tests without PostgreSQL. */
  static readonly layerNone = Layer.succeed(
    WalletCallsByAggregator,
    WalletCallsByAggregator.of({ seen: () => Effect.succeed(new Map()) })
  )
}

/** Each gateway's state, in CASINO_GATEWAY's order. */
export const aggregatorStates = (
  gateways: ReadonlyArray<{ readonly name: string; readonly configured: boolean }>,
  lastSyncs: ReadonlyMap<string, Date>,
  calls: ReadonlyMap<string, WalletCallsSeen>
): ReadonlyArray<AggregatorState> =>
  gateways.map((gateway) => ({
    name: gateway.name,
    configured: gateway.configured,
    lastCatalogSync: lastSyncs.get(gateway.name) ?? null,
    walletCalls: calls.get(gateway.name)?.calls ?? 0,
    lastWalletCall: calls.get(gateway.name)?.last ?? null
  }))
