import { Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { IsoDate } from "../domain/IsoDate.ts"
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
export const examplePartner: PartnerSummary = {
  id: 12,
  name: "Acme Bets",
  slug: "acme-bets",
  status: "active",
  environment: "live"
}

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
      examples: [
        {
          success: true as const,
          partner: examplePartner,
          data: options.example,
          ...(options.message === undefined ? {} : { message: options.message })
        } as unknown as typeof envelope.Type
      ]
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
export { IsoDate }

const utf8 = new TextEncoder()
const opening = utf8.encode(`{"success":true,"partner":`)
const dataKey = utf8.encode(`,"data":`)
const closing = utf8.encode("}")

/** Each partner object's part of the envelope, as JSON bytes (a partner kept in memory answers many requests). */
const partnerTexts = new WeakMap<PartnerSummary, Uint8Array>()
const partnerBytes = (partner: PartnerSummary) => {
  let bytes = partnerTexts.get(partner)
  if (bytes === undefined) {
    bytes = utf8.encode(JSON.stringify(partnerSummary(partner)))
    partnerTexts.set(partner, bytes)
  }
  return bytes
}

/**
 * A 200 with the success envelope around data already written as JSON bytes, as HttpApiBuilder would send it
 * (the same text, as UTF-8, `application/json`): the parts are copied into one body, nothing is encoded again.
 */
const envelopeResponse = (partner: PartnerSummary, data: Uint8Array) =>
  HttpServerResponse.uint8Array(Buffer.concat([opening, partnerBytes(partner), dataKey, data, closing]), {
    contentType: "application/json"
  })

/**
 * The success envelope written once per value, for answers read over and over (the read caches answer the
 * same value object until it expires): `toWire` then the endpoint's `data` schema encode it and the JSON text
 * is remembered by the value's identity (and `variant`, when the wire form also depends on something the
 * request says, such as an event id); the partner's part is written once per partner object. A handler
 * returning the response skips HttpApiBuilder's own encoding pass, not its schemas: the text is what
 * `JSON.stringify(encode(Envelope)(ok(partner, toWire(value))))` writes (test/api/envelope-text.test.ts).
 */
export const envelopeWriter = <S extends Schema.Codec<unknown, unknown>, A extends object, R = never>(
  data: S,
  toWire: (value: A, variant: string) => Effect.Effect<S["Type"], never, R>
) => {
  const encode = Schema.encodeEffect(data)
  const written = new WeakMap<A, { readonly variant: string; readonly bytes: Uint8Array }>()
  return (
    partner: PartnerSummary,
    value: A,
    variant = ""
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> => {
    const known = written.get(value)
    if (known !== undefined && known.variant === variant) return Effect.succeed(envelopeResponse(partner, known.bytes))
    return toWire(value, variant).pipe(
      Effect.flatMap((wire) => Effect.orDie(encode(wire))),
      Effect.map((encoded) => {
        const bytes = utf8.encode(JSON.stringify(encoded))
        written.set(value, { variant, bytes })
        return envelopeResponse(partner, bytes)
      })
    )
  }
}
