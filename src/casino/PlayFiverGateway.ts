import { Duration, Effect, Layer, Option, Redacted, Schedule, Schema, SchemaGetter } from "effect"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { withoutSecrets } from "../platform/Secrets.ts"
import { CasinoConfig } from "./CasinoConfig.ts"
import {
  CasinoGateway,
  CasinoGatewayError,
  type GameLaunch,
  type UpstreamGame,
  type UpstreamProvider
} from "./CasinoGateway.ts"

// Public PlayFiver clients disagree on types (booleans as 1/"1"/true, codes as
// numbers or strings), so answers are decoded leniently but never trusted:
// anything that does not fit these shapes is an invalid response.

const truthy = new Set(["1", "true", "active", "yes", "on", "enabled", "success", "ok"])

const LooseBoolean = Schema.Union([Schema.Boolean, Schema.Number, Schema.String]).pipe(
  Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((value: boolean | number | string) =>
      typeof value === "boolean" ? value : typeof value === "number" ? value !== 0 : truthy.has(value.trim().toLowerCase())
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
 * The PlayFiver v2 protocol (../shared/spec/upstreams.md). Every call has a
 * time-out; the catalog reads, which change nothing, are retried with backoff
 * on time-outs and unavailability; a launch is never repeated.
 */
export const PlayFiverGatewayLive = Layer.effect(
  CasinoGateway,
  Effect.gen(function*() {
    const config = yield* CasinoConfig
    const httpClient = yield* HttpClient.HttpClient
    const { baseUrl } = config.playfiver
    const agentToken = Option.map(config.playfiver.agentToken, Redacted.value)
    const secretKey = Option.map(config.playfiver.secretKey, Redacted.value)
    const configured = Option.isSome(agentToken) && Option.isSome(secretKey) &&
      agentToken.value !== "" && secretKey.value !== ""
    const secrets = [Option.getOrElse(agentToken, () => ""), Option.getOrElse(secretKey, () => "")]
    const credentials = { agentToken: Option.getOrElse(agentToken, () => ""), secretKey: Option.getOrElse(secretKey, () => "") }
    const timeoutText = Duration.format(config.timeout)

    const fail = (reason: CasinoGatewayError["reason"], message: string, providerResponse?: unknown) =>
      new CasinoGatewayError({
        reason,
        message,
        ...(providerResponse === undefined ? {} : { providerResponse: withoutSecrets(providerResponse, secrets) })
      })

    const notConfigured = fail(
      "NotConfigured",
      "The casino aggregator is not configured (PLAYFIVER_AGENT_TOKEN and PLAYFIVER_SECRET_KEY)."
    )

    /** Sends one request and decodes its JSON answer, mapping every failure to a CasinoGatewayError. */
    const call = <A>(
      request: HttpClientRequest.HttpClientRequest,
      answer: Schema.Codec<A, unknown>,
      what: string
    ): Effect.Effect<{ readonly value: A; readonly json: unknown }, CasinoGatewayError> =>
      Effect.gen(function*() {
        if (!configured) return yield* notConfigured
        const response: HttpClientResponse.HttpClientResponse = yield* httpClient.execute(request).pipe(
          Effect.mapError((error) => fail("Unavailable", `The casino aggregator could not be reached (${what}): ${error.message}`))
        )
        const body = yield* response.text.pipe(
          Effect.mapError(() => fail("Unavailable", `The casino aggregator's answer could not be read (${what}).`))
        )
        let json: unknown
        try {
          json = JSON.parse(body)
        } catch {
          return yield* fail("InvalidResponse", `The casino aggregator answered ${what} with something that is not JSON.`, {
            status: response.status,
            body: body.slice(0, 1000)
          })
        }
        if (response.status >= 500) {
          return yield* fail("Unavailable", `The casino aggregator failed (${what}, HTTP ${response.status}).`, json)
        }
        if (response.status >= 400) {
          return yield* fail("Rejected", `The casino aggregator refused ${what} (HTTP ${response.status}).`, json)
        }
        const value = yield* Schema.decodeUnknownEffect(answer)(json).pipe(
          Effect.mapError(() => fail("InvalidResponse", `The casino aggregator's answer to ${what} has an unexpected shape.`, json))
        )
        return { value, json }
      }).pipe(
        Effect.timeoutOrElse({
          duration: config.timeout,
          orElse: () => Effect.fail(fail("Timeout", `The casino aggregator did not answer ${what} within ${timeoutText}.`))
        })
      )

    const retryTransient = <A>(effect: Effect.Effect<A, CasinoGatewayError>) =>
      Effect.retry(effect, {
        schedule: Schedule.exponential("200 millis"),
        times: 3,
        while: (error) => error.transient
      })

    // Credentials travel both in the query and as headers: clients of this API disagree on which it reads.
    const get = (path: string, params: Record<string, string>) =>
      HttpClientRequest.get(`${baseUrl}${path}`).pipe(
        HttpClientRequest.setUrlParams({ ...params, ...credentials }),
        HttpClientRequest.setHeaders(credentials),
        HttpClientRequest.acceptJson
      )

    const providers = call(get("/api/v2/providers", {}), ProvidersAnswer, "the provider list").pipe(
      retryTransient,
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
      call(get("/api/v2/games", { provider: provider.code }), GamesAnswer, `the game list of ${provider.code}`).pipe(
        retryTransient,
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
        HttpClientRequest.post(`${baseUrl}/api/v2/game_launch`).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyJsonUnsafe({
            ...credentials,
            user_code: String(request.userCode),
            game_code: request.gameCode,
            provider: request.providerCode,
            provider_code: request.providerCode,
            game_original: request.original,
            user_balance: request.balance,
            // Public clients clamp the RTP into 1..100; without one the aggregator's default applies.
            ...(request.rtp === undefined ? {} : { user_rtp: Math.min(Math.max(request.rtp, 1), 100) }),
            lang: request.lang
          })
        ),
        LaunchAnswer,
        "the game launch"
      ).pipe(
        Effect.flatMap(({ json, value }) =>
          value.status === false || !value.launch_url
            ? Effect.fail(fail(
              "Rejected",
              `The casino aggregator refused the launch${value.msg ? `: ${String(withoutSecrets(value.msg, secrets))}` : "."}`,
              json
            ))
            : Effect.succeed({ url: value.launch_url, response: withoutSecrets(json, secrets) })
        ),
        Effect.withSpan("PlayFiver.launch", { attributes: { game: request.gameCode } })
      )

    return CasinoGateway.of({ name: "playfiver", configured, providers, games, launch })
  })
)
