import { Schema } from "effect"

/** A casino provider in the local catalog. `id` is the integer `provider_id` partners see. */
export class CasinoProvider extends Schema.Class<CasinoProvider>("CasinoProvider")({
  id: Schema.Int,
  slug: Schema.String,
  name: Schema.String,
  /** The provider's name as the aggregator knows it; the key the catalog is synced on. */
  upstream_code: Schema.String,
  enabled: Schema.Boolean
}) {}

/** A game in the local catalog. `enabled` already accounts for its provider. */
export class CasinoGame extends Schema.Class<CasinoGame>("CasinoGame")({
  id: Schema.Int,
  game_code: Schema.String,
  name: Schema.String,
  provider_id: Schema.Int,
  provider_slug: Schema.String,
  provider_upstream_code: Schema.String,
  enabled: Schema.Boolean,
  image_url: Schema.NullOr(Schema.String),
  original: Schema.Boolean
}) {}
