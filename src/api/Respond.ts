/**
 * The one shape of a partner API handler: the contract has decoded the request, the service answers for the
 * request's partner, and the answer is written for the wire and put in the success envelope. Apart from Envelope.ts,
 * which the errors' schemas import.
 */
import { Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
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
