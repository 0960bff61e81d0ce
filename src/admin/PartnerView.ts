import { Effect } from "effect"
import type { Partner, PartnerEnvironmentSettings, PlayerMode } from "../domain/Partner.ts"
import type { PartnerPlayers } from "../partners/PartnerPlayers.ts"
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
 * `callback_url` is the live environment's; `environments` shows both, live first; `player_mode` what the
 * service keeps of its players (persisted or shadow); `rtp_policy` what its launches do with `user_rtp`.
 */
export const partnerView = (
  partner: Partner,
  environments: ReadonlyArray<PartnerEnvironmentSettings>,
  playerMode: PlayerMode
) => ({
  id: partner.id,
  name: partner.name,
  slug: partner.slug,
  status: partner.status,
  commission_percent: partner.commission_percent,
  callback_url: partner.callback_url,
  rate_limit_per_minute: partner.rate_limit_per_minute,
  player_mode: playerMode,
  rtp_policy: partner.rtp_policy,
  environments: environments.filter((settings) => settings.partnerId === partner.id).map(environmentView),
  created_at: partner.created_at.toISOString(),
  updated_at: partner.updated_at.toISOString()
})

/**
 * The views of these partners, their environments read in one go. The player mode is read per partner from
 * PartnerPlayers (which owns it, in memory as in SQL); an operator's list is a few partners.
 */
export const partnerViews = (
  service: Partners["Service"],
  players: PartnerPlayers["Service"],
  partners: ReadonlyArray<Partner>
) =>
  Effect.all([
    service.environmentsOf(partners),
    Effect.forEach(partners, (partner) => players.modeOf(partner.id))
  ]).pipe(
    Effect.map(([environments, modes]) => partners.map((partner, i) => partnerView(partner, environments, modes[i])))
  )

/** The view of one partner. */
export const viewPartner = (service: Partners["Service"], players: PartnerPlayers["Service"], partner: Partner) =>
  Effect.map(partnerViews(service, players, [partner]), (views) => views[0])
