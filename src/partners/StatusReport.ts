import { Context } from "effect"

/**
 * What `/status` says about the upstreams: whether the casino aggregator
 * is configured, and the sports provider in use. The layer graph fills it
 * in from the casino gateway and the sports provider, so this area needs
 * neither.
 */
export class StatusReport extends Context.Service<StatusReport, {
  readonly aggregatorConfigured: boolean
  readonly sportsProvider: { readonly name: string; readonly configured: boolean }
}>()("partner-api/partners/StatusReport") {}
