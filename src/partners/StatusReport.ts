import { Context } from "effect"
import type { Environment } from "../domain/Environment.ts"

/** What `/status` says about the upstreams one environment reaches. */
export interface UpstreamReport {
  readonly aggregatorConfigured: boolean
  readonly sportsProvider: { readonly name: string; readonly configured: boolean }
}

/**
 * What `/status` says about the upstreams, per environment (a test token's
 * are the sandboxes): whether the casino aggregator is configured, and the
 * sports provider in use. The layer graph fills it in from the casino
 * gateways and the sports providers, so this area needs neither.
 */
export class StatusReport extends Context.Service<StatusReport, Readonly<Record<Environment, UpstreamReport>>>()(
  "partner-api/partners/StatusReport"
) {}
