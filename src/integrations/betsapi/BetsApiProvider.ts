import { Effect, flow, Layer, Option, Redacted, Schedule } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { attemptFailure, jsonBody, timeEachAttempt, type UpstreamFailure } from "../../platform/UpstreamHttp.ts"
import { SportsConfig } from "../../sports/SportsConfig.ts"
import { makeSportsProvider, providerQuota, SportsProvider, SportsProviderError } from "../../sports/SportsProvider.ts"
import { providerFailures } from "../../sports/SportsProviderError.ts"
import { protocol } from "./BetsApiAnswers.ts"

/**
 * BetsAPI over effect's HttpClient. The token travels as the `token` query
 * parameter (a Redacted value, so traces never hold it) and is scrubbed from
 * anything this service shows or logs. Each
 * attempt has SPORTS_PROVIDER_TIMEOUT, and a time-out is final (a partner is
 * waiting). A dropped connection or a 500, 502, 503 or 504 is tried again,
 * twice at most, after 100 then 200 ms: the calls are GETs, and every
 * attempt spends the hourly quota like any other request.
 */
export const layer = Layer.effect(
  SportsProvider,
  Effect.gen(function*() {
    const config = yield* SportsConfig
    const token = Option.getOrElse(Option.map(config.betsapi.token, Redacted.value), () => "")
    const configured = token !== ""
    const { fail, fromUpstream: providerError, scrub } = providerFailures(token)
    const quota = yield* providerQuota("betsapi")

    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(flow(
        HttpClientRequest.prependUrl(config.betsapi.baseUrl),
        // Redacted: sent as it is, shown redacted in a client span's `url.full` and `url.query`.
        HttpClientRequest.setUrlParam("token", Redacted.make(token)),
        HttpClientRequest.acceptJson
      )),
      HttpClient.tapRequest(() => quota),
      // 2xx and 4xx answers carry BetsAPI's envelope ({success: 0, error}), which the provider reads.
      HttpClient.filterStatus((status) => status < 500),
      timeEachAttempt(config.timeout, { retried: false }),
      HttpClient.retryTransient({ retryOn: "errors-only", schedule: Schedule.exponential("100 millis"), times: 2 })
    )

    const call = (path: string, params: Readonly<Record<string, string>>) =>
      configured
        ? client.get(path, { urlParams: params }).pipe(
          Effect.catch((error): Effect.Effect<never, SportsProviderError | UpstreamFailure> =>
            error._tag === "SportsProviderError" ? Effect.fail(error) : attemptFailure(error)
          ),
          Effect.flatMap((response) =>
            Effect.flatMap(jsonBody(response), (json) =>
              // An answer is only walked for the token when its text holds it (an echoed request, say).
              Effect.map(Effect.orDie(response.text), (text) => text.includes(token) ? scrub(json) : json))
          ),
          Effect.mapError((error) => error._tag === "UpstreamFailure" ? providerError(error) : error),
          Effect.withSpan("BetsApi.call", { attributes: { path } })
        )
        : Effect.fail(fail("NotConfigured", "The sports provider is not configured (BETSAPI_TOKEN)."))

    return yield* makeSportsProvider({ name: "betsapi", configured, transport: { call, chargesQuota: true }, protocol })
  })
)
