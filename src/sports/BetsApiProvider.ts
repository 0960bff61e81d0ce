import { Effect, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { withoutSecrets } from "../platform/Secrets.ts"
import { SportsConfig } from "./SportsConfig.ts"
import { makeSportsProvider, SportsProvider, SportsProviderError } from "./SportsProvider.ts"

/**
 * BetsAPI over HTTP. The token travels as the `token` query parameter and
 * is scrubbed from anything this service shows or logs. Each call has
 * SPORTS_PROVIDER_TIMEOUT; calls are not retried (the cache absorbs
 * repeats, and retries would spend the hourly quota).
 */
export const BetsApiProviderLive = Layer.effect(
  SportsProvider,
  Effect.gen(function*() {
    const config = yield* SportsConfig
    const httpClient = yield* HttpClient.HttpClient
    const token = Option.getOrElse(Option.map(config.betsapi.token, Redacted.value), () => "")
    const configured = token !== ""
    const scrub = (value: unknown) => withoutSecrets(value, [token])

    const fail = (reason: SportsProviderError["reason"], message: string, providerResponse?: unknown) =>
      new SportsProviderError({
        reason,
        message: String(scrub(message)),
        ...(providerResponse === undefined ? {} : { providerResponse: scrub(providerResponse) })
      })

    const call = (path: string, params: Readonly<Record<string, string>>) =>
      Effect.gen(function*() {
        if (!configured) return yield* fail("NotConfigured", "The sports provider is not configured (BETSAPI_TOKEN).")
        const response = yield* httpClient.execute(
          HttpClientRequest.get(`${config.betsapi.baseUrl}${path}`).pipe(
            HttpClientRequest.setUrlParams({ ...params, token }),
            HttpClientRequest.acceptJson
          )
        ).pipe(Effect.mapError(() => fail("Unavailable", "The sports provider could not be reached.")))
        const body = yield* response.text.pipe(
          Effect.mapError(() => fail("Unavailable", "The sports provider's answer could not be read."))
        )
        let json: unknown
        try {
          json = JSON.parse(body)
        } catch {
          return yield* fail("InvalidResponse", "The sports provider answered with something that is not JSON.", {
            status: response.status,
            body: body.slice(0, 1000)
          })
        }
        if (response.status >= 500) {
          return yield* fail("Unavailable", `The sports provider failed (HTTP ${response.status}).`, json)
        }
        // 2xx and 4xx answers carry BetsAPI's envelope ({success: 0, error}); its codes are read upstream of here.
        // An answer is only walked for the token when its text holds it (an echoed request, say).
        return body.includes(token) ? scrub(json) : json
      }).pipe(
        Effect.timeoutOrElse({
          duration: config.timeout,
          orElse: () => Effect.fail(fail("Timeout", "The sports provider did not answer in time."))
        }),
        Effect.withSpan("BetsApi.call", { attributes: { path } })
      )

    return yield* makeSportsProvider({ name: "betsapi", configured, transport: { call } })
  })
)
