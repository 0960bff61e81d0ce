import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { ByteSize, Clock, Context, Duration, Effect, Layer, Schema } from "effect"
import { HttpBody, HttpClient, HttpClientRequest, HttpIncomingMessage } from "effect/http"
import * as ExactJson from "../../domain/ExactJson.ts"
import type { Currency } from "../../domain/Currency.ts"
import { DecimalAmount, minorOf } from "../../domain/Money.ts"
import { type CallbackTarget, signingSecrets } from "../../domain/Partner.ts"
import type { PartnerAnswer } from "../../domain/Wallet.ts"
import { CallbackUrlPolicy } from "../../partners/CallbackUrlPolicy.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { signedHeaders } from "./Signature.ts"

/** The partner could not be told: down, slow, an error status, a refused address. */
export class CallbackFailed extends Schema.TaggedError<CallbackFailed>()("CallbackFailed", {
  /**
   * `UnsafeUrl`: the URL policy refused the address (before sending, or the address its host resolved to);
   * `Unresolved`: the host name did not resolve. In both, nothing reached the partner.
   */
  reason: Schema.Literals(["Timeout", "Unreachable", "Unresolved", "HttpStatus", "InvalidAnswer", "UnsafeUrl"]),
  message: Schema.String
}) {}

const PartnerReply = Schema.Struct({
  balance: Schema.optional(Schema.NullOr(DecimalAmount)),
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

/** What the socket says when a host name does not resolve (getaddrinfo's codes). */
const unresolvedCodes = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "EAI_NODATA"])

/** The most of a partner's answer that is read: a wallet's answer is a few bytes; past this it is no answer. */
export const maxAnswerBytes = 64 * 1024
const tooLarge = `an answer larger than ${maxAnswerBytes / 1024} KiB`

/** An answer's text, or undefined when it is larger than maxAnswerBytes (not read further). */
export type AnswerText = string | undefined

/** An answer's beginning, as a failure's message quotes it. */
export const snippet = (text: AnswerText) =>
  text === undefined ? `(${tooLarge})` : JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)

/**
 * What a partner's answer to a `balance` or `bet` callback says: its balance, a refusal, or nothing usable (an error
 * status, another body, one past maxAnswerBytes). The wallet and the wallet certification read answers alike.
 */
