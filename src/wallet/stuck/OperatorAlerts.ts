import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Clock, Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { HttpBody, HttpClient, type HttpClientError, HttpClientRequest } from "effect/http"
import { sign } from "../outbox/Signature.ts"
import { OperationsConfig } from "./OperationsConfig.ts"

/**
 * How operator alerts are signed: as partner callbacks are, HMAC-SHA256 keyed with OPERATOR_ALERT_SECRET over
 * `<timestamp>.<body>` (Unix seconds, the raw body), in `X-Alert-Signature: v1=<hex>` beside
 * `X-Alert-Timestamp`; `X-Alert-Id` is the body's `alert_id`, the same on every attempt.
 */
export const alertSignatureHeader = "x-alert-signature"
export const alertTimestampHeader = "x-alert-timestamp"
export const alertIdHeader = "x-alert-id"

/** How long an operator's endpoint has to answer an alert. */
export const alertTimeout = Duration.seconds(10)

export class AlertFailed extends Schema.TaggedError<AlertFailed>()("AlertFailed", { message: Schema.String }) {}

/**
 * What a failed alert says (stored as its `last_error`, shown to console viewers, logged): the endpoint's status or
 * the kind of failure, never the request, whose URL (its path, a `key=`) is the operator's secret.
 */
const failureKind = (error: HttpClientError.HttpClientError): string => {
  const reason = error.reason
  switch (reason._tag) {
    case "StatusCodeError":
      return `The alert endpoint answered HTTP ${reason.response.status}.`
    case "TransportError":
      return "The alert endpoint could not be reached (connection refused, reset or not resolved)."
    default:
      return `The alert could not be sent (${reason._tag}).`
  }
}

/**
 * Sends operator alerts to OPERATOR_ALERT_URL, signed, one POST each, answered by any 2xx within
 * `alertTimeout`. Retrying is the caller's (StuckItems), which records each attempt.
 */
export class OperatorAlerts extends Context.Service<OperatorAlerts, {
  /** Whether alerts are sent at all (OPERATOR_ALERT_URL is set). */
  readonly enabled: boolean
  send(alertId: string, body: string): Effect.Effect<void, AlertFailed>
}>()("partner-api/wallet/OperatorAlerts") {
  static readonly layer = Layer.effect(
    OperatorAlerts,
    Effect.gen(function*() {
      const config = yield* OperationsConfig
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
      const target = Option.zipWith(config.alertUrl, config.alertSecret, (url, secret) => ({ url, secret }))

      const send = Effect.fn("OperatorAlerts.send")(function*(alertId: string, body: string) {
        if (Option.isNone(target)) return
        const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const request = HttpClientRequest.post(target.value.url).pipe(
          HttpClientRequest.setHeaders({
            [alertIdHeader]: alertId,
            [alertTimestampHeader]: String(timestamp),
            [alertSignatureHeader]: sign(Redacted.value(target.value.secret), timestamp, body)
          }),
          HttpClientRequest.setBody(HttpBody.text(body, "application/json"))
        )
        yield* client.execute(request).pipe(
          Effect.flatMap((response) => response.text),
          // No client span: it would carry the URL to the traces' collector.
          Effect.provideService(HttpClient.TracerDisabledWhen, () => true),
          Effect.timeoutOrElse({
            duration: alertTimeout,
            orElse: () =>
              Effect.fail(new AlertFailed({ message: `No answer within ${Duration.format(alertTimeout)}.` }))
          }),
          Effect.mapError((error) =>
            error instanceof AlertFailed ? error : new AlertFailed({ message: failureKind(error) })
          )
        )
      })

      return OperatorAlerts.of({ enabled: Option.isSome(target), send })
    })
  ).pipe(Layer.provide(NodeHttpClient.layerNodeHttpOptions({ keepAlive: false })))
}
