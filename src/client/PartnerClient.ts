import { Effect, Redacted } from "effect"
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
 */

export { PartnerApi } from "../api/Api.ts"
export { Conflict, Forbidden, InternalError, NotFound, ProviderUnavailable, Unauthorized, ValidationFailed } from "../api/Errors.ts"

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
