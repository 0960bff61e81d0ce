import { amountOnWire } from "../../domain/Money.ts"
import { Duration, Effect, flow, Layer, Option, Redacted, Schedule, Schema, SchemaGetter } from "effect"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { withoutSecrets } from "../../platform/Secrets.ts"
import {
  type AttemptError,
  attemptFailure,
  decodeBody,
  jsonBody,
  timeEachAttempt,
  type UpstreamFailure
} from "../../platform/UpstreamHttp.ts"
import { CasinoConfig } from "../../casino/CasinoConfig.ts"
import {
  CasinoGateway,
  CasinoGatewayError,
  type GameLaunch,
  type UpstreamGame,
  type UpstreamProvider
} from "../../casino/CasinoGateway.ts"

// Public PlayFiver clients disagree on types (booleans as 1/"1"/true, codes as
// numbers or strings), so answers are decoded leniently but never trusted:
// anything that does not fit these shapes is an invalid response.

const truthy = new Set(["1", "true", "active", "yes", "on", "enabled", "success", "ok"])

const LooseBoolean = Schema.Union([Schema.Boolean, Schema.Number, Schema.String]).pipe(
  Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((value: boolean | number | string) =>
      typeof value === "boolean"
        ? value
        : typeof value === "number"
        ? value !== 0
        : truthy.has(value.trim().toLowerCase())
    ),
    encode: SchemaGetter.transform((value: boolean) => value)
  })
)

const LooseText = Schema.Union([Schema.String, Schema.Number]).pipe(
  Schema.decodeTo(Schema.String, {
    decode: SchemaGetter.transform((value: string | number) => String(value).trim()),
    encode: SchemaGetter.transform((value: string) => value)
  })
)

const NonEmptyText = LooseText.check(Schema.isMinLength(1))
const Maybe = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))

const ProvidersAnswer = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    name: NonEmptyText,
    image_url: Maybe(Schema.String),
    status: Maybe(LooseBoolean)
  }))
})

const GamesAnswer = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    game_code: NonEmptyText,
    name: NonEmptyText,
    image_url: Maybe(Schema.String),
    status: Maybe(LooseBoolean),
    original: Maybe(LooseBoolean),
    provider: Maybe(Schema.Struct({ name: Maybe(LooseText) }))
  }))
})

const LaunchAnswer = Schema.Struct({
  status: Maybe(LooseBoolean),
  msg: Maybe(Schema.String),
  launch_url: Maybe(Schema.String)
})

/**
 * The PlayFiver v2 protocol (../shared/spec/upstreams.md), over effect's
 * HttpClient: the base URL, a 2xx status filter and a time-out on every
 * attempt. The catalog reads, which change nothing, are retried with backoff
 * on transient failures (a time-out, a dropped connection, 408, 429, 500,
 * 502, 503, 504); a launch is never repeated.
 */
