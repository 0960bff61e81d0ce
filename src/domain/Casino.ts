import { Schema } from "effect"
import { Aggregator } from "./Aggregator.ts"

/** A casino provider in the local catalog. `id` is the integer `provider_id` partners see. */
export class CasinoProvider extends Schema.Class<CasinoProvider>("CasinoProvider")({
  id: Schema.Int,
  slug: Schema.String,
  name: Schema.String,
  /** The provider's name as the aggregator knows it; the key the catalog is synced on. */
  upstreamCode: Schema.String,
  enabled: Schema.Boolean,
  /** The aggregator whose provider it is. */
  aggregator: Aggregator
}) {}

/** A game in the local catalog. `enabled` already accounts for its provider. */
export class CasinoGame extends Schema.Class<CasinoGame>("CasinoGame")({
  id: Schema.Int,
  gameCode: Schema.String,
  name: Schema.String,
  providerId: Schema.Int,
  providerSlug: Schema.String,
  providerUpstreamCode: Schema.String,
  enabled: Schema.Boolean,
  imageUrl: Schema.NullOr(Schema.String),
  original: Schema.Boolean,
  /** The aggregator whose game it is: the one a launch of it goes to. */
  aggregator: Aggregator
}) {}

/**
 * A partner's request to open a game for one of its players, as the casino
 * takes it (the contract's LaunchRequest, read). What is left out takes the
 * casino's defaults.
 */
export interface PlayerLaunch {
  readonly externalPlayerId: string
  readonly playerName: string | null
  readonly playerEmail: string | null
  /** The player's balance as the partner sends it: its exact decimal text, read in the launch's currency. */
  readonly playerBalance: string
  /** The currency to play in; null: the partner's default (or the deployment's). */
  readonly currency: string | null
  /** The provider's integer id or its slug. */
  readonly provider: string
  readonly gameCode: string
  readonly original: boolean | null
  readonly lang: string | null
  readonly rtp: number | null
  /** `desktop` (null: the default) or `mobile`. */
  readonly platform: "desktop" | "mobile" | null
  /** ISO 3166-1 alpha-2, upper-case; null: not sent. */
  readonly country: string | null
}
