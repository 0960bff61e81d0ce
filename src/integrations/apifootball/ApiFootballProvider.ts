import { Clock, Effect, flow, Layer, Option, Redacted, Schedule } from "effect"
import { Headers, HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { attemptFailure, jsonBody, timeEachAttempt, type UpstreamFailure } from "../../platform/UpstreamHttp.ts"
import { SportsConfig } from "../../sports/SportsConfig.ts"
import { makeSportsProvider, providerQuota, SportsProvider, SportsProviderError } from "../../sports/SportsProvider.ts"
import { providerFailures } from "../../sports/SportsProviderError.ts"
import { StatSamplesRepo } from "../../sports/StatSamplesRepo.ts"
import * as ApiFootball from "./ApiFootball.ts"
import { protocol } from "./ApiFootballAnswers.ts"
import { makeApiFootballQuota, nextUtcDay } from "./ApiFootballQuota.ts"

/** The header the key travels in; no other header is added (the host refuses unknown ones). */
const keyHeader = "x-apisports-key"

/** How often `/status` (free of quota) is read for the day's figures. */
const statusEvery = "10 minutes"

/** An answer with no content (HTTP 204): an envelope with nothing in it. */
const noContent = { get: "", parameters: [], errors: [], results: 0, paging: { current: 1, total: 1 }, response: [] }

/**
 * API-Football (api-sports v3) over effect's HttpClient. Each call is a GET with the key in `x-apisports-key` and
 * nothing else the host refuses: no trace propagation headers, no body headers. The key is scrubbed from anything
 * shown or logged. Every answer's envelope is read for its failures (most arrive as HTTP 200) and its headers for the
 * quota: the day's and the minute's limits hold the whole fleet (ApiFootballQuota). A dropped connection or a 5xx is
 * tried once more, after the minute's token is taken again; a time-out is final (a partner is waiting, and the
 * provider may be holding requests past its limit).
 */
export const layer = Layer.effect(
  SportsProvider,
  Effect.gen(function*() {
    const config = yield* SportsConfig
    const settings = config.apifootball
    const key = Option.getOrElse(Option.map(settings.key, Redacted.value), () => "")
    const configured = key !== ""
    const { fail, fromUpstream: providerError, scrub } = providerFailures(key)
    const quota = yield* makeApiFootballQuota({ callsPerMinute: settings.callsPerMinute })
    const hourly = yield* providerQuota("apifootball")
    const samples = yield* StatSamplesRepo

    const base = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(flow(
        HttpClientRequest.prependUrl(settings.baseUrl),
        HttpClientRequest.setHeader(keyHeader, key)
      )),
      // 4xx answers carry the envelope (a missing key is a 403), which is read below.
      HttpClient.filterStatus((status) => status < 500),
      timeEachAttempt(config.timeout, { retried: false })
    )
    const client = base.pipe(
      HttpClient.tapRequest(() => Effect.andThen(quota.take, hourly)),
      HttpClient.retryTransient({ retryOn: "errors-only", schedule: Schedule.exponential("200 millis"), times: 1 })
    )

    const headersOf = (response: HttpClientResponse.HttpClientResponse) =>
      ApiFootball.quotaOf(response.headers as Readonly<Record<string, string | undefined>>)

    /**
     * An answer read: its quota figures observed, its failures that are not about what was asked (the key, the day's
     * quota, the minute's limit) made errors; a plan's or a parameter's refusal is handed on to be read and kept.
     */
    const answerOf = (response: HttpClientResponse.HttpClientResponse) =>
      Effect.gen(function*() {
        if (response.status === 204) {
          yield* quota.observe([], headersOf(response))
          return noContent as unknown
        }
        const json = yield* jsonBody(response)
        const envelope = ApiFootball.readEnvelope(json)
        const failures = envelope._tag === "Failed" ? envelope.failures : []
        yield* quota.observe(failures, headersOf(response))
        const errors = { errors: (json as { errors?: unknown }).errors }
        const kinds = new Set(failures.map((failure) => failure.kind))
        const now = yield* Clock.currentTimeMillis
        if (kinds.has("token")) {
          return yield* fail("KeyRefused", "The sports provider refused the configured key (APIFOOTBALL_KEY).", errors)
        }
        for (const [kind, hold] of [["requests", "day"], ["rateLimit", "minute"]] as const) {
          if (kinds.has(kind)) {
            const refused = quota.refusal(hold, hold === "day" ? nextUtcDay(now) : now + 60_000)
            return yield* fail(refused.reason, refused.message, errors)
          }
        }
        if (response.status >= 400) {
          return yield* fail("Unavailable", `The sports provider failed (HTTP ${response.status}).`, errors)
        }
        // An answer is only walked for the key when its text holds it (an echoed request, say).
        const text = yield* Effect.orDie(response.text)
        return text.includes(key) ? scrub(json) : json
      })

    const call = (path: string, params: Readonly<Record<string, string>>) =>
      configured
        ? client.get(path, { urlParams: params }).pipe(
          Effect.catch((error): Effect.Effect<never, SportsProviderError | UpstreamFailure> =>
            error._tag === "SportsProviderError" ? Effect.fail(error) : attemptFailure(error)
          ),
          Effect.flatMap(answerOf),
          Effect.mapError((error) => error._tag === "UpstreamFailure" ? providerError(error) : error),
          // No trace context on the wire (the host refuses the headers), and the key redacted wherever headers show.
          Effect.provideService(HttpClient.TracerPropagationEnabled, false),
          Effect.provideService(Headers.CurrentRedactedNames, [
            ...Headers.CurrentRedactedNames.defaultValue(),
            keyHeader
          ]),
          Effect.withSpan("ApiFootball.call", { attributes: { path } })
        )
        : Effect.fail(fail("NotConfigured", "The sports provider is not configured (APIFOOTBALL_KEY)."))

    /** `/status`, free of quota, for the day's figures: a day spent there holds every call until the day turns. */
    const readStatus = base.get(ApiFootball.paths.status).pipe(
      Effect.flatMap(jsonBody),
      Effect.map((json) => {
        const envelope = ApiFootball.readEnvelope(json)
        return envelope._tag === "Ok" ? ApiFootball.toAccount(envelope.response) : undefined
      }),
      Effect.flatMap((account) => account === undefined ? Effect.void : quota.observeAccount(account)),
      Effect.provideService(HttpClient.TracerPropagationEnabled, false),
      Effect.catchCause(() => Effect.logDebug("The sports provider's /status could not be read")),
      Effect.withSpan("ApiFootball.status")
    )
    if (configured) yield* Effect.forkScoped(Effect.repeat(readStatus, Schedule.spaced(statusEvery)))

    return yield* makeSportsProvider({
      name: "apifootball",
      configured,
      transport: { call, chargesQuota: true },
      protocol: protocol({ bookmakerId: settings.bookmakerId, now: () => Date.now() }),
      statSamples: samples
    })
  })
)
