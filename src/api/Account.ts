import { Effect, Schema, Struct } from "effect"
import { Partner, PartnerAccess } from "../domain/Partner.ts"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "./Envelope.ts"
import { encodeWith } from "./Paging.ts"
import { PartnerUpstreams } from "./Security.ts"

/**
 * The domain's Partner, the fields a partner sees of itself. The status stays an open string on the contract (as in
 * the envelope's partner), so a status added later breaks no partner's client.
 */
const StatusPartnerCodec = Schema.Struct({
  ...Struct.pick(Partner.fields, ["id", "name", "slug"]),
  status: Schema.String,
  commissionPercent: Partner.fields.commissionPercent,
  environment: PartnerAccess.fields.environment
}).pipe(Schema.encodeKeys({ commissionPercent: "commission_percent" }))

export const StatusData = Schema.Struct({
  partner: Schema.toEncoded(StatusPartnerCodec),
  aggregator_configured: Schema.Boolean,
  /** Each casino aggregator the token reaches: configured, its last catalogue sync, the partner's wallet calls from it. */
  aggregators: Schema.Array(Schema.Struct({
    name: Schema.String,
    configured: Schema.Boolean,
    last_catalog_sync: Schema.NullOr(Schema.String),
    wallet_calls: Schema.Int,
    last_wallet_call: Schema.NullOr(Schema.String)
  })),
  sports_gateway: Schema.Struct({
    configured: Schema.Boolean,
    provider: Schema.String
  })
})

export class AccountGroup extends HttpApiGroup.make("account").add(
  HttpApiEndpoint.get("status", "/status", {
    success: Envelope("StatusResponse", StatusData, {
      example: {
        partner: {
          id: 12,
          name: "Acme Bets",
          slug: "acme-bets",
          status: "active",
          commission_percent: 12.5,
          environment: "live"
        },
        aggregator_configured: true,
        aggregators: [
          {
            name: "playfiver",
            configured: true,
            last_catalog_sync: "2026-11-28T19:00:00.000Z",
            wallet_calls: 1520,
            last_wallet_call: "2026-11-28T19:41:07.512Z"
          },
          {
            name: "hub88",
            configured: true,
            last_catalog_sync: "2026-11-28T19:00:02.000Z",
            wallet_calls: 0,
            last_wallet_call: null
          }
        ],
        sports_gateway: { configured: true, provider: "betsapi" }
      }
    })
  }).annotateMerge(OpenApi.annotations({
    summary: "Validate the token and show the partner and the configured gateways",
    description:
      "The first call to make with a new token: 200 when it is valid and the partner active, 401 otherwise. " +
      "Also says whether the casino aggregator is configured and which sports provider answers the token: a test " +
      "token's are always the embedded sandboxes (`sandbox`), whatever the service's live upstreams are."
  }))
).middleware(PartnerUpstreams).annotateMerge(OpenApi.annotations({ description: "The partner's own account." })) {}

const statusPartner = encodeWith(StatusPartnerCodec)

/** `/status`: the partner, and the upstreams its token reaches (a test token's are the sandboxes). */
export const statusAnswer = (
  partner: PartnerAccess,
  upstreams: {
    readonly aggregatorConfigured: boolean
    aggregators(partnerId: number): Effect.Effect<
      ReadonlyArray<{
        readonly name: string
        readonly configured: boolean
        readonly lastCatalogSync: Date | null
        readonly walletCalls: number
        readonly lastWalletCall: Date | null
      }>
    >
    readonly sportsProvider: { readonly name: string; readonly configured: boolean }
  }
) =>
  Effect.map(Effect.all([statusPartner(partner), upstreams.aggregators(partner.id)]), ([encoded, aggregators]) => ({
    partner: encoded,
    aggregator_configured: upstreams.aggregatorConfigured,
    aggregators: aggregators.map((state) => ({
      name: state.name,
      configured: state.configured,
      last_catalog_sync: state.lastCatalogSync?.toISOString() ?? null,
      wallet_calls: state.walletCalls,
      last_wallet_call: state.lastWalletCall?.toISOString() ?? null
    })),
    sports_gateway: { configured: upstreams.sportsProvider.configured, provider: upstreams.sportsProvider.name }
  }))
