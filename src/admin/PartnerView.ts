import type { Partner } from "../domain/Partner.ts"

/**
 * A partner as an operator sees it, in the console's API and the CLI's output alike: everything but its
 * token and webhook secret. `rate_limit_per_minute` null: the service's PARTNER_RATE_LIMIT applies.
 */
export const partnerView = (partner: Partner) => ({
  id: partner.id,
  name: partner.name,
  slug: partner.slug,
  status: partner.status,
  commission_percent: partner.commission_percent,
  callback_url: partner.callback_url,
  rate_limit_per_minute: partner.rate_limit_per_minute,
  created_at: partner.created_at.toISOString(),
  updated_at: partner.updated_at.toISOString()
})
