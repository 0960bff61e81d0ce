import { Effect, Schema } from "effect"
import { HttpBody, HttpServerResponse } from "effect/http"
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

/** JSON text and its length in UTF-8 bytes, measured once. */
interface Written {
  readonly text: string
  readonly bytes: number
}

const written = (text: string): Written => ({ text, bytes: Buffer.byteLength(text) })

/**
 * Each partner object's part of the envelope, everything before `data`'s value, written once (a partner kept in
 * memory answers many requests).
 */
const openings = new WeakMap<PartnerSummary, Written>()
const openingOf = (partner: PartnerSummary) => {
  let opening = openings.get(partner)
  if (opening === undefined) {
    opening = written(`{"success":true,"partner":${JSON.stringify(partnerSummary(partner))},"data":`)
    openings.set(partner, opening)
  }
  return opening
}

const success = HttpServerResponse.empty({ status: 200 })

/**
 * A 200 with the success envelope around data already written as JSON text, as HttpApiBuilder would send it (the
 * same text, as UTF-8, `application/json`, its length known). Nothing is copied or encoded per request: the body is
 * the written parts joined (a string V8 joins without copying), whose length is their lengths' sum, and Node writes
 * it with the head in one write, as a body given as text (a body given as bytes would be copied into one buffer first,
 * then written beside the head).
 */
const envelopeResponse = (partner: PartnerSummary, data: Written) => {
  const opening = openingOf(partner)
  return HttpServerResponse.setBody(
    success,
    new HttpBody.Uint8Array(
      undefined,
      "application/json",
      opening.bytes + data.bytes + 1,
      opening.text + data.text + "}"
    )
  )
}

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
  const kept = new WeakMap<A, { readonly variant: string; readonly data: Written }>()
  return (
    partner: PartnerSummary,
    value: A,
    variant = ""
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> => {
    const known = kept.get(value)
    if (known !== undefined && known.variant === variant) return Effect.succeed(envelopeResponse(partner, known.data))
    return toWire(value, variant).pipe(
      Effect.flatMap((wire) => Effect.orDie(encode(wire))),
      Effect.map((encoded) => {
        const data = written(JSON.stringify(encoded))
        kept.set(value, { variant, data })
        return envelopeResponse(partner, data)
      })
    )
  }
}
