import { Context } from "effect"

/** What `/status` says about the upstreams one environment reaches. */
export interface UpstreamReport {
  readonly aggregatorConfigured: boolean
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
