import { Schema, SchemaTransformation } from "effect"
import { Environment } from "../domain/Environment.ts"

/** The partner as echoed in every envelope; extra properties are allowed by the contract. */
export const PartnerSummary = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  slug: Schema.String,
  status: Schema.String,
  environment: Environment
}).annotate({ identifier: "PartnerSummary" })
export type PartnerSummary = typeof PartnerSummary.Type

/** The partner every example answer is for. */
export const examplePartner: PartnerSummary = { id: 12, name: "Acme Bets", slug: "acme-bets", status: "active", environment: "live" }

/** Free-form provider payload, passed through as the upstream sent it. */
export const ProviderResponse = Schema.Unknown.annotate({
  identifier: "ProviderResponse",
  description: "The upstream provider's payload, unchanged."
})

/**
 * The success envelope of every 200 answer: `success`, `partner`, `data`,
 * and optionally `message` and `provider_response`.
 */
export const Envelope = <Data extends Schema.Top>(
  identifier: string,
  data: Data,
  options?: { readonly example?: Data["Encoded"]; readonly message?: string }
) => {
  const envelope = Schema.Struct({
    success: Schema.Literal(true),
    partner: PartnerSummary,
    data,
    message: Schema.optionalKey(Schema.String),
    provider_response: Schema.optionalKey(ProviderResponse)
  })
  // The example is typed by the schema's wire form, so the docs page cannot show a body the service would not send.
  return envelope.annotate({
    identifier,
    ...(options?.example === undefined ? {} : {
      examples: [{
        success: true as const,
        partner: examplePartner,
        data: options.example,
        ...(options.message === undefined ? {} : { message: options.message })
      } as unknown as typeof envelope.Type]
    })
  })
}

/** The envelope's view of a partner. */
export const partnerSummary = (partner: PartnerSummary): PartnerSummary => ({
  id: partner.id,
  name: partner.name,
  slug: partner.slug,
  status: partner.status,
  environment: partner.environment
})

/** Builds the success envelope; every handler answers through it. */
export const ok = <Data>(
  partner: PartnerSummary,
  data: Data,
  extras?: { readonly message?: string; readonly provider_response?: unknown }
) => ({
  success: true as const,
  partner: partnerSummary(partner),
  data,
  ...extras
})

/** A date on the wire: its ISO string. */
export const IsoDate = Schema.String.pipe(Schema.decodeTo(Schema.Date, SchemaTransformation.dateFromString))
