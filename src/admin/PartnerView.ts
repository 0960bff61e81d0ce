import { Effect } from "effect"
import type { Partner, PartnerEnvironmentSettings } from "../domain/Partner.ts"
import type { Partners } from "../partners/Partners.ts"

/** One of the partner's environments as an operator sees it, labelled: never its token nor its webhook secret. */
export const environmentView = (settings: PartnerEnvironmentSettings) => ({
  environment: settings.environment,
  callback_url: settings.callbackUrl,
  token_issued_at: settings.tokenIssuedAt === null ? null : settings.tokenIssuedAt.toISOString()
})

/**
 * A partner as an operator sees it, in the console's API and the CLI's output alike: everything but its
 * tokens and webhook secrets. `rate_limit_per_minute` null: the service's PARTNER_RATE_LIMIT applies.
 * `callback_url` is the live environment's; `environments` shows both, live first.
 */
export const partnerView = (partner: Partner, environments: ReadonlyArray<PartnerEnvironmentSettings>) => ({
  id: partner.id,
  name: partner.name,
  slug: partner.slug,
  status: partner.status,
  commission_percent: partner.commission_percent,
  callback_url: partner.callback_url,
  rate_limit_per_minute: partner.rate_limit_per_minute,
  environments: environments.filter((settings) => settings.partnerId === partner.id).map(environmentView),
  created_at: partner.created_at.toISOString(),
  updated_at: partner.updated_at.toISOString()
})

/** The views of these partners, their environments read in one go. */
export const partnerViews = (service: Partners["Service"], partners: ReadonlyArray<Partner>) =>
  Effect.map(service.environmentsOf(partners), (environments) => partners.map((partner) => partnerView(partner, environments)))

/** The view of one partner. */
export const viewPartner = (service: Partners["Service"], partner: Partner) =>
  Effect.map(partnerViews(service, [partner]), (views) => views[0])
