import { Context, type Effect } from "effect"

/** One casino aggregator's state as /status shows it. */
export interface AggregatorReport {
  readonly name: string
  readonly configured: boolean
  readonly lastCatalogSync: Date | null
  /** The partner's own wallet movements the ledger recorded from it, and the latest one's time. */
  readonly walletCalls: number
  readonly lastWalletCall: Date | null
}

/** What `/status` says about the upstreams one environment reaches. */
export interface UpstreamReport {
  /** Every casino aggregator reached is configured. */
  readonly aggregatorConfigured: boolean
  /** Each casino aggregator reached (CASINO_GATEWAY's, or a test token's sandbox), for one partner. */
  aggregators(partnerId: number): Effect.Effect<ReadonlyArray<AggregatorReport>>
  readonly sportsProvider: { readonly name: string; readonly configured: boolean }
}

/**
 * What `/status` says about the upstreams the request's token reaches (a test token's are the sandboxes):
 * whether the casino aggregator is configured, and the sports provider in use. The upstreams of each
 * environment (src/upstreams) fill it in from their casino gateway and sports provider, so this area needs
 * neither.
 */
export class StatusReport
  extends Context.Service<StatusReport, UpstreamReport>()("partner-api/partners/StatusReport")
{}
