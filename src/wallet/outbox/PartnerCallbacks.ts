import { NodeHttpClient } from "@effect/platform-node"
import { ByteSize, Clock, Context, Duration, Effect, Layer, Schema } from "effect"
import { HttpBody, HttpClient, HttpClientRequest, HttpIncomingMessage } from "effect/http"
import * as ExactJson from "../../domain/ExactJson.ts"
import { AmountCents } from "../../domain/Money.ts"
import { type CallbackTarget, signingSecrets } from "../../domain/Partner.ts"
import type { PartnerAnswer } from "../../domain/Wallet.ts"
import { CallbackUrlPolicy } from "../../partners/CallbackUrlPolicy.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { signedHeaders } from "./Signature.ts"

/** The partner could not be told: down, slow, an error status, a refused address. */
export class CallbackFailed extends Schema.TaggedError<CallbackFailed>()("CallbackFailed", {
  reason: Schema.Literals(["Timeout", "Unreachable", "HttpStatus", "InvalidAnswer", "UnsafeUrl"]),
  message: Schema.String
}) {}

const PartnerReply = Schema.Struct({
  balance: Schema.optional(Schema.NullOr(AmountCents)),
  error: Schema.optional(Schema.NullOr(Schema.String))
})
const decodeReply = Schema.decodeUnknownExit(PartnerReply)

/** The partner's answer, its amounts read exactly as written. */
const readReply = (text: string) => {
  try {
    return decodeReply(ExactJson.parse(text))
  } catch {
    return undefined
  }
}

/** A callback as it went out, byte for byte. */
export interface SentRequest {
  readonly method: "POST"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * A callback sent once to see what happens: the request (null when there was nothing to send to), the partner's
 * answer (its body null when larger than maxAnswerBytes), or the failure; and how long it took.
 */
export interface Trial {
  readonly request: SentRequest | null
  readonly answer: { readonly status: number; readonly body: string | null } | null
  readonly failure: string | null
  readonly milliseconds: number
}

/** The most of a partner's answer that is read: a wallet's answer is a few bytes; past this it is no answer. */
export const maxAnswerBytes = 64 * 1024
const tooLarge = `an answer larger than ${maxAnswerBytes / 1024} KiB`

/** An answer's text, or undefined when it is larger than maxAnswerBytes (not read further). */
type AnswerText = string | undefined

const snippet = (text: AnswerText) =>
  text === undefined ? `(${tooLarge})` : JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)

/** Whether reading a body failed because it passed the size limit (the connection is then dropped). */
const isOverflow = (error: { readonly reason: { readonly _tag: string } }) =>
  error.reason._tag === "DecodeError" && "cause" in error.reason &&
  (error.reason.cause as { readonly _tag?: unknown } | undefined)?._tag === "MaxBytesError"

/**
 * Sends signed callbacks to partners over HTTP, each with
 * PARTNER_CALLBACK_TIMEOUT, through connections that reach only what the
 * CallbackUrlPolicy allows. Nothing here is retried: the outbox decides when
 * a notification is tried again, and a bet is never asked twice in one
 * wallet call. A call that times out is aborted before it reports. An
 * answer is read up to maxAnswerBytes: a larger one is dropped unread and
 * is no answer (a bet asked is Unavailable; a notification counts by its
 * status alone).
 */
