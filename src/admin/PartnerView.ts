import { Effect, Struct } from "effect"
import type { Partner, PartnerEnvironmentSettings, PlayerMode } from "../domain/Partner.ts"
import type { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import type { Partners } from "../partners/Partners.ts"
import { maskedUrlOrNull } from "../domain/MaskedUrl.ts"

/**
 * A partner as an operator sees it, in the console's API and the CLI's output alike (written by the contract's
 * PartnerView codec, which names its fields on the wire): everything but its tokens and webhook secrets.
 * `rateLimitPerMinute` null: the service's PARTNER_RATE_LIMIT applies. `callbackUrl` is the live environment's;
 * `environments` shows both, live first; `playerMode` what the service keeps of its players (persisted or shadow);
 * `rtpPolicy` what its launches do with `user_rtp`; `defaultCurrency` and `currencies` its currencies (null: the
 * deployment's DEFAULT_CURRENCY, every currency the deployment enables). Callback URLs
 * are shown masked (maskedUrl): their credentials and query values may be keys.
 */
export const partnerView = (
  partner: Partner,
  environments: ReadonlyArray<PartnerEnvironmentSettings>,
  playerMode: PlayerMode
) => ({
  ...Struct.pick(partner, [
    "id",
    "name",
    "slug",
    "status",
    "commissionPercent",
    "rateLimitPerMinute",
    "rtpPolicy",
    "defaultCurrency",
    "currencies",
    "createdAt",
    "updatedAt"
  ]),
  callbackUrl: maskedUrlOrNull(partner.callbackUrl),
  playerMode,
  // Its environments' settings, labelled: the contract's codec shows neither a token nor a webhook secret.
  environments: environments.filter((settings) => settings.partnerId === partner.id).map((settings) => ({
    ...settings,
    callbackUrl: maskedUrlOrNull(settings.callbackUrl)
  }))
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
