import { Duration, Effect, Redacted, Schedule, Schema, Stream } from "effect"
import { Sse } from "effect/encoding"
import { HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { PartnerAuth } from "../api/Security.ts"

/**
 * The typed TypeScript client for partners, derived from the contract in
 * src/api (the same definition the server and the OpenAPI document come
 * from), so a request or answer that drifts from the contract fails to
 * compile. Each group of the API is a property: `client.casino.games(...)`,
 * `client.catalog.prematch(...)`, ... Answers are decoded envelopes; the
 * contract's error answers are typed failures (`Unauthorized`,
 * `ValidationFailed`, `NotFound`, ... from ../api/Errors.ts).
 *
 * It needs an `HttpClient` (`FetchHttpClient.layer` from "effect/http", or
 * `NodeHttpClient` from @effect/platform-node).
 *
 * Partners get it as the package `@partner-api/client` (packages/partner-client:
 * `npm pack` there builds it, JavaScript and .d.ts, from this file and what it
 * imports: src/api, src/domain), so nothing here may import the server's areas.
 */

export { PartnerApi } from "../api/Api.ts"
import { Unauthorized, ValidationFailed } from "../api/Errors.ts"

export {
  Conflict,
  Forbidden,
  Gone,
  InternalError,
  NotFound,
  ProviderUnavailable,
  TooManyRequests,
  Unauthorized,
  ValidationFailed
} from "../api/Errors.ts"

export interface PartnerClientOptions {
  /** The service's origin, e.g. `https://partners.example.com`; none when the HttpClient already points at it. */
  readonly baseUrl?: string | URL | undefined
  /**
   * The partner's token: `pak_test_…` while integrating (only the sandboxes answer), `pak_live_…` to go live;
   * nothing else changes. Every answer's `partner.environment` says which one the service saw.
   */
  readonly token: string | Redacted.Redacted<string>
  /** How to send it: `Authorization: Bearer` (default) or the `X-Partner-Key` header. */
  readonly scheme?: "bearer" | "partnerKey" | undefined
}

/** Sends the token on every request, the way `scheme` says. */
const authenticate = (options: PartnerClientOptions) => {
  const token = Redacted.isRedacted(options.token) ? Redacted.value(options.token) : options.token
  return HttpApiMiddleware.layerClient(PartnerAuth, ({ next, request }) =>
    next(
      options.scheme === "partnerKey"
        ? HttpClientRequest.setHeader(request, "x-partner-key", token)
        : HttpClientRequest.bearerToken(request, token)
    ))
}

/** A client for the partner API, authenticated as one partner. */
export const makePartnerClient = (options: PartnerClientOptions) =>
  HttpApiClient.make(PartnerApi, { baseUrl: options.baseUrl }).pipe(Effect.provide(authenticate(options)))

export type PartnerClient = Effect.Success<ReturnType<typeof makePartnerClient>>

type ChangesRequest = Parameters<PartnerClient["stream"]["changes"]>[0]

/**
 * The live change stream's events, as the typed client decodes them (`connected`, `event`, `score`, `odds`, `result`,
 * `closing`, `reset`).
 */
export type SportsChange = Stream.Success<Effect.Success<ReturnType<PartnerClient["stream"]["changes"]>>>

export interface SportsChangesOptions {
  /** The filters (`sport_id`, `league_id`, `event_id`, `kinds`), each a list. */
  readonly query?: ChangesRequest["query"] | undefined
  /** Go on after this id (one kept from before); none: from now. */
  readonly lastEventId?: string | undefined
  /** The first wait before reconnecting when the service gave no hint; doubled while reconnecting fails, up to 30 s. */
  readonly reconnectAfter?: Duration.Input | undefined
}

/** Answers a new connection would get again: the token or the filters are wrong. */
const isFinal = (error: unknown) =>
  error instanceof Unauthorized || error instanceof ValidationFailed || Schema.isSchemaError(error)

/**
 * The live sports change stream (GET /sports/stream) as an effect Stream that
 * goes on across connections: every event the service sends (`connected` and
 * `reset` included), and after a disconnect, an instance that stops (its
 * `retry:` hint is waited) or a failed connection (waited with a doubling
 * backoff), a new connection with the last id received as `Last-Event-ID`, so
 * no change is lost or repeated (within the service's STREAM_RETENTION;
 * further, a `reset`). It fails only on an answer a new connection would get
 * again: Unauthorized, ValidationFailed. Interrupt it to stop.
 */
export const sportsChanges = (client: PartnerClient, options: SportsChangesOptions = {}) =>
  Stream.suspend(() => {
    let lastEventId = options.lastEventId
    let failures = 0
    const base = Duration.toMillis(Duration.fromInputUnsafe(options.reconnectAfter ?? "1 second"))
    const backoff = () => Effect.sleep(Math.min(30_000, base * 2 ** failures++) * (0.75 + Math.random() / 2))
    // Suspended: each connection asks with the last id received so far.
    const connection = Stream.suspend(() =>
      Stream.unwrap(client.stream.changes({
        query: options.query ?? {},
        headers: lastEventId === undefined ? {} : { "last-event-id": lastEventId }
      }))
    ).pipe(
      Stream.tap((event) =>
        Effect.sync(() => {
          if (event.id !== undefined) lastEventId = event.id
          failures = 0
        })
      ),
      // Ended by the service without a hint (a slow reader's reset, say): reconnect after a pause.
      Stream.concat(Stream.fromEffectDrain(Effect.suspend(backoff))),
      Stream.catchIf(
        (error) => !isFinal(error),
        (error) => Stream.fromEffectDrain(Sse.Retry.is(error) ? Effect.sleep(error.duration) : Effect.suspend(backoff))
      )
    )
    return Stream.repeat(connection, Schedule.forever)
  })
