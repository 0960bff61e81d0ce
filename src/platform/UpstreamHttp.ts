import { Cause, Data, type Duration, Effect, Schema } from "effect"
import { HttpClient, HttpClientError, HttpClientResponse } from "effect/http"

/**
 * How a call to an upstream (the casino aggregator, the sports provider)
 * failed, before its area words it in its own error. `body` is what the
 * upstream sent back, fit for a `providerResponse`: its JSON, or the status
 * and the start of a body that is not JSON.
 */
export class UpstreamFailure extends Data.TaggedError("UpstreamFailure")<{
  readonly kind: "Unreachable" | "Unreadable" | "TimedOut" | "NotJson" | "Status" | "Shape"
  readonly status?: number | undefined
  readonly body?: unknown
  /** The client's own words, for a connection that failed. */
  readonly detail?: string | undefined
}> {}

/** How one attempt of a client built here can fail. */
export type AttemptError = HttpClientError.HttpClientError | Cause.TimeoutError | UpstreamFailure

/**
 * Each attempt reads the whole body within `duration`, so a hang before or
 * in the middle of the body is that attempt's time-out. A time-out that is
 * `retried` stays effect's TimeoutError, which `HttpClient.retryTransient`
 * retries; otherwise it is final: an UpstreamFailure, which it passes by.
 */
export const timeEachAttempt =
  (duration: Duration.Input, options: { readonly retried: boolean }) =>
  <E, R>(client: HttpClient.HttpClient.With<E, R>): HttpClient.HttpClient.With<AttemptError | E, R> =>
    HttpClient.transformResponse(
      client,
      (attempt): Effect.Effect<HttpClientResponse.HttpClientResponse, AttemptError | E, R> => {
        const read = Effect.tap(attempt, (response) => response.arrayBuffer)
        return options.retried
          ? Effect.timeout(read, duration)
          : Effect.timeoutOrElse(read, {
            duration,
            orElse: () => Effect.fail(new UpstreamFailure({ kind: "TimedOut" }))
          })
      }
    )

/** The start of a body that is not JSON, with its status. */
const notJson = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.flatMap(
    Effect.mapError(response.text, () => new UpstreamFailure({ kind: "Unreadable" })),
    (text) =>
      Effect.fail(
        new UpstreamFailure({
          kind: "NotJson",
          status: response.status,
          body: { status: response.status, body: text.slice(0, 1000) }
        })
      )
  )

/** The answer's JSON (read once per response; effect keeps the body). */
export const jsonBody = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<unknown, UpstreamFailure> =>
  Effect.catch(response.json, () => notJson(response))

/** The answer decoded with `schema`: not JSON, or JSON of another shape, is an UpstreamFailure with what came. */
export const decodeBody =
  <S extends Schema.Codec<unknown, unknown>>(schema: S) =>
  (response: HttpClientResponse.HttpClientResponse): Effect.Effect<S["Type"], UpstreamFailure> =>
    HttpClientResponse.schemaBodyJson(schema)(response).pipe(
      Effect.catchTags({
        HttpClientError: () => notJson(response),
        SchemaError: () =>
          Effect.flatMap(jsonBody(response), (body) => Effect.fail(new UpstreamFailure({ kind: "Shape", body })))
      })
    )

/**
 * What a failed `client.execute` means: a status the client refused (its
 * body read for what the upstream said), a time-out, a connection that could
 * not be made or was cut.
 */
export const attemptFailure = (error: AttemptError): Effect.Effect<never, UpstreamFailure> => {
  if (error instanceof UpstreamFailure) return Effect.fail(error)
  if (Cause.isTimeoutError(error)) return Effect.fail(new UpstreamFailure({ kind: "TimedOut" }))
  switch (error.reason._tag) {
    case "StatusCodeError": {
      const response = error.reason.response
      return Effect.flatMap(
        jsonBody(response),
        (body) => Effect.fail(new UpstreamFailure({ kind: "Status", status: response.status, body }))
      )
    }
    case "TransportError":
      return Effect.fail(new UpstreamFailure({ kind: "Unreachable", detail: error.message }))
    default:
      return Effect.fail(new UpstreamFailure({ kind: "Unreadable", detail: error.message }))
  }
}