export class PartnerCallbacks extends Context.Service<PartnerCallbacks, {
  /** A callback that needs an answer (`balance`, `bet`): the player's balance, a refusal, or why there is none. */
  ask(target: CallbackTarget, eventId: string, body: string): Effect.Effect<PartnerAnswer>
  /** A notification: delivered when the partner answers 2xx. */
  deliver(target: CallbackTarget, eventId: string, body: string): Effect.Effect<void, CallbackFailed>
  /** Sends a callback once and tells all of it: the exact signed request, and the partner's answer or why there is none. */
  probe(target: CallbackTarget, eventId: string, body: string): Effect.Effect<Trial>
}>()("partner-api/wallet/PartnerCallbacks") {
  static readonly layerNoDeps = Layer.effect(
    PartnerCallbacks,
    Effect.gen(function*() {
      const config = yield* CallbacksConfig
      const policy = yield* CallbackUrlPolicy
      const clientWith = (options: NodeHttpClient.HttpAgentOptions) =>
        Layer.build(NodeHttpClient.layerNodeHttpOptions(options)).pipe(Effect.map(Context.get(HttpClient.HttpClient)))
      // node:http with kept-alive connections: partners are few and called often, and it costs less CPU than fetch.
      const guarded = yield* clientWith({ keepAlive: true, lookup: policy.lookup })
      const own = yield* clientWith({ keepAlive: true })
      const timeoutText = Duration.format(config.timeout)

      /** The request a callback is, signed now with every secret the target signs with: where, headers, body. */
      const signed = Effect.fnUntraced(function*(target: CallbackTarget, eventId: string, body: string) {
        const url = target.callbackUrl
        if (url === null) {
          return yield* new CallbackFailed({ reason: "Unreachable", message: "The partner has no callback_url." })
        }
        const now = new Date(yield* Clock.currentTimeMillis)
        return { method: "POST" as const, url, headers: signedHeaders(signingSecrets(target, now), eventId, body, now), body }
      })

      const send = Effect.fn("PartnerCallbacks.post")(
        function*(sent: SentRequest, eventId: string) {
          yield* Effect.annotateCurrentSpan("eventId", eventId)
          yield* policy.checkBeforeSend(sent.url).pipe(
            Effect.mapError((unsafe) => new CallbackFailed({ reason: "UnsafeUrl", message: `The callback URL ${unsafe.message}.` }))
          )
          const request = HttpClientRequest.post(sent.url).pipe(
            HttpClientRequest.setHeaders(sent.headers),
            HttpClientRequest.setBody(HttpBody.text(sent.body, "application/json"))
          )
          const client = policy.isExempt(sent.url) ? own : guarded
          const response = yield* client.execute(request).pipe(
            Effect.mapError((error) => {
              // The socket's own reason (refused, reset, an address the policy refuses) says more than "Transport error".
              const cause = "cause" in error.reason && error.reason.cause instanceof Error ? `: ${error.reason.cause.message}` : ""
              return new CallbackFailed({ reason: "Unreachable", message: `The partner could not be reached${cause} (${error.message})` })
            })
          )
          // Read up to maxAnswerBytes, whatever limit the calling fiber carries (a worker's carries none).
          const text: AnswerText = yield* response.text.pipe(
            Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxAnswerBytes)),
            Effect.catchIf(isOverflow, () => Effect.succeed(undefined)),
            Effect.mapError(() => new CallbackFailed({ reason: "Unreachable", message: "The partner's answer could not be read." }))
          )
          return { status: response.status, text }
        },
        Effect.timeoutOrElse({
          duration: config.timeout,
          orElse: () =>
            Effect.fail(new CallbackFailed({ reason: "Timeout", message: `The partner did not answer within ${timeoutText}.` }))
        })
      )

      const post = (target: CallbackTarget, eventId: string, body: string) =>
        Effect.flatMap(signed(target, eventId, body), (sent) => send(sent, eventId))

      const answerOf = (status: number, text: AnswerText): PartnerAnswer => {
        if (text === undefined) return { _tag: "Unavailable", reason: `The partner answered HTTP ${status} with ${tooLarge}.` }
        const reply = readReply(text)
        if (reply?._tag === "Success") {
          const { balance, error } = reply.value
          const code = error?.trim().toLowerCase()
          if (code === "insufficient_funds" && status < 500) return { _tag: "InsufficientFunds", balance: balance ?? null }
          if (code === "unknown_player" && status < 500) return { _tag: "UnknownPlayer" }
          if (status >= 200 && status < 300 && !code && balance !== undefined && balance !== null) {
            return { _tag: "Balance", balance }
          }
        }
        return {
          _tag: "Unavailable",
          reason: status >= 200 && status < 300
            ? `The partner's answer is not {"balance": <amount>}: ${snippet(text)}`
            : `The partner answered HTTP ${status}: ${snippet(text)}`
        }
      }

      const ask = (target: CallbackTarget, eventId: string, body: string) =>
        post(target, eventId, body).pipe(
          Effect.map(({ status, text }) => answerOf(status, text)),
          Effect.catch((failed) => Effect.succeed<PartnerAnswer>({ _tag: "Unavailable", reason: failed.message }))
        )

      const deliver = (target: CallbackTarget, eventId: string, body: string) =>
        Effect.flatMap(post(target, eventId, body), ({ status, text }) =>
          status >= 200 && status < 300
            ? Effect.void
            : Effect.fail(new CallbackFailed({ reason: "HttpStatus", message: `The partner answered HTTP ${status}: ${snippet(text)}` })))

      const probe = Effect.fn("PartnerCallbacks.probe")(function*(target: CallbackTarget, eventId: string, body: string) {
        const started = yield* Clock.currentTimeMillis
        const sent = yield* Effect.result(signed(target, eventId, body))
        if (sent._tag === "Failure") return { request: null, answer: null, failure: sent.failure.message, milliseconds: 0 } satisfies Trial
        const outcome = yield* Effect.result(send(sent.success, eventId))
        const milliseconds = (yield* Clock.currentTimeMillis) - started
        return outcome._tag === "Success"
          ? { request: sent.success, answer: { status: outcome.success.status, body: outcome.success.text ?? null }, failure: null, milliseconds }
          : { request: sent.success, answer: null, failure: outcome.failure.message, milliseconds }
      })

      return PartnerCallbacks.of({ ask, deliver, probe })
    })
  )

  static readonly layer = this.layerNoDeps.pipe(Layer.provide(CallbackUrlPolicy.layer))
}
