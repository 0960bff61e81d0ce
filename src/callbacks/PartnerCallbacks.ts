import { Clock, Context, Duration, Effect, Layer, Schema } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import { HttpBody, HttpClient, HttpClientRequest } from "effect/http"
import { type Cents, MoneyCents } from "../domain/Money.ts"
import { CallbacksConfig } from "./CallbacksConfig.ts"
import { signedHeaders } from "./Signature.ts"

/** Where a partner's callbacks go, and the secret they are signed with. */
export interface CallbackTarget {
  readonly partnerId: number
  readonly callbackUrl: string
  readonly webhookSecret: string
}

/** What a partner said to a callback that needs an answer. */
export type PartnerAnswer =
  | { readonly _tag: "Balance"; readonly balance: Cents }
  | { readonly _tag: "InsufficientFunds"; readonly balance: Cents | null }
  | { readonly _tag: "UnknownPlayer" }

/** The partner could not be asked, or answered nothing usable: down, slow, an error status, garbage. */
export class CallbackFailed extends Schema.TaggedError<CallbackFailed>()("CallbackFailed", {
  reason: Schema.Literals(["Timeout", "Unreachable", "HttpStatus", "InvalidAnswer"]),
  message: Schema.String
}) {}

const PartnerReply = Schema.Struct({
  balance: Schema.optional(Schema.NullOr(MoneyCents)),
  error: Schema.optional(Schema.NullOr(Schema.String))
})
const decodeReply = Schema.decodeUnknownExit(Schema.fromJsonString(PartnerReply))

/**
 * Sends signed callbacks to partners over HTTP, each with
 * PARTNER_CALLBACK_TIMEOUT. Nothing here is retried: the outbox decides
 * when a notification is tried again, and a bet is never asked twice in
 * one wallet call.
 */
export class PartnerCallbacks extends Context.Service<PartnerCallbacks, {
  /** A callback that needs an answer (`balance`, `bet`): the player's balance, or a refusal. */
  ask(target: CallbackTarget, eventId: string, body: string): Effect.Effect<PartnerAnswer, CallbackFailed>
  /** A notification: delivered when the partner answers 2xx. */
  deliver(target: CallbackTarget, eventId: string, body: string): Effect.Effect<void, CallbackFailed>
}>()("partner-api/callbacks/PartnerCallbacks") {
  static readonly layerNoDeps = Layer.effect(
    PartnerCallbacks,
    Effect.gen(function*() {
      const config = yield* CallbacksConfig
      const httpClient = yield* HttpClient.HttpClient
      const timeoutText = Duration.format(config.timeout)

      const post = (target: CallbackTarget, eventId: string, body: string) =>
        Effect.gen(function*() {
          const now = new Date(yield* Clock.currentTimeMillis)
          const request = HttpClientRequest.post(target.callbackUrl).pipe(
            HttpClientRequest.setHeaders(signedHeaders(target.webhookSecret, eventId, body, now)),
            HttpClientRequest.setBody(HttpBody.text(body, "application/json"))
          )
          const response = yield* httpClient.execute(request).pipe(
            Effect.mapError((error) =>
              new CallbackFailed({ reason: "Unreachable", message: `The partner could not be reached: ${error.message}` })
            )
          )
          const text = yield* response.text.pipe(
            Effect.mapError(() => new CallbackFailed({ reason: "Unreachable", message: "The partner's answer could not be read." }))
          )
          return { status: response.status, text }
        }).pipe(
          Effect.timeoutOrElse({
            duration: config.timeout,
            orElse: () =>
              Effect.fail(new CallbackFailed({ reason: "Timeout", message: `The partner did not answer within ${timeoutText}.` }))
          }),
          Effect.withSpan("PartnerCallbacks.post", { attributes: { eventId } })
        )

      const snippet = (text: string) => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)

      const ask = (target: CallbackTarget, eventId: string, body: string) =>
        Effect.gen(function*() {
          const { status, text } = yield* post(target, eventId, body)
          const reply = decodeReply(text)
          if (reply._tag === "Success") {
            const { balance, error } = reply.value
            const code = error?.trim().toLowerCase()
            if (code === "insufficient_funds" && status < 500) {
              return { _tag: "InsufficientFunds", balance: balance ?? null } satisfies PartnerAnswer
            }
            if (code === "unknown_player" && status < 500) return { _tag: "UnknownPlayer" } satisfies PartnerAnswer
            if (status >= 200 && status < 300 && !code && balance !== undefined && balance !== null) {
              return { _tag: "Balance", balance } satisfies PartnerAnswer
            }
          }
          return yield* new CallbackFailed(
            status >= 200 && status < 300
              ? { reason: "InvalidAnswer", message: `The partner's answer is not {"balance": <amount>}: ${snippet(text)}` }
              : { reason: "HttpStatus", message: `The partner answered HTTP ${status}: ${snippet(text)}` }
          )
        })

      const deliver = (target: CallbackTarget, eventId: string, body: string) =>
        Effect.flatMap(post(target, eventId, body), ({ status, text }) =>
          status >= 200 && status < 300
            ? Effect.void
            : Effect.fail(new CallbackFailed({ reason: "HttpStatus", message: `The partner answered HTTP ${status}: ${snippet(text)}` })))

      return PartnerCallbacks.of({ ask, deliver })
    })
  )

  // node:http with kept-alive connections: partners are few and called often, and it costs less CPU than fetch.
  static readonly layer = this.layerNoDeps.pipe(Layer.provide(NodeHttpClient.layerNodeHttpOptions({ keepAlive: true })))
}