export const readPartnerAnswer = (status: number, text: AnswerText, currency: Currency): PartnerAnswer => {
  if (text === undefined) {
    return { _tag: "Unavailable", reason: `The partner answered HTTP ${status} with ${tooLarge}.` }
  }
  const reply = readReply(text)
  if (reply?._tag === "Success") {
    const { error } = reply.value
    const stated = reply.value.balance
    // The balance is in the player's currency: finer than its minor unit is no balance of that currency.
    const balance = stated === undefined || stated === null ? stated : minorOf(stated, currency)
    if (balance === undefined && stated !== undefined) {
      return {
        _tag: "Unavailable",
        reason: `The partner's balance ${stated} has more decimals than ${currency.code} has (${currency.exponent}).`
      }
    }
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

/** A callback as `send` sent it: its headers, when, how long the answer took, and the answer or why none came. */
export interface SentCallback {
  readonly sentAt: Date
  readonly headers: Readonly<Record<string, string>>
  readonly millis: number
  /** The answer's status and text (undefined past maxAnswerBytes); null when none came. */
  readonly answer: { readonly status: number; readonly text: AnswerText } | null
  readonly failure: CallbackFailed | null
}

/** A balance or a bet as the partner answered it: no answer (a time-out, a refused connection) is Unavailable. */
export const answerOfSent = (sent: SentCallback, currency: Currency): PartnerAnswer =>
  sent.answer === null
    ? { _tag: "Unavailable", reason: sent.failure?.message ?? "no answer" }
    : readPartnerAnswer(sent.answer.status, sent.answer.text, currency)

/** The headers of a callback signed at `at` with every secret of the target valid then, as every callback is signed. */
export const signedAt = (target: CallbackTarget, eventId: string, body: string) => (at: Date) =>
  signedHeaders(signingSecrets(target, at), eventId, body, at)

/** A callback as it went out, byte for byte. */
export interface SentRequest {
  readonly method: "POST"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * A callback sent once to see what happens (the portal's and the console's test callback): the request (null when
 * there was nothing to send to), the partner's answer (its body null when larger than maxAnswerBytes), or the
 * failure; and how long it took.
 */
export interface Trial {
  readonly request: SentRequest | null
  readonly answer: { readonly status: number; readonly body: string | null } | null
  readonly failure: string | null
  readonly milliseconds: number
}

/** Sends a callback once, signed as every callback is, through `send`: what went out and what came back. */
export const probe = (
  callbacks: PartnerCallbacks["Service"],
  target: CallbackTarget,
  eventId: string,
  body: string
): Effect.Effect<Trial> => {
  const url = target.callbackUrl
  if (url === null) {
    return Effect.succeed({ request: null, answer: null, failure: "The partner has no callback_url.", milliseconds: 0 })
  }
  return Effect.map(
    callbacks.send(target, eventId, body, signedAt(target, eventId, body)),
    (sent): Trial => ({
      request: { method: "POST", url, headers: sent.headers, body },
      answer: sent.answer === null ? null : { status: sent.answer.status, body: sent.answer.text ?? null },
      failure: sent.failure?.message ?? null,
      milliseconds: sent.millis
    })
  )
}

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
  ask(target: CallbackTarget, eventId: string, body: string, currency: Currency): Effect.Effect<PartnerAnswer>
  /** A notification: delivered when the partner answers 2xx. */
  deliver(target: CallbackTarget, eventId: string, body: string): Effect.Effect<void, CallbackFailed>
  /**
   * A callback sent with the headers `headersAt` makes at the moment of sending (signed as `signedHeaders` signs, or
   * deliberately not), for the wallet certification's report: what was sent, the answer or why there was none, and
   * how long it took. The same connections, URL policy, time-out and answer limit as every callback.
   */
  send(
    target: CallbackTarget,
    eventId: string,
    body: string,
    headersAt: (now: Date) => Readonly<Record<string, string>>
  ): Effect.Effect<SentCallback>
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

      const post = Effect.fn("PartnerCallbacks.post")(
        function*(target: CallbackTarget, eventId: string, body: string, headers: Readonly<Record<string, string>>) {
          yield* Effect.annotateCurrentSpan("eventId", eventId)
          const url = target.callbackUrl
          if (url === null) {
            return yield* new CallbackFailed({ reason: "Unreachable", message: "The partner has no callback_url." })
          }
          yield* policy.checkBeforeSend(url).pipe(
            Effect.mapError((unsafe) =>
              new CallbackFailed({ reason: "UnsafeUrl", message: `The callback URL ${unsafe.message}.` })
            )
          )
          const request = HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.setBody(HttpBody.text(body, "application/json"))
          )
          const client = policy.isExempt(url) ? own : guarded
          const response = yield* client.execute(request).pipe(
            Effect.mapError((error) => {
              // The socket's own reason (refused, reset, an address the policy refuses) says more than "Transport error".
              const socket = "cause" in error.reason && error.reason.cause instanceof Error
                ? error.reason.cause as NodeJS.ErrnoException
                : undefined
              const cause = socket === undefined ? "" : `: ${socket.message}`
              return new CallbackFailed({
                reason: socket?.code === "EADDRNOTALLOWED"
                  ? "UnsafeUrl"
                  : unresolvedCodes.has(socket?.code ?? "")
                  ? "Unresolved"
                  : "Unreachable",
                message: `The partner could not be reached${cause} (${error.message})`
              })
            })
          )
          // Read up to maxAnswerBytes, whatever limit the calling fiber carries (a worker's carries none).
          const text: AnswerText = yield* response.text.pipe(
            Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxAnswerBytes)),
            Effect.catchIf(isOverflow, () => Effect.succeed(undefined)),
            Effect.mapError(() =>
              new CallbackFailed({ reason: "Unreachable", message: "The partner's answer could not be read." })
            )
          )
          return { status: response.status, text }
        },
        Effect.timeoutOrElse({
          duration: config.timeout,
          orElse: () =>
            Effect.fail(
              new CallbackFailed({ reason: "Timeout", message: `The partner did not answer within ${timeoutText}.` })
            )
        })
      )

      const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
      /** Signed at the moment of sending, with every secret valid then. */
      const signed = (target: CallbackTarget, eventId: string, body: string) =>
        Effect.flatMap(now, (at) => post(target, eventId, body, signedAt(target, eventId, body)(at)))

      const ask = (target: CallbackTarget, eventId: string, body: string, currency: Currency) =>
        signed(target, eventId, body).pipe(
          Effect.map(({ status, text }) => readPartnerAnswer(status, text, currency)),
          Effect.catch((failed) => Effect.succeed<PartnerAnswer>({ _tag: "Unavailable", reason: failed.message }))
        )

      const deliver = (target: CallbackTarget, eventId: string, body: string) =>
        Effect.flatMap(signed(target, eventId, body), ({ status, text }) =>
          status >= 200 && status < 300
            ? Effect.void
            : Effect.fail(
              new CallbackFailed({
                reason: "HttpStatus",
                message: `The partner answered HTTP ${status}: ${snippet(text)}`
              })
            ))

      const send = Effect.fnUntraced(
        function*(
          target: CallbackTarget,
          eventId: string,
          body: string,
          headersAt: (now: Date) => Readonly<Record<string, string>>
        ) {
          const sentAt = yield* now
          const headers = headersAt(sentAt)
          const [took, result] = yield* Effect.timed(Effect.result(post(target, eventId, body, headers)))
          return {
            sentAt,
            headers,
            millis: Math.round(Duration.toMillis(took)),
            answer: result._tag === "Success" ? result.success : null,
            failure: result._tag === "Failure" ? result.failure : null
          } satisfies SentCallback
        }
      )

      return PartnerCallbacks.of({ ask, deliver, send })
    })
  )

  static readonly layer = this.layerNoDeps.pipe(Layer.provide(CallbackUrlPolicy.layer))
}