export const layer = Layer.effect(
  CasinoGateway,
  Effect.gen(function*() {
    const config = yield* CasinoConfig
    const agentToken = Option.map(config.playfiver.agentToken, Redacted.value)
    const secretKey = Option.map(config.playfiver.secretKey, Redacted.value)
    const configured = Option.isSome(agentToken) && Option.isSome(secretKey) &&
      agentToken.value !== "" && secretKey.value !== ""
    const secrets = [Option.getOrElse(agentToken, () => ""), Option.getOrElse(secretKey, () => "")]
    const credentials = {
      agentToken: Option.getOrElse(agentToken, () => ""),
      secretKey: Option.getOrElse(secretKey, () => "")
    }
    const timeoutText = Duration.format(config.timeout)

    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(flow(HttpClientRequest.prependUrl(config.playfiver.baseUrl), HttpClientRequest.acceptJson)),
      HttpClient.filterStatusOk,
      timeEachAttempt(config.timeout, { retried: true })
    )
    // Credentials travel both in the query and as headers: clients of this API disagree on which it reads.
    // In the query they are Redacted: sent as they are, but a client span's `url.full` and `url.query`
    // (and an error's URL) show them redacted. Headers are not recorded in spans (effect's default).
    const queryCredentials = {
      agentToken: Redacted.make(credentials.agentToken),
      secretKey: Redacted.make(credentials.secretKey)
    }
    const catalogReads = client.pipe(
      HttpClient.mapRequest(
        flow(HttpClientRequest.setUrlParams(queryCredentials), HttpClientRequest.setHeaders(credentials))
      ),
      HttpClient.retryTransient({ retryOn: "errors-only", schedule: Schedule.exponential("200 millis"), times: 3 })
    )

    const fail = (reason: CasinoGatewayError["reason"], message: string, providerResponse?: unknown) =>
      new CasinoGatewayError({
        reason,
        message,
        ...(providerResponse === undefined ? {} : { providerResponse: withoutSecrets(providerResponse, secrets) })
      })

    /** An upstream failure in the gateway's words; `what` names the call. */
    const gatewayError = (what: string) => (failure: UpstreamFailure): CasinoGatewayError => {
      switch (failure.kind) {
        case "Unreachable":
          return fail("Unavailable", `The casino aggregator could not be reached (${what}): ${failure.detail}`)
        case "Unreadable":
          return fail("Unavailable", `The casino aggregator's answer could not be read (${what}).`)
        case "TimedOut":
          return fail("Timeout", `The casino aggregator did not answer ${what} within ${timeoutText}.`)
        case "NotJson":
          // A 5xx page (a proxy's "Bad Gateway") is the aggregator being down, not an answer of the wrong kind.
          return (failure.status ?? 200) >= 500
            ? fail(
              "Unavailable",
              `The casino aggregator failed (${what}, HTTP ${failure.status}, not JSON).`,
              failure.body
            )
            : fail(
              "InvalidResponse",
              `The casino aggregator answered ${what} with something that is not JSON.`,
              failure.body
            )
        case "Shape":
          return fail(
            "InvalidResponse",
            `The casino aggregator's answer to ${what} has an unexpected shape.`,
            failure.body
          )
        case "Status":
          return (failure.status ?? 500) >= 500
            ? fail("Unavailable", `The casino aggregator failed (${what}, HTTP ${failure.status}).`, failure.body)
            : fail("Rejected", `The casino aggregator refused ${what} (HTTP ${failure.status}).`, failure.body)
      }
    }

    /** Sends one request through `through` and decodes its JSON answer; every failure is a CasinoGatewayError. */
    const call = <A>(
      through: HttpClient.HttpClient.With<AttemptError>,
      request: HttpClientRequest.HttpClientRequest,
      answer: Schema.Codec<A, unknown>,
      what: string
    ): Effect.Effect<
      { readonly value: A; readonly response: HttpClientResponse.HttpClientResponse },
      CasinoGatewayError
    > =>
      configured
        ? through.execute(request).pipe(
          Effect.catch(attemptFailure),
          Effect.flatMap((response) => Effect.map(decodeBody(answer)(response), (value) => ({ value, response }))),
          Effect.mapError(gatewayError(what))
        )
        : Effect.fail(notConfigured)

    const notConfigured = fail(
      "NotConfigured",
      "The casino aggregator is not configured (PLAYFIVER_AGENT_TOKEN and PLAYFIVER_SECRET_KEY)."
    )

    const providers = call(
      catalogReads,
      HttpClientRequest.get("/api/v2/providers"),
      ProvidersAnswer,
      "the provider list"
    ).pipe(
      Effect.map(({ value }) =>
        value.data.map((provider): UpstreamProvider => ({
          code: provider.name,
          name: provider.name,
          enabled: provider.status ?? true,
          imageUrl: provider.image_url ?? null
        }))
      ),
      Effect.withSpan("PlayFiver.providers")
    )

    const games = (provider: UpstreamProvider) =>
      call(
        catalogReads,
        HttpClientRequest.get("/api/v2/games", { urlParams: { provider: provider.code } }),
        GamesAnswer,
        `the game list of ${provider.code}`
      ).pipe(
        Effect.map(({ value }) =>
          value.data.map((game): UpstreamGame => ({
            code: game.game_code,
            name: game.name,
            providerCode: provider.code,
            enabled: game.status ?? true,
            original: game.original ?? true,
            imageUrl: game.image_url ?? null
          }))
        ),
        Effect.withSpan("PlayFiver.games", { attributes: { provider: provider.code } })
      )

    const launch = (request: GameLaunch) =>
      call(
        client,
        HttpClientRequest.post("/api/v2/game_launch").pipe(
          HttpClientRequest.bodyJsonUnsafe({
            ...credentials,
            user_code: String(request.userCode),
            game_code: request.gameCode,
            provider: request.providerCode,
            provider_code: request.providerCode,
            game_original: request.original,
            user_balance: amountOnWire(request.balance, request.currency),
            // Public clients clamp the RTP into 1..100; without one the aggregator's default applies.
            ...(request.rtp === undefined ? {} : { user_rtp: Math.min(Math.max(request.rtp, 1), 100) }),
            lang: request.lang
          })
        ),
        LaunchAnswer,
        "the game launch"
      ).pipe(
        Effect.flatMap(({ response, value }) =>
          Effect.flatMap(Effect.mapError(jsonBody(response), gatewayError("the game launch")), (json) =>
            value.status === false || !value.launch_url
              ? Effect.fail(fail(
                "Rejected",
                `The casino aggregator refused the launch${
                  value.msg ? `: ${String(withoutSecrets(value.msg, secrets))}` : "."
                }`,
                json
              ))
              : Effect.succeed({ url: value.launch_url, response: withoutSecrets(json, secrets) }))
        ),
        Effect.withSpan("PlayFiver.launch", { attributes: { game: request.gameCode } })
      )

    return CasinoGateway.of({
      name: "playfiver",
      configured,
      serves: (currency) => currency.code === config.playfiver.currency,
      providers,
      games,
      launch
    })
  })
)
