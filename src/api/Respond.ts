/**
 * The one shape of a partner API handler: the contract has decoded the request, the service answers for the
 * request's partner, and the answer is written for the wire and put in the success envelope. Apart from Envelope.ts,
 * which the errors' schemas import.
 */
import { Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type { PartnerAccess } from "../domain/Partner.ts"
import { ok, type PartnerSummary } from "./Envelope.ts"
import { CurrentPartner } from "./Security.ts"

/**
 * The service's answer for the request's partner, written for the wire by `toWire` (the endpoint's codecs; none: the
 * answer is already the wire's), in the envelope.
 */
export const respond = <A, E, R, B = A>(
  answer: (partner: PartnerAccess) => Effect.Effect<A, E, R>,
  toWire?: (value: A) => Effect.Effect<B>
) =>
  Effect.flatMap(
    Effect.service(CurrentPartner),
    (partner) =>
      Effect.flatMap(answer(partner), (value) =>
        Effect.map(toWire === undefined ? Effect.succeed(value as unknown as B) : toWire(value), (data) =>
          ok(partner, data)))
  )

/** As `respond`, `toWire` also giving the envelope's `message` or `provider_response`. */
export const respondWith = <A, B, E, R>(
  answer: (partner: PartnerAccess) => Effect.Effect<A, E, R>,
  toWire: (value: A) => Effect.Effect<{
    readonly data: B
    readonly message?: string
    readonly provider_response?: unknown
  }>
) =>
  Effect.flatMap(
    Effect.service(CurrentPartner),
    (partner) =>
      Effect.flatMap(answer(partner), (value) =>
        Effect.map(toWire(value), ({ data, ...extras }) => ok(partner, data, extras)))
  )

/**
 * As `respond`, for the answers read over and over: the envelope's bytes come from `write` (an envelopeWriter),
 * which writes each value once.
 */
export const respondWritten = <A, E, R, RW>(
  answer: (partner: PartnerAccess) => Effect.Effect<A, E, R>,
  write: (partner: PartnerSummary, value: A) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, RW>
) =>
  Effect.flatMap(
    Effect.service(CurrentPartner),
    (partner) => Effect.flatMap(answer(partner), (value) => write(partner, value))
  )

/**
 * A failure answered as HttpApi answers an endpoint's error: its schema's encoding as JSON text, with the status the
 * schema names; the first of `schemas` (the endpoint's and its middleware's errors) it is one of. For the edge's
 * direct answers (platform/DirectAnswers), which run an endpoint's handler without HttpApi around it. An error of
 * none of them is a defect, as HttpApi makes it.
 */
export const errorAnswer = (schemas: Iterable<Schema.Top>) => {
  const encoders = [...schemas].map((schema) => ({
    is: Schema.is(schema as Schema.Codec<unknown, unknown>),
    encode: Schema.encodeUnknownSync(schema as Schema.Codec<unknown, unknown>),
    // Where the contract's errors state it (Errors.ts: `httpApiStatus` on each class), as HttpApi reads it.
    status: Number(schema.ast.annotations?.httpApiStatus ?? 500)
  }))
  return (error: unknown): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
    for (const encoder of encoders) {
      if (!encoder.is(error)) continue
      return Effect.sync(() =>
        HttpServerResponse.text(JSON.stringify(encoder.encode(error)), {
          status: encoder.status,
          contentType: "application/json"
        })
      )
    }
    return Effect.die(error)
  }
}
