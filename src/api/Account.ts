import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "./Envelope.ts"

export const StatusData = Schema.Struct({
  partner: Schema.Struct({
    id: Schema.Int,
    name: Schema.String,
    slug: Schema.String,
    status: Schema.String,
    commission_percent: Schema.Finite
  }),
  aggregator_configured: Schema.Boolean,
  sports_gateway: Schema.Struct({
    configured: Schema.Boolean,
    provider: Schema.String
  })
})

export class AccountGroup extends HttpApiGroup.make("account").add(
  HttpApiEndpoint.get("status", "/status", {
    success: Envelope("StatusResponse", StatusData)
  }).annotateMerge(OpenApi.annotations({
    summary: "Validate the token and show the partner and the configured gateways"
  }))
) {}
