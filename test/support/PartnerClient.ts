import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { PartnerApi } from "../../src/api/Api.ts"
import { PartnerAuth } from "../../src/api/Security.ts"

/**
 * The partner API's typed client (derived from the contract, as a partner
 * would use it), over real HTTP to the test's server, authenticating with
 * `token` as a Bearer token.
 */
export const partnerClient = (token: string) =>
  HttpApiClient.make(PartnerApi).pipe(
    Effect.provide(HttpApiMiddleware.layerClient(
      PartnerAuth,
      ({ next, request }) => next(HttpClientRequest.bearerToken(request, token))
    ))
  )
